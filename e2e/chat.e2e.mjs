// End-to-end chat test in a real browser: playwright-core driving Debian's
// /usr/bin/chromium against a running headless Agent Hub whose LLM provider
// is a scripted fake (started by e2e_test.go, which also builds and launches
// the binary). Synchronises on DOM state only; where the Go side must act
// (release a stalled stream), the script prints "SYNC <name>" and waits for
// one line on stdin.
//
// Env: E2E_URL (dashboard URL with ?token=), E2E_ARTIFACTS (screenshot dir),
// E2E_FRONTEND (frontend dir whose node_modules holds playwright-core),
// E2E_CHROMIUM (default /usr/bin/chromium).

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const url = process.env.E2E_URL;
const artifacts = process.env.E2E_ARTIFACTS ?? 'artifacts';
const frontend = process.env.E2E_FRONTEND ?? path.resolve(import.meta.dirname, '../frontend');
const chromiumPath = process.env.E2E_CHROMIUM ?? '/usr/bin/chromium';
if (!url) {
  console.error('E2E_URL is required');
  process.exit(2);
}
const { chromium } = createRequire(path.join(frontend, 'package.json'))('playwright-core');

const lines = createInterface({ input: process.stdin });
const waiting = [];
lines.on('line', (l) => waiting.shift()?.(l));
/** Asks the Go side to do something and waits for its answer. */
function sync(name) {
  console.log(`SYNC ${name}`);
  return new Promise((resolve) => waiting.push(resolve));
}
const step = (name) => console.log(`STEP ${name}`);
const T = 20_000;

mkdirSync(artifacts, { recursive: true });
const profile = mkdtempSync(path.join(tmpdir(), 'agenthub-e2e-chromium-'));
// A fresh profile directory (playwright passes it as --user-data-dir).
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  viewport: { width: 1280, height: 860 },
  args: [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync',
  ],
});
let failed = false;
try {
  const page = browser.pages()[0] ?? (await browser.newPage());
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);

  step('first load');
  await page.locator('.sidebar').waitFor({ timeout: T });
  if (new URL(page.url()).searchParams.has('token')) throw new Error('the token stayed in the address bar');

  step('new session');
  await page.locator('.sidebar .btn-primary').click();
  await page.locator('.chat-title h1').waitFor({ timeout: T });
  const rows = page.locator('.side-row');
  await rows.first().waitFor({ timeout: T });

  step('send a message: tool call, then streamed text');
  const composer = page.locator('textarea[aria-label="Message"]');
  await composer.fill('Run the tool, then explain.');
  await composer.press('Enter');
  await page.locator('.msg-user', { hasText: 'Run the tool, then explain.' }).waitFor({ timeout: T });
  const tool = page.locator('.tool-card[data-status="done"]', { hasText: 'bash' });
  await tool.waitFor({ timeout: T });
  await tool.locator('.tool-output-text', { hasText: 'hello-from-tool' }).waitFor({ timeout: T });
  const streaming = page.locator('.msg-assistant', { hasText: 'Part one' });
  await streaming.waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ timeout: T });
  await page.locator('.side-row.is-selected[data-running="true"]').waitFor({ timeout: T });
  await page.screenshot({ path: path.join(artifacts, 'e2e-streaming.png') });

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
  await page.screenshot({ path: path.join(artifacts, 'e2e-finished.png') });

  step('cancel mid-stream with Esc');
  await composer.fill('Count slowly.');
  await composer.press('Enter');
  await page.locator('.msg-assistant', { hasText: 'Counting: 1 2 3' }).waitFor({ timeout: T });
  await composer.press('Escape');
  await page.locator('.msg-assistant', { hasText: 'Counting: 1 2 3' }).locator('.msg-annotation', { hasText: '(cancelled)' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });

  step('provider error is visible');
  await composer.fill('This call fails.');
  await composer.press('Enter');
  await page.locator('[data-testid="chat-error"]', { hasText: 'invalid x-api-key' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });
  await page.screenshot({ path: path.join(artifacts, 'e2e-error.png') });

  step('dark theme');
  await page.locator('.side-bottom button[aria-label^="Theme"]').click(); // system → light
  await page.locator('.side-bottom button[aria-label^="Theme"]').click(); // light → dark
  await page.locator('html[data-theme="dark"]').waitFor({ state: 'attached', timeout: T });
  await page.screenshot({ path: path.join(artifacts, 'e2e-dark.png') });

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
  await page.locator('.chat-empty').waitFor({ timeout: T });
  const parentId = await page.locator('.side-row.is-selected').getAttribute('data-session-id');
  await composer.fill('Delegate the README summary.');
  await composer.press('Enter');
  const card = page.locator('.deleg-card');
  await card.locator('.deleg-task', { hasText: 'Summarise the README in one line' }).waitFor({ timeout: T });
  await card.locator('.deleg-output', { hasText: 'Worker reading the README' }).waitFor({ timeout: T });
  if ((await card.getAttribute('data-status')) !== 'running') throw new Error('the delegation card is not running while the worker streams');

  step('queue a message while the turn runs; it survives a reload');
  await composer.fill('Thanks!');
  await composer.press('Enter');
  await page.locator('[data-testid="queued-turn"][data-confirmed="true"]', { hasText: 'Thanks!' }).waitFor({ timeout: T });
  await page.screenshot({ path: path.join(artifacts, 'e2e-delegation.png') });
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
  await page.screenshot({ path: path.join(artifacts, 'e2e-worker.png') });
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
  await page.screenshot({ path: path.join(artifacts, 'e2e-compacting.png') });
  await sync('release-summary');
  const notice = page.locator('[data-testid="compaction"][data-state="done"]');
  await notice.waitFor({ timeout: T });
  const noticeText = await notice.innerText();
  if (!/\b[1-9]\d* messages? summarised/.test(noticeText) || !/1 kept/.test(noticeText)) throw new Error(`compaction notice: ${noticeText}`);
  await page.screenshot({ path: path.join(artifacts, 'e2e-compacted.png') });

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
  const cut = await page.locator('.chat-title h1').evaluate((h) => h.scrollWidth > h.clientWidth);
  await page.screenshot({ path: path.join(artifacts, 'e2e-narrow.png') });
  if (cut) throw new Error('the chat header title is truncated at 900 px');
  await page.setViewportSize({ width: 1280, height: 860 });

  if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
  console.log('E2E OK');
} catch (err) {
  failed = true;
  console.error(`E2E FAILED: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  try {
    const pages = browser.pages();
    if (pages[0]) {
      const state = await pages[0].evaluate(() => ({
        textareas: [...document.querySelectorAll('textarea')].map((e) => ({ disabled: e.disabled, readOnly: e.readOnly, len: e.value.length })),
        title: document.querySelector('.chat-title h1')?.textContent ?? null,
      }));
      console.error(`page state: ${JSON.stringify(state)}`);
    }
    if (pages[0]) await pages[0].screenshot({ path: path.join(artifacts, 'e2e-failure.png') });
  } catch {
    // the browser is gone: nothing to capture
  }
} finally {
  await browser.close();
  lines.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
