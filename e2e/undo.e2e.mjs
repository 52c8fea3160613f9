// Undo in a real browser (issue 16; TestUndoInBrowser scripts the provider):
// a turn edits notes.txt and runs a command that writes out.txt; the user
// opens "2 files changed", reads the diff, undoes after confirming, and sees
// what was restored; a reload still shows the turn as undone.

import { T, clickNewSession, expect, runScenario } from './scenario.mjs';

const width = Number(process.env.E2E_WIDTH ?? '800');

await runScenario(`undo-${width}`, async ({ page, step, shot }) => {
  await page.setViewportSize({ width, height: 860 });
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  const composer = page.locator('textarea[aria-label="Message"]');

  step('a turn edits a file and writes another through bash');
  await clickNewSession(page);
  await composer.fill('Edit the notes and build.');
  await composer.press('Enter');
  await page.locator('.msg-assistant', { hasText: 'Edited the notes and built out.txt.' }).waitFor({ timeout: T });
  const files = page.locator('[data-testid="turn-files"]');
  const toggle = files.locator('.turn-files-toggle');
  await toggle.waitFor({ timeout: T });
  expect((await toggle.innerText()) === '2 files changed', `the turn says ${await toggle.innerText()}`);

  step('the changed files with their diffs');
  await toggle.click();
  const rows = files.locator('[data-testid="turn-file"]');
  await rows.nth(1).waitFor({ timeout: T });
  const notes = rows.filter({ hasText: 'notes.txt' });
  await notes.locator('.diff-del', { hasText: 'beta' }).waitFor({ timeout: T });
  await notes.locator('.diff-add', { hasText: 'BETA' }).waitFor({ timeout: T });
  expect((await rows.filter({ hasText: 'out.txt' }).getAttribute('data-status')) === 'created', 'out.txt is not shown as created');
  await shot(`undo-${width}-diff`);
  const overflow = await page.evaluate(() =>
    [...document.querySelectorAll('.turn-files *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).map((e) => e.className || e.tagName),
  );
  expect(overflow.length === 0, `the changes run past the right edge: ${overflow.slice(0, 5)}`);

  step('Undo asks first, then restores both files and says so');
  await files.locator('.turn-undo').click();
  await page.locator('[role="alertdialog"]', { hasText: 'Restore 2 files' }).waitFor({ timeout: T });
  await page.locator('.turn-undo-confirm-btn').click();
  const result = page.locator('[data-testid="undo-result"]');
  await result.waitFor({ timeout: T });
  expect((await result.innerText()).includes('Restored 2 files to before this turn.'), `undo said: ${await result.innerText()}`);
  await files.locator('.turn-files-undone').waitFor({ timeout: T });
  await shot(`undo-${width}-done`);

  step('after a reload the turn still shows as undone');
  await page.reload();
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  await page.locator('[data-testid="turn-files"][data-undone="true"]').waitFor({ timeout: T });
  expect((await page.locator('.turn-undo').count()) === 0, 'Undo is offered again after the reload');
});
