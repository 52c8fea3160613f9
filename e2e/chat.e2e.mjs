// End-to-end chat test in a real browser (scenario.mjs runs it): new
// session, a tool call then streamed Markdown, a reload mid-stream, cancel,
// a provider error, themes, delete, delegation with a queued message and a
// reload, the worker session, compaction, export and a narrow window.

import { readFileSync } from 'node:fs';
import { T, runScenario } from './scenario.mjs';

await runScenario('e2e', async ({ page, step, sync, shot }) => {
  step('first load');
  await page.locator('.sidebar').waitFor({ timeout: T });
  if (new URL(page.url()).searchParams.has('token')) throw new Error('the token stayed in the address bar');

  step('new session (created by its first message)');
  await page.locator('.sidebar .btn-primary').click();
  await page.locator('.new-session .chat-title h1').waitFor({ timeout: T });
  const rows = page.locator('.side-row');

  step('send a message: tool call, then streamed text');
  const composer = page.locator('textarea[aria-label="Message"]');
  await composer.fill('Run the tool, then explain.');
  await composer.press('Enter');
  await page.locator('.msg-user', { hasText: 'Run the tool, then explain.' }).waitFor({ timeout: T });
  await rows.first().waitFor({ timeout: T });
  const tool = page.locator('.tool-card[data-status="done"]', { hasText: 'bash' });
  await tool.waitFor({ timeout: T });
  await tool.locator('.tool-output-text', { hasText: 'hello-from-tool' }).waitFor({ timeout: T });
  const streaming = page.locator('.msg-assistant', { hasText: 'Part one' });
  await streaming.waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ timeout: T });
  await page.locator('.side-row.is-selected[data-running="true"]').waitFor({ timeout: T });
  await shot('e2e-streaming');

  step('reload mid-stream: same text');
  const before = (await streaming.locator('.md').innerText()).trim();
  await page.reload();
  const again = page.locator('.msg-assistant', { hasText: 'Part one' });
  await again.waitFor({ timeout: T });
  const after = (await again.locator('.md').innerText()).trim();
  if (after !== before) throw new Error(`text after reload differs:\nbefore: ${JSON.stringify(before)}\nafter:  ${JSON.stringify(after)}`);
  await page.locator('[data-testid="running"]').waitFor({ timeout: T });

  await sync('release-stream');
  step('stream completes');
  await page.locator('.msg-assistant', { hasText: 'The end.' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });
  await page.locator('.msg-assistant pre code.language-go').first().waitFor({ timeout: T });
  await page.locator('.msg-assistant .msg-usage').first().waitFor({ timeout: T });
  await page.locator('[data-testid="session-usage"]').waitFor({ timeout: T });
  await shot('e2e-finished');

  step('cancel mid-stream with Esc');
  await composer.fill('Count slowly.');
  await composer.press('Enter');
  await page.locator('.msg-assistant', { hasText: 'Counting: 1 2 3' }).waitFor({ timeout: T });
  await composer.press('Escape');
  await page.locator('.msg-assistant', { hasText: 'Counting: 1 2 3' }).locator('.msg-annotation', { hasText: '(cancelled)' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });

  step('provider error is visible, once: under its message (issue 34)');
  await composer.fill('This call fails.');
  await composer.press('Enter');
  await page.locator('.msg-user', { hasText: 'This call fails.' }).locator('[data-testid="turn-outcome"][data-status="failed"]', { hasText: 'invalid x-api-key' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });
  if ((await page.locator('[data-testid="chat-error"]').count()) !== 0) throw new Error('a banner repeats the inline failure');
  await shot('e2e-error');

  step('dark theme');
  await page.locator('.side-bottom button[aria-label^="Theme"]').click(); // system → light
  await page.locator('.side-bottom button[aria-label^="Theme"]').click(); // light → dark
  await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached', timeout: T });
  await shot('e2e-dark');

  step('delete the session');
  const count = await rows.count();
  const selected = page.locator('.side-row.is-selected');
  const id = await selected.getAttribute('data-session-id');
  await selected.hover();
  await selected.locator('button[aria-label^="Delete"]').click();
  await selected.locator('.side-confirm button', { hasText: 'Delete' }).click();
  await page.locator(`.side-row[data-session-id="${id}"]`).waitFor({ state: 'detached', timeout: T });
  if ((await rows.count()) !== count - 1) throw new Error('the session list did not shrink by one');

  step('second session: delegation card streams the worker');
  await page.locator('.side-bottom button[aria-label^="Theme"]').click(); // dark → system
  await page.locator('.sidebar .btn-primary').click();
  await page.locator('.new-session').waitFor({ timeout: T });
  await composer.fill('Delegate the README summary.');
  await composer.press('Enter');
  await page.locator('.msg-user', { hasText: 'Delegate the README summary.' }).waitFor({ timeout: T });
  const parentId = await page.locator('.side-row.is-selected').getAttribute('data-session-id');
  const card = page.locator('.deleg-card');
  await card.locator('.deleg-task', { hasText: 'Summarise the README in one line' }).waitFor({ timeout: T });
  await card.locator('.deleg-output', { hasText: 'Worker reading the README' }).waitFor({ timeout: T });
  if ((await card.getAttribute('data-status')) !== 'running') throw new Error('the delegation card is not running while the worker streams');

  step('queue a message while the turn runs; it survives a reload');
  await composer.fill('Thanks!');
  await composer.press('Enter');
  await page.locator('[data-testid="queued-turn"][data-confirmed="true"]', { hasText: 'Thanks!' }).waitFor({ timeout: T });
  await shot('e2e-delegation');
  await page.reload();
  await page.locator('[data-testid="queued-turn"]', { hasText: 'Thanks!' }).waitFor({ timeout: T });
  await page.locator('.deleg-card[data-status="running"]', { hasText: 'Summarise the README' }).waitFor({ timeout: T });

  await sync('release-worker');
  step('the worker finishes: result on the card, then the queued turn runs in order');
  await page.locator('.deleg-card[data-status="done"] .deleg-result', { hasText: 'the README explains the build' }).waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'You are welcome.' }).waitFor({ timeout: T });
  await page.locator('[data-testid="queued-turn"]').waitFor({ state: 'detached', timeout: T });
  const order = await page.locator('.msg').evaluateAll((els) => els.map((e) => e.textContent ?? ''));
  const iThanks = order.findIndex((t) => t.includes('Thanks!'));
  const iAnswer = order.findIndex((t) => t.includes('The worker says the README explains the build.'));
  if (iThanks < 0 || iAnswer < 0 || iThanks < iAnswer) throw new Error(`queued message out of order: ${JSON.stringify(order)}`);
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });

  step('the card opens the worker session');
  await page.locator('.deleg-card .deleg-open').click();
  await page.locator('.msg-assistant', { hasText: 'the README explains the build' }).waitFor({ timeout: T });
  await page.locator('.msg-user', { hasText: 'Summarise the README in one line' }).waitFor({ timeout: T });
  const workerId = await page.locator('.side-row.is-selected').getAttribute('data-session-id');
  if (!workerId || workerId === parentId) throw new Error('the worker session is not the selected one');
  await shot('e2e-worker');
  await page.locator(`.side-row[data-session-id="${parentId}"] .side-open`).click();
  await page.locator('.deleg-card[data-status="done"]').waitFor({ timeout: T });

  step('compact on request: indicator, then the notice with stats');
  // Set the value directly (React sees the input event): chromium's own insertText of a 280 KB multi-line
  // string into a textarea does not finish (measured: fill() > 60 s on a bare page, this path ≈ 1.3 s).
  await composer.evaluate((el, v) => {
    Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(el, v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, `Here is a long log:\n${'log line with some words in it\n'.repeat(9000)}`);
  await composer.press('Enter');
  await page.locator('.msg-assistant', { hasText: 'Noted the long log.' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });
  await page.locator('.chat-stats button', { hasText: 'Compact' }).click();
  await page.locator('[data-testid="compaction"][data-state="running"]').waitFor({ timeout: T });
  await shot('e2e-compacting');
  await sync('release-summary');
  const notice = page.locator('[data-testid="compaction"][data-state="done"]');
  await notice.waitFor({ timeout: T });
  const noticeText = await notice.innerText();
  // Everything but the last exchange (the long paste and its answer) is summarised (issue 34).
  if (!/\b[1-9]\d* messages? summarised/.test(noticeText) || !/2 kept/.test(noticeText)) throw new Error(`compaction notice: ${noticeText}`);
  await shot('e2e-compacted');

  step('export as Markdown');
  await page.locator('.chat-stats button', { hasText: 'Export' }).click();
  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: T }),
    page.locator('.menu-list [role="menuitem"]', { hasText: 'Markdown' }).click(),
  ]);
  if (!download.suggestedFilename().endsWith('.md')) throw new Error(`export file name ${download.suggestedFilename()}`);
  const md = readFileSync(await download.path(), 'utf8');
  for (const want of ['Delegate the README summary.', 'The worker says the README explains the build.', 'Thanks!', 'You are welcome.', 'Noted the long log.']) {
    if (!md.includes(want)) throw new Error(`the Markdown export lacks ${JSON.stringify(want)}`);
  }

  step('narrow window: the header title is not cut while the model chip and usage give way');
  await page.setViewportSize({ width: 900, height: 860 });
  const cut = await page.locator('.chat-title h1').evaluate((h) =>
    h.scrollWidth > h.clientWidth ? `title ${h.scrollWidth} px wide in ${h.clientWidth}; header parts ${[...document.querySelectorAll('.chat-stats > *')].map((e) => `${e.className || e.tagName} ${Math.round(e.getBoundingClientRect().width)}`).join(', ')}` : '',
  );
  await shot('e2e-narrow');
  if (cut) throw new Error(`the chat header title is truncated at 900 px: ${cut}`);
  await page.setViewportSize({ width: 1280, height: 860 });
});
