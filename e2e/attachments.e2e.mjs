// Attachments in a real browser (issue 17; TestAttachmentsInBrowser runs it
// once per provider wire format): a screenshot pasted into the composer of a
// new session, a text file dropped on it, an unsupported file chosen with
// the paperclip refused on its chip; the message sent with both; then the binary is
// restarted on the same data dir (sync "restart" answers with its new URL)
// and the reloaded history shows the thumbnail and the file again.

import { T, clickNewSession, expect, runScenario } from './scenario.mjs';

const width = Number(process.env.E2E_WIDTH ?? '800');

/** Whether every img matched by loc has loaded (a broken image has naturalWidth 0). */
async function loaded(loc) {
  return loc.evaluateAll((els) => els.length > 0 && els.every((e) => e.complete && e.naturalWidth > 0));
}

await runScenario(`attachments-${width}`, async ({ page, step, sync, shot }) => {
  await page.setViewportSize({ width, height: 860 });
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  const composer = page.locator('textarea[aria-label="Message"]');
  const chips = page.locator('[data-testid="pending-attachment"]');

  step('a new session; a 64×48 screenshot pasted into the composer uploads and shows its thumbnail');
  await clickNewSession(page);
  await page.locator('.new-session').waitFor({ timeout: T });
  await composer.waitFor({ timeout: T });
  await composer.evaluate(async (el) => {
    const canvas = document.createElement('canvas');
    canvas.width = 64;
    canvas.height = 48;
    const g = canvas.getContext('2d');
    g.fillStyle = '#d22';
    g.fillRect(0, 0, 64, 48);
    const blob = await new Promise((r) => canvas.toBlob(r, 'image/png'));
    const dt = new DataTransfer();
    dt.items.add(new File([blob], 'screenshot.png', { type: 'image/png' }));
    el.focus();
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });
  await chips.filter({ hasText: 'screenshot.png' }).and(page.locator('[data-state="ready"]')).waitFor({ timeout: T });
  await page.waitForFunction(() => {
    const img = document.querySelector('[data-testid="pending-attachment"] img');
    return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 64;
  }, null, { timeout: T });

  step('a text file dropped on the composer; a binary file chosen with the paperclip is refused with the reason on its chip');
  const drop = await page.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['# Notes\nremember the milk\n'], 'notes.md', { type: 'text/markdown' }));
    return dt;
  });
  await page.locator('.composer').dispatchEvent('dragover', { dataTransfer: drop });
  await page.locator('.composer.is-dragging').waitFor({ timeout: T });
  await page.locator('.composer').dispatchEvent('drop', { dataTransfer: drop });
  await page.locator('[data-testid="attach-input"]').setInputFiles([
    { name: 'tool.bin', mimeType: 'application/octet-stream', buffer: Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]) },
  ]);
  await chips.filter({ hasText: 'notes.md' }).and(page.locator('[data-state="ready"]')).waitFor({ timeout: T });
  const refused = chips.filter({ hasText: 'cannot be attached' });
  await refused.waitFor({ timeout: T });
  expect((await refused.getAttribute('data-state')) === 'error', 'the binary file is not shown as refused');
  expect(!(await refused.innerText()).includes('invalid input'), `the refusal carries protocol noise: ${await refused.innerText()}`);
  await shot(`attachments-${width}-composer`);
  await refused.locator('button').click();
  await refused.waitFor({ state: 'detached', timeout: T });

  step('the message goes with both attachments; the answer arrives');
  await composer.fill('What is in this picture?');
  await composer.press('Enter');
  const user = page.locator('.msg-user', { hasText: 'What is in this picture?' });
  await user.waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'A small red square' }).waitFor({ timeout: T });
  expect((await chips.count()) === 0, 'the sent attachments stayed in the composer');
  const thumb = user.locator('[data-testid="attached-image"] img');
  await thumb.waitFor({ timeout: T });
  expect(await loaded(thumb), 'the sent image does not load');
  await user.locator('[data-testid="attached-file"]', { hasText: 'notes.md' }).waitFor({ timeout: T });

  step('the binary restarts on the same data dir; the reloaded history shows the attachments again');
  const url = await sync('restart');
  await page.goto(url);
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  if ((await page.locator('nav.sidebar').count()) === 0) await page.locator('.side-expand').click();
  await page.locator('.side-row').first().waitFor({ timeout: T });
  await page.locator('.side-row .side-open').first().click();
  const again = page.locator('.msg-user', { hasText: 'What is in this picture?' });
  await again.waitFor({ timeout: T });
  const thumbAgain = again.locator('[data-testid="attached-image"] img');
  await thumbAgain.waitFor({ timeout: T });
  await page.waitForFunction(() => {
    const img = document.querySelector('[data-testid="attached-image"] img');
    return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 64;
  }, null, { timeout: T });
  await again.locator('[data-testid="attached-file"]', { hasText: 'notes.md' }).waitFor({ timeout: T });
  await again.locator('[data-testid="attached-image"]').click();
  await page.locator('dialog.image-viewer img').waitFor({ timeout: T });
  await shot(`attachments-${width}-viewer`);
  await page.keyboard.press('Escape');
  await page.locator('dialog.image-viewer').waitFor({ state: 'detached', timeout: T });
  await shot(`attachments-${width}-history`);
});
