// The daily-driver walk of issue 15 in a real browser (scenario.mjs runs it,
// TestDailyDriverInBrowser scripts the provider and runs it once per window
// width: E2E_WIDTH = 1440, 800, 420). Each step names the numbered problem
// of the issue it asserts; the layout pass at the end checks the width's
// layout and screenshots it. Below 760 px the sidebar overlays the chat, so
// the walk opens it where it needs it.

import { T, eventually, expect, runScenario } from './scenario.mjs';

const project = process.env.E2E_PROJECT;
if (!project) throw new Error('E2E_PROJECT is not set');
const width = Number(process.env.E2E_WIDTH ?? '1440');
const narrow = width <= 760;

await runScenario(`daily-${width}`, async ({ page, browser, step, sync, shot: shotAt }) => {
  await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
  await page.setViewportSize({ width, height: 900 });
  const shot = (name) => shotAt(name.replace(/^daily-/, `daily-${width}-`));
  /** Shows the sidebar (a narrow window hides it). */
  const openSidebar = async () => {
    if ((await page.locator('nav.sidebar').count()) === 0) await page.locator('.side-expand').click();
    await page.locator('nav.sidebar').waitFor({ timeout: T });
  };
  /** Closes the sidebar's overlay in a narrow window. */
  const closeOverlay = async () => {
    if (!narrow || (await page.locator('nav.sidebar').count()) === 0) return;
    await page.locator('.side-backdrop').click({ position: { x: width - 10, y: 450 } });
    await page.locator('nav.sidebar').waitFor({ state: 'detached', timeout: T });
  };
  const composer = page.locator('textarea[aria-label="Message"]');
  const send = async (text) => {
    await composer.fill(text);
    await composer.press('Enter');
  };
  const idle = () => page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });
  const rows = page.locator('.side-row');
  const settings = async () => {
    await openSidebar();
    await page.locator('.side-bottom button', { hasText: 'Settings' }).click();
  };
  const closeSettings = async () => {
    await page.locator('button[aria-label="Close settings"]').click();
    await closeOverlay();
  };
  /** Scrolls the (virtualised) message list down from the top until loc is rendered. */
  const scrollUntil = async (loc) => {
    const list = page.locator('.msg-list');
    await list.evaluate((el) => (el.scrollTop = 0));
    for (let i = 0; i < 60 && (await loc.count()) === 0; i++) {
      await list.evaluate((el) => (el.scrollTop += el.clientHeight * 0.7));
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    }
    await loc.first().waitFor({ timeout: T });
  };
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  if (narrow) await page.locator('nav.sidebar').waitFor({ state: 'detached', timeout: T });
  else await page.locator('nav.sidebar').waitFor({ timeout: T });

  step('#2 New session stores nothing until the first message; the composer has focus');
  await openSidebar();
  await page.locator('.sidebar .btn-primary').click();
  await page.locator('.new-session').waitFor({ timeout: T });
  await openSidebar();
  await page.locator('.sidebar .btn-primary').click();
  await page.waitForFunction(() => document.activeElement?.id === 'composer-input', null, { timeout: T });
  await openSidebar();
  expect((await rows.count()) === 0, 'New session stored a session before any message');
  await closeOverlay();

  step('#9 the provider banner goes away when Settings configures a key (no reload)');
  await page.locator('[data-testid="provider-warning"]').waitFor({ timeout: T });
  await settings();
  const baseSource = page.locator('[data-testid="source-anthropic_base_url"]');
  await baseSource.waitFor({ timeout: T });
  expect((await baseSource.innerText()).includes('env ANTHROPIC_BASE_URL'), `base URL source: ${await baseSource.innerText()}`);
  const key = page.locator('.settings fieldset', { hasText: 'Anthropic' }).locator('input[type="password"]');
  expect((await key.getAttribute('placeholder')) === 'not set', 'the key field does not say "not set"');
  await key.fill('test-key');
  await page.locator('.settings-footer button[type="submit"]').click();
  await page.locator('.settings-actions', { hasText: 'Saved' }).waitFor({ timeout: T });
  await page.locator('[data-testid="source-anthropic_api_key"]', { hasText: 'from settings' }).waitFor({ timeout: T });
  await shot('daily-settings-sources');
  const settingsOverflow = await page.evaluate(() =>
    [...document.querySelectorAll('.modal *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).map((e) => e.className || e.tagName),
  );
  expect(settingsOverflow.length === 0, `Settings past the right edge: ${settingsOverflow.slice(0, 5)}`);
  await closeSettings();
  await page.locator('[data-testid="provider-warning"]').waitFor({ state: 'detached', timeout: T });

  step('#8 the folder of a new session: a bad path is refused and the message kept; a good one is used');
  const folder = page.locator('.new-session input[id$="-folder"]');
  await folder.fill('/nonexistent/agenthub-e2e');
  await send('Edit the notes and count to 3000.');
  await page.locator('.notice', { hasText: 'not an existing directory' }).waitFor({ timeout: T });
  await eventually(async () => (await composer.inputValue()) === 'Edit the notes and count to 3000.', 'the refused message was lost');
  await page.locator('.notice button[aria-label="Dismiss"]').click();
  await folder.fill(project);
  await composer.press('Enter');
  await page.locator('.msg-user', { hasText: 'Edit the notes and count to 3000.' }).waitFor({ timeout: T });
  if (!narrow) await rows.first().waitFor({ timeout: T });
  await page.locator('[data-testid="folder-chip"]', { hasText: 'proj' }).waitFor({ timeout: T });
  await page.locator('[data-testid="instructions-chip"]', { hasText: 'AGENTS.md · 23 B' }).waitFor({ timeout: T }); // issue 17: the instructions in effect

  step('#5 thinking streams live with a timer, then collapses to "Thought for N s"');
  const live = page.locator('[data-testid="thinking-live"]');
  await live.locator('.msg-thinking-text', { hasText: 'Planning the edit' }).waitFor({ timeout: T });
  await live.locator('.thinking-timer').waitFor({ timeout: T });
  await shot('daily-thinking-live');
  await sync('release-thinking');
  await page.locator('[data-testid="thinking"] summary', { hasText: /^Thought for \d+ s$/ }).waitFor({ timeout: T });

  step('#3 #4 tool output once, the full output in a virtualised panel, a coloured numbered diff');
  const bash = page.locator('.tool-card[aria-label="Tool bash"][data-status="done"]');
  await bash.waitFor({ timeout: T });
  expect((await bash.locator('pre').count()) === 2, `the bash card shows ${await bash.locator('pre').count()} pre blocks (input + output expected)`);
  expect((await bash.locator('.tool-summary pre').count()) === 0, 'the summary repeats the output');
  expect(!(await bash.innerText()).includes('tool-output/'), 'the card shows a server path');
  await bash.locator('[data-testid="tool-output"]', { hasText: '3000' }).waitFor({ timeout: T });
  await bash.locator('[data-testid="full-output"]').click();
  const panel = page.locator('[data-testid="output-panel"]');
  await page.locator('[data-testid="output-matches"]', { hasText: '3,000 lines' }).waitFor({ timeout: T });
  const rendered = await panel.locator('.out-panel-line').count();
  expect(rendered > 0 && rendered < 200, `the panel rendered ${rendered} of 3000 lines`);
  await page.locator('input[aria-label="Search the output"]').fill('2999');
  await page.locator('[data-testid="output-matches"]', { hasText: '1 of 1' }).waitFor({ timeout: T });
  await panel.locator('.out-panel-line.is-hit mark', { hasText: '2999' }).waitFor({ timeout: T });
  await shot('daily-output-panel');
  await page.keyboard.press('Escape');
  await panel.waitFor({ state: 'detached', timeout: T });
  const edit = page.locator('.tool-card[aria-label="Tool edit_file"][data-status="done"]');
  await edit.locator('.diff-del .diff-text', { hasText: 'beta' }).waitFor({ timeout: T });
  await edit.locator('.diff-add .diff-text', { hasText: 'BETA' }).waitFor({ timeout: T });
  expect((await edit.locator('.diff-add .diff-no').nth(1).innerText()) === '2', 'the added line is not numbered 2');
  const colours = await edit.locator('.diff-add, .diff-del').evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor));
  expect(colours.every((c) => c !== 'rgba(0, 0, 0, 0)') && new Set(colours).size === 2, `diff colours ${colours}`);
  const sizes = await page.locator('.tool-card pre, .tool-card .diff-lines').evaluateAll((els) => [...new Set(els.map((e) => getComputedStyle(e).fontSize))]);
  expect(sizes.length === 1, `tool cards use ${sizes.length} monospace sizes: ${sizes}`);

  step('#7 Markdown: task boxes, aligned table, quote, code header with language and Copy');
  const answer = page.locator('.msg-assistant', { hasText: 'zebrafish' });
  await answer.waitFor({ timeout: T });
  expect((await answer.locator('.md-check').count()) === 2, 'task list boxes missing');
  expect((await answer.locator('th[align="center"]').count()) === 1 && (await answer.locator('td[align="right"]').count()) === 1, 'table alignment dropped');
  expect((await answer.locator('blockquote').evaluate((b) => getComputedStyle(b).borderLeftStyle)) === 'solid', 'the quote is unstyled');
  await answer.locator('.md-code-head .md-lang', { hasText: 'go' }).waitFor({ timeout: T });
  const [copyBox, preBox] = [await answer.locator('.md-copy').boundingBox(), await answer.locator('.md-code pre').boundingBox()];
  expect(copyBox && preBox && copyBox.y + copyBox.height <= preBox.y + 1, 'the Copy button covers the code');

  step('#2 the session is titled after its first turn');
  await page.locator('.chat-title h1', { hasText: 'Scripted session title' }).waitFor({ timeout: T });
  await idle();

  step('#8 copy a message as Markdown');
  await answer.locator('[data-testid="copy-message"]').click();
  await answer.locator('[data-testid="copy-message"]', { hasText: 'Copied' }).waitFor({ timeout: T });
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied.includes('zebrafish') && copied.includes('- [x] edit the notes'), `clipboard: ${copied.slice(0, 80)}`);

  step('#1 retried attempts read as one answer');
  await send('Try again please.');
  await page.locator('.msg-assistant', { hasText: 'The retried answer.' }).waitFor({ timeout: T });
  await idle();
  expect((await page.locator('.msg-assistant', { hasText: 'Partial answer' }).count()) === 0, 'the partial answers of failed attempts still show');
  const retriedNote = page.locator('.msg-assistant', { hasText: 'The retried answer.' }).locator('[data-testid="msg-retries"]');
  await retriedNote.filter({ hasText: 'retried 2× (overloaded)' }).waitFor({ timeout: T });

  step('#1 a failed turn stays visible after a reload, with Retry');
  await send('Now fail.');
  const failed = page.locator('.msg-user', { hasText: 'Now fail.' }).locator('[data-testid="turn-outcome"][data-status="failed"]');
  await failed.waitFor({ timeout: T });
  await idle();
  await page.reload();
  await failed.locator('text=invalid x-api-key').waitFor({ timeout: T });
  await retriedNote.filter({ hasText: 'retried 2× (overloaded)' }).waitFor({ timeout: T }); // the history says so too
  expect((await page.locator('.msg-assistant', { hasText: 'Partial answer' }).count()) === 0, 'a partial answer shows after the reload');
  await shot('daily-failed-turn');
  await failed.locator('button', { hasText: 'Retry' }).click();
  await page.locator('.msg-assistant', { hasText: 'Retried after the failure.' }).waitFor({ timeout: T });
  await idle();
  await page.locator('.msg-user', { hasText: 'Now fail.' }).locator('[data-testid="branch-nav"]', { hasText: '2/2' }).waitFor({ timeout: T });
  expect((await page.locator('.msg-user', { hasText: 'Now fail.' }).count()) === 1, 'Retry added a second copy of the question');

  step('#12 the composer grows with its content, up to half the window');
  const h0 = await composer.evaluate((e) => e.getBoundingClientRect().height);
  await composer.fill(Array.from({ length: 20 }, (_, i) => `pasted line ${i + 1}`).join('\n'));
  const height = () => composer.evaluate((e) => e.getBoundingClientRect().height);
  await eventually(async () => (await height()) > h0 * 3, `the composer did not grow from ${h0} px`);
  const h1 = await height();
  expect(h1 <= 900 / 2 + 1, `the composer grew to ${h1} px, over half the window`);
  await shot('daily-composer');

  step('#13 a turn that ends while the page is hidden badges the title');
  await page.evaluate(() => Object.defineProperty(document, 'hidden', { configurable: true, get: () => true }));
  await composer.fill(Array.from({ length: 30 }, (_, i) => `long message line ${i + 1}`).join('\n'));
  await composer.press('Enter');
  await page.locator('.msg-assistant', { hasText: 'Noted.' }).waitFor({ timeout: T });
  await page.waitForFunction(() => document.title.startsWith('✓ Turn finished'), null, { timeout: T });
  await page.evaluate(() => {
    delete document.hidden;
    document.dispatchEvent(new Event('visibilitychange'));
  });
  await page.waitForFunction(() => !document.title.startsWith('✓'), null, { timeout: T });

  step('#12 a long user message is collapsed behind "Show more"');
  const long = page.locator('.msg-user', { hasText: 'long message line 1' });
  await long.locator('.msg-user-wrap.is-collapsed').waitFor({ timeout: T });
  await long.locator('.msg-more', { hasText: 'Show more' }).click();
  await long.locator('.msg-user-wrap:not(.is-collapsed)').waitFor({ timeout: T });

  step('#2 full-text search: Ctrl+K, highlighted hits, a hit jumps to its message');
  await page.locator('.chat-title h1').click();
  await page.keyboard.press('Control+k');
  const search = page.locator('input[aria-label="Search sessions and messages"]');
  await eventually(() => search.evaluate((e) => e === document.activeElement), 'Ctrl+K did not focus the search');
  await search.fill('zebrafish');
  const hit = page.locator('[data-testid="search-hit"]').first();
  await hit.locator('mark', { hasText: 'zebrafish' }).waitFor({ timeout: T });
  await shot('daily-search');
  await page.locator('.msg-list').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await hit.click();
  await page.locator('.msg.is-focused', { hasText: 'zebrafish' }).waitFor({ timeout: T });
  if (narrow) await page.locator('nav.sidebar').waitFor({ state: 'detached', timeout: T }); // the overlay closed on the pick
  else await search.fill('');

  step('#10 delegation: live worker status, a link both ways, Stop reads "Cancelled"');
  await send('Delegate the count.');
  const card = page.locator('.deleg-card');
  await card.locator('[data-testid="delegation-status"]', { hasText: 'Worker is writing its answer' }).waitFor({ timeout: T });
  await card.locator('.deleg-open').click();
  const parentLink = page.locator('[data-testid="parent-link"]', { hasText: 'Scripted session title' });
  await parentLink.waitFor({ timeout: T });
  await shot('daily-worker');
  await parentLink.click();
  await page.locator('.deleg-card[data-status="running"]').waitFor({ timeout: T });
  await page.locator('.composer-stop').click();
  await page.locator('.deleg-card[data-status="cancelled"] [data-testid="delegation-status"]', { hasText: 'Cancelled' }).waitFor({ timeout: T });
  await idle();
  expect(!(await page.locator('.chat').innerText()).includes('cancelled_by_user'), 'the card says cancelled_by_user');
  await page.locator('.side-row[data-running="true"]').waitFor({ state: 'detached', timeout: T });
  expect((await page.locator('.deleg-card .deleg-result').count()) === 0, 'a cancelled worker shows a result');

  step('#8 change the model between turns; #9 an unknown price shows "—"');
  await page.locator('[data-testid="model-chip"]').click();
  await page.locator('.chat-options-pop input[id$="-model"]').fill('anthropic:claude-unknown-9');
  await page.locator('.chat-options-pop button[type="submit"]').click();
  await page.locator('[data-testid="model-chip"]', { hasText: 'anthropic:claude-unknown-9' }).waitFor({ timeout: T });
  await send('Price check.');
  const priced = page.locator('.msg-assistant', { hasText: 'Priced unknown.' });
  await priced.locator('.msg-usage').waitFor({ timeout: T });
  expect((await priced.locator('.msg-usage').innerText()).endsWith('—'), `usage line: ${await priced.locator('.msg-usage').innerText()}`);
  await idle();
  await settings();
  const prices = page.locator('[data-testid="prices"]');
  await prices.locator('input[aria-label="Model"]').fill('anthropic:claude-unknown-9');
  await prices.locator('input[aria-label="Input price"]').fill('3');
  await prices.locator('input[aria-label="Output price"]').fill('15');
  await prices.locator('button', { hasText: 'Set price' }).click();
  await prices.locator('.rule[data-pending="added"] code', { hasText: 'claude-unknown-9' }).waitFor({ timeout: T });
  await page.locator('.settings-footer button[type="submit"]').click(); // issue 34 #18: one Save for the dialog
  await prices.locator('.rule:not([data-pending]) code', { hasText: 'claude-unknown-9' }).waitFor({ timeout: T });
  await closeSettings();

  step('issue 34 #6: Compact summarises everything but the last exchange, however little context is used');
  await page.locator('.chat-stats button', { hasText: 'Compact' }).click();
  await page.locator('[data-testid="compaction"][data-state="done"]').waitFor({ timeout: T });

  step('issue 17: @ completes the folder\'s paths; the mentioned file is attached');
  await composer.fill('Summarise @not');
  const option = page.locator('#mention-list [role="option"]', { hasText: 'notes.txt' });
  await option.waitFor({ timeout: T });
  await composer.press('Enter');
  await eventually(async () => (await composer.inputValue()) === 'Summarise @notes.txt ', 'Enter did not insert the completion');
  await composer.press('Enter');
  const mentioned = page.locator('.msg-user', { hasText: 'Summarise @notes.txt' });
  await mentioned.locator('[data-testid="attached-file"]', { hasText: 'notes.txt · 17 B' }).waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'Read the notes.' }).waitFor({ timeout: T });
  await idle();

  step('#11 keyboard: skip link, help dialog, one Tab stop per list, arrows, SVG icons');
  await page.locator('.chat-title h1').click();
  await page.keyboard.press('?');
  await page.locator('.help-dialog', { hasText: 'Ctrl+K' }).waitFor({ timeout: T });
  await shot('daily-help');
  await page.keyboard.press('Escape');
  await page.locator('.help-dialog').waitFor({ state: 'detached', timeout: T });
  await openSidebar();
  expect((await page.locator('.side-open[tabindex="0"]').count()) === 1, 'the sessions list has more than one Tab stop');
  expect((await rows.count()) >= 2, 'the worker session is not listed');
  await page.locator('.side-open[tabindex="0"]').focus();
  const before = await page.evaluate(() => document.activeElement?.closest('.side-row')?.getAttribute('data-session-id'));
  await page.keyboard.press('ArrowDown');
  const afterDown = await page.evaluate(() => document.activeElement?.closest('.side-row')?.getAttribute('data-session-id'));
  expect(before && afterDown && before !== afterDown, 'ArrowDown did not move to the next session');
  expect((await page.locator('.side-actions svg').count()) > 0 && !(await page.locator('.sidebar').innerText()).includes('🗑'), 'icons are emoji');
  await closeOverlay();
  const first = await page.evaluate(() => {
    const el = [...document.querySelectorAll('a[href], button, input, textarea, select, [tabindex]')].find((e) => e.tabIndex >= 0 && !e.disabled);
    return el?.className ?? '';
  });
  expect(first === 'skip-link', `the first Tab stop is ${first}, not the skip link`);
  await page.locator('.skip-link').focus();
  expect((await page.locator('.skip-link').boundingBox()).y >= 0, 'the focused skip link is off screen');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement?.id === 'composer-input', null, { timeout: T }); // the skip link reaches the composer

  step('#6 the sidebar toggles (Ctrl+B, the button) and a narrow window overlays it');
  await page.locator('.msg-list').click({ position: { x: 5, y: 5 } });
  if (narrow) {
    await page.keyboard.press('Control+b');
    await page.locator('nav.sidebar').waitFor({ timeout: T });
    await shot('daily-sidebar');
    await rows.first().locator('.side-open').click(); // a pick closes the overlay
    await page.locator('nav.sidebar').waitFor({ state: 'detached', timeout: T });
  } else {
    await page.keyboard.press('Control+b');
    await page.locator('nav.sidebar').waitFor({ state: 'detached', timeout: T });
    await page.locator('.side-expand').click();
    await page.locator('nav.sidebar').waitFor({ timeout: T });
  }

  {
    step(`#6 layout at ${width} px: nothing clipped, each state still shown`);
    await page.locator('.chat-title h1', { hasText: 'Scripted session title' }).waitFor({ timeout: T });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow <= 0, `the page scrolls sideways by ${overflow} px at ${width} px`);
    const clipped = await page.locator('.chat-title h1, [data-testid="model-chip"]').evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent));
    expect(clipped.length === 0, `clipped at ${width} px: ${clipped}`);
    const outside = await page.evaluate(() =>
      [...document.querySelectorAll('.chat-head *, .composer *, .msg-list .msg > *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).map((e) => e.className || e.tagName),
    );
    expect(outside.length === 0, `past the right edge at ${width} px: ${outside.slice(0, 5)}`);
    if (!narrow) {
      const sideOut = await page.evaluate(() => {
        const edge = document.querySelector('nav.sidebar').getBoundingClientRect().right;
        return [...document.querySelectorAll('nav.sidebar *')].filter((e) => e.getBoundingClientRect().right > edge + 1).map((e) => e.className || e.tagName);
      });
      expect(sideOut.length === 0, `past the sidebar's edge at ${width} px: ${sideOut.slice(0, 5)}`);
    }
    await page.locator('.msg-list').evaluate((el) => (el.scrollTop = 0));
    await page.locator('.tool-card[aria-label="Tool edit_file"] .diff-add').waitFor({ timeout: T });
    await page.locator('[data-testid="thinking"]').first().waitFor({ timeout: T });
    await shotAt(`daily-${width}-top`);
    // The retried turn (issue 34): one question, its versions ‹ 2/2 ›.
    const versions = page.locator('.msg-user', { hasText: 'Now fail.' }).locator('[data-testid="branch-nav"]');
    await scrollUntil(versions);
    await versions.scrollIntoViewIfNeeded();
    await shotAt(`daily-${width}-failed`);
    await page.locator('.msg-list').evaluate((el) => (el.scrollTop = el.scrollHeight));
    await page.locator('.deleg-card[data-status="cancelled"]').waitFor({ timeout: T });
    await shotAt(`daily-${width}-bottom`);
  }
});
