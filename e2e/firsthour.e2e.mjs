// Issue 34, "the first hour of a person who double-clicked it", in a real
// browser: one row per run (E2E_ROW; firsthour_test.go scripts the provider
// and starts a fresh headless binary for each), driven by real clicks and
// key presses, synchronised on the DOM only. Rows 1, 2, 4, 5 and 10 save their
// screenshots as artifacts/firsthour-row-NN*.png (row 10 also row 18's
// firsthour-row-18-one-save.png).

import { T, eventually, expect, runScenario } from './scenario.mjs';

const row = Number(process.env.E2E_ROW);
const project = process.env.E2E_PROJECT;
if (!row || !project) throw new Error('E2E_ROW and E2E_PROJECT are required');

/**
 * Row 18: one save model in Settings. An MCP server and a price added in the
 * dialog are staged, marked "not saved yet" (nothing saved: closing asks);
 * the one Save at the bottom saves them with the rest, and the server then
 * shows its live state.
 */
async function oneSaveModel(page, shot) {
  const command = process.env.E2E_MCP_COMMAND;
  expect(command, 'E2E_MCP_COMMAND is not set');
  const block = page.locator('[data-testid="mcp-servers"]');
  await block.locator('input[aria-label="Server name"]').fill('t');
  await block.locator('input[aria-label="Command"]').fill(command);
  await block.locator('textarea[aria-label="Environment"]').fill('AGENTHUB_MCPTEST=stdio');
  await block.locator('button', { hasText: 'Add server' }).click();
  const prices = page.locator('[data-testid="prices"]');
  await prices.locator('input[aria-label="Model"]').fill('ollama:llama3.1');
  await prices.locator('input[aria-label="Input price"]').fill('0.5');
  await prices.locator('input[aria-label="Output price"]').fill('1');
  await prices.locator('button', { hasText: 'Set price' }).click();
  const server = block.locator('.mcp-server[data-server="t"]');
  const price = prices.locator('.rule[data-price="llama3.1"]');
  await server.locator('[data-testid="pending"]', { hasText: 'not saved yet' }).waitFor({ timeout: T });
  await price.locator('[data-testid="pending"]', { hasText: 'not saved yet' }).waitFor({ timeout: T });
  expect((await server.getAttribute('data-status')) === 'unsaved', `the staged server is ${await server.getAttribute('data-status')}, not unsaved`);
  // Closing now would lose them: it asks instead (Esc, a real key), and Keep editing keeps them.
  await page.keyboard.press('Escape');
  const ask = page.locator('[data-testid="unsaved-confirm"]');
  await ask.waitFor({ timeout: T });
  await ask.locator('button', { hasText: 'Keep editing' }).click();
  await ask.waitFor({ state: 'detached', timeout: T });
  await shot('firsthour-row-18-one-save');
  await page.locator('.settings-footer button', { hasText: 'Save' }).click();
  await page.locator('.settings-footer', { hasText: 'Saved.' }).waitFor({ timeout: T });
  await block.locator('.mcp-server[data-server="t"][data-status="ready"]:not([data-pending])').waitFor({ timeout: T });
  await server.locator('.mcp-state', { hasText: 'ready · 8 tools' }).waitFor({ timeout: T });
  await prices.locator('.rule[data-price="llama3.1"]:not([data-pending])').waitFor({ timeout: T });
  expect((await page.locator('.modal [data-testid="pending"]').count()) === 0, 'something is still marked not saved after Save');
}

const rows = {
  /**
   * A prompt that appears while the composer has focus takes y / a / n (the
   * composer is empty: nothing is typed into it), never from a user who is
   * writing; its card says what the call wants to do until it runs (row 12).
   */
  async 1({ page, send, shot, composer }) {
    await send('List the files.');
    const card = page.locator('.tool-card[data-approval="pending"]');
    await card.waitFor({ timeout: T });
    const head = await card.locator('.tool-status-text').innerText();
    expect(head === 'Wants to run: git status && ls -la', `the waiting card's header says ${JSON.stringify(head)}`);
    expect(await composer.evaluate((el) => el === document.activeElement), 'the composer does not have the focus after sending');
    await shot('firsthour-row-01-approval-keys');
    await page.keyboard.press('y');
    await page.locator('.msg-assistant', { hasText: 'Listed.' }).waitFor({ timeout: T });
    expect((await composer.inputValue()) === '', `the y went into the composer: ${JSON.stringify(await composer.inputValue())}`);
    expect((await page.locator('.tool-card[data-approval="once"]').count()) === 1, 'the y did not approve the call');

    // A user who is writing keeps their keys: the y is text, the prompt waits.
    await send('Again.');
    const second = page.locator('.tool-card[data-approval="pending"]');
    await second.waitFor({ timeout: T });
    await composer.focus();
    await page.keyboard.type('hello y');
    expect((await composer.inputValue()) === 'hello y', `typing while a prompt waits gave ${JSON.stringify(await composer.inputValue())}`);
    expect((await second.count()) === 1, 'typing answered the prompt');
    await second.locator('button', { hasText: 'Approve once' }).click();
    await page.locator('.msg-assistant', { hasText: 'Listed again.' }).waitFor({ timeout: T });
    expect((await composer.inputValue()) === 'hello y', 'the draft was lost');
  },

  /** Full output: a modal over the whole window, unclipped, with a backdrop. */
  async 2({ page, send, shot }) {
    await send('Count to 400.');
    const card = page.locator('.tool-card[aria-label="Tool bash"][data-status="done"]');
    await card.locator('[data-testid="full-output"]').click();
    const dialog = page.locator('.out-panel[role="dialog"]');
    await page.locator('[data-testid="output-matches"]', { hasText: '400 lines' }).waitFor({ timeout: T });
    const view = page.viewportSize();
    const backdrop = await page.locator('.modal-backdrop').boundingBox();
    expect(backdrop && backdrop.x === 0 && backdrop.y === 0 && backdrop.width === view.width && backdrop.height === view.height, `the backdrop covers ${JSON.stringify(backdrop)}, not the window`);
    const box = await dialog.boundingBox();
    expect(box.y >= 0 && box.y + box.height <= view.height, `the panel is cut off: ${JSON.stringify(box)}`);
    // Nothing of the transcript covers it: its title and its last line are on top where they are drawn.
    const onTop = await page.evaluate(() => {
      const hit = (el) => {
        const r = el.getBoundingClientRect();
        return document.elementFromPoint(r.left + 5, r.top + r.height / 2)?.closest('.out-panel') !== null;
      };
      return hit(document.querySelector('.out-panel h2')) && hit(document.querySelector('.out-panel-scroll'));
    });
    expect(onTop, 'the panel is drawn under the transcript');
    await shot('firsthour-row-02-full-output');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', timeout: T });
  },

  /** An MCP call: its arguments while it runs, progress apart; its result once. */
  async 3({ page, send }) {
    await send('Use the slow MCP tool.');
    const slow = page.locator('.tool-card[aria-label="Tool t__slow"]');
    await slow.locator('.tool-progress', { hasText: 'step' }).waitFor({ timeout: T });
    expect((await slow.getAttribute('data-status')) === 'running', 'the slow call finished before its progress was seen');
    expect((await slow.locator('.tool-summary').innerText()).includes('"steps": 60'), 'the running call does not show its arguments');
    expect(!(await slow.locator('.tool-summary').innerText()).includes('step 1'), 'progress is mixed into the arguments');
    await page.locator('.tool-card[aria-label="Tool t__slow"][data-status="done"]').waitFor({ timeout: T });
    expect((await slow.innerText()).split('done after 60 steps').length === 2, 'the slow result shows more than once');
    await page.locator('.msg-assistant', { hasText: 'Slow done.' }).waitFor({ timeout: T });
    await send('Now the fast one.');
    const fast = page.locator('.tool-card[aria-label="Tool t__fast"][data-status="done"]');
    await fast.waitFor({ timeout: T });
    expect((await fast.innerText()).split('echo: one result line').length === 2, `the fast result shows more than once: ${await fast.innerText()}`);
  },

  /** Retry of a failed turn: a new version of that turn, in place (‹ 2/2 ›), not a second question. */
  async 4({ page, send, idle, shot }) {
    await send('Please answer this.');
    const question = page.locator('.msg-user', { hasText: 'Please answer this.' });
    const failed = question.locator('[data-testid="turn-outcome"][data-status="failed"]');
    await failed.waitFor({ timeout: T });
    await idle();
    await failed.locator('button', { hasText: 'Retry' }).click();
    await page.locator('.msg-assistant', { hasText: 'Answered after the retry.' }).waitFor({ timeout: T });
    await idle();
    await question.locator('[data-testid="branch-nav"]', { hasText: '2/2' }).waitFor({ timeout: T });
    expect((await question.count()) === 1, `${await question.count()} copies of the question after Retry`);
    expect((await page.locator('[data-testid="turn-outcome"][data-status="failed"]').count()) === 0, 'the failed version still shows in the current one');
    await shot('firsthour-row-04-retry-in-place');
    await question.locator('button[aria-label="Previous branch"]').click();
    await page.locator('.msg-user [data-testid="turn-outcome"][data-status="failed"]').waitFor({ timeout: T }); // the failed version, one click away
  },

  /** An edit's approval diff: the file's own line numbers and three lines around it. */
  async 5({ page, send, shot }) {
    await send('Rename line 6.');
    const prompt = page.locator('.tool-card[data-approval="pending"] .approval-prompt');
    await prompt.waitFor({ timeout: T });
    const diff = prompt.locator('figure.diff');
    await diff.locator('.diff-del .diff-text', { hasText: 'line 6' }).waitFor({ timeout: T });
    const rowsShown = await diff.locator('.diff-line').evaluateAll((els) =>
      els.map((e) => [e.classList.contains('diff-del') ? '-' : e.classList.contains('diff-add') ? '+' : ' ', ...[...e.querySelectorAll('.diff-no')].map((n) => n.textContent), e.querySelector('.diff-text').textContent]),
    );
    const want = [
      [' ', '3', '3', 'line 3'], [' ', '4', '4', 'line 4'], [' ', '5', '5', 'line 5'],
      ['-', '6', '', 'line 6'], ['+', '', '6', 'line six'],
      [' ', '7', '7', 'line 7'], [' ', '8', '8', 'line 8'], [' ', '9', '9', 'line 9'],
    ];
    expect(JSON.stringify(rowsShown) === JSON.stringify(want), `the prompt's diff: ${JSON.stringify(rowsShown)}`);
    await shot('firsthour-row-05-edit-approval');
    await prompt.locator('button', { hasText: 'Approve once' }).click();
    await page.locator('.msg-assistant', { hasText: 'Edited.' }).waitFor({ timeout: T });
  },

  /** Compact on request: everything but the last exchange, however little context is used. */
  async 6({ page, send, idle }) {
    await send('First question.');
    await page.locator('.msg-assistant', { hasText: 'First answer.' }).waitFor({ timeout: T });
    await idle();
    await send('Second question.');
    await page.locator('.msg-assistant', { hasText: 'Second answer.' }).waitFor({ timeout: T });
    await idle();
    await page.locator('.chat-stats button', { hasText: 'Compact' }).click();
    const done = page.locator('[data-testid="compaction"][data-state="done"]');
    await done.waitFor({ timeout: T });
    const text = await done.innerText();
    expect(/2 messages? summarised/.test(text) && /2 kept/.test(text), `compaction: ${text}`);
  },

  /** Ctrl+K: focus at once (also right after New session), the old query selected. */
  async 7({ page, composer }) {
    await page.locator('.sidebar .btn-primary').click(); // New session (the composer takes the focus)
    await page.keyboard.press('Control+k');
    await page.keyboard.type('zebra');
    const search = page.locator('input[aria-label="Search sessions and messages"]');
    expect((await search.inputValue()) === 'zebra', `the search field has "${await search.inputValue()}"`);
    expect((await composer.inputValue()) === '', `the first keys went to the message box: "${await composer.inputValue()}"`);
    await composer.click();
    await page.keyboard.press('Control+k');
    await page.keyboard.type('quail');
    expect((await search.inputValue()) === 'quail', `Ctrl+K did not select the old query: "${await search.inputValue()}"`);
  },

  /** A search hit in a tool's output opens the card's output at the matched line. */
  async 8({ page, send, idle }) {
    await send('List the rows.');
    await page.locator('.msg-assistant', { hasText: 'Listed the rows.' }).waitFor({ timeout: T });
    await idle();
    await page.locator('.sidebar .btn-primary').click(); // away from the session
    await page.keyboard.press('Control+k');
    await page.keyboard.type('row-377');
    // The only message with both words is the tool's output (its snippet starts at its first "row").
    const hit = page.locator('[data-testid="search-hit"]');
    await hit.first().waitFor({ timeout: T });
    expect((await hit.count()) === 1, `${await hit.count()} hits`);
    await hit.click();
    const panel = page.locator('.out-panel[role="dialog"]');
    await panel.waitFor({ timeout: T });
    await panel.locator('.out-panel-line.is-hit', { hasText: 'row-377' }).waitFor({ timeout: T });
    expect((await panel.locator('.out-panel-line.is-hit .out-panel-no').innerText()) === '377', 'the matched line is not 377');
  },

  /** A mistyped model: said on the Model field in plain words, gone when fixed, no banner. */
  async 9({ page, composer }) {
    await page.locator('.sidebar .btn-primary').click();
    const model = page.locator('.new-session input[id$="-model"]');
    await model.fill('opnai:gpt-4.1');
    const error = page.locator('[data-testid="model-error"]');
    await error.waitFor({ timeout: T });
    expect((await error.innerText()).includes('“opnai” is not a provider'), `the field says: ${await error.innerText()}`);
    await composer.fill('Hello with a typo.');
    await composer.press('Enter');
    expect((await composer.inputValue()) === 'Hello with a typo.', 'the message was lost');
    expect((await page.locator('.notice').count()) === 0, 'a banner repeats the field error');
    expect((await page.locator('.msg-user').count()) === 0, 'a session was started with the mistyped model');
    await model.fill('anthropic:claude-sonnet-4-6');
    await error.waitFor({ state: 'detached', timeout: T });
    await composer.press('Enter');
    await page.locator('.msg-assistant', { hasText: 'Right model.' }).waitFor({ timeout: T });
    expect((await page.locator('.notice').count()) === 0, 'a banner stayed');
  },

  /** First launch without a provider: Settings first, Test connection, the default model named, configured models only; row 18: the key store in words, Save at the bottom, one save model. */
  async 10({ page, shot }) {
    const primary = page.locator('.welcome-actions .btn-primary');
    expect((await primary.innerText()) === 'Open Settings', `the first step offered is "${await primary.innerText()}"`);
    expect(!(await page.locator('.welcome').innerText()).includes('ANTHROPIC_API_KEY'), 'the first step asks for an environment variable');
    await shot('firsthour-row-10-first-launch');
    await primary.click();
    const key = page.locator('.settings fieldset', { hasText: 'Anthropic' }).locator('input[type="password"]');
    await key.fill('test-key');
    await page.locator('[data-testid="test-anthropic"]').click();
    const result = page.locator('[data-testid="test-anthropic-result"][data-ok="true"]');
    await result.waitFor({ timeout: T });
    expect((await result.innerText()).includes('anthropic:claude-sonnet-4-6'), `test result: ${await result.innerText()}`);
    // Row 18: no keyring here: a plain sentence and the 0600 file.
    const keys = await page.locator('[data-testid="keys-line"]').innerText();
    expect(keys.includes('0600') && keys.includes('no system keyring') && !/dbus|exec:/i.test(keys), `keys line: ${keys}`);
    // Row 18: Save is the dialog's last control, below every section.
    const save = await page.locator('.settings-footer button', { hasText: 'Save' }).boundingBox();
    const prices = await page.locator('fieldset.settings-mcp', { hasText: 'Prices' }).boundingBox();
    expect(save && prices && save.y >= prices.y + prices.height - 1, 'Save is not at the bottom of Settings');
    await shot('firsthour-row-10-settings-tested');
    await oneSaveModel(page, shot);
    await page.locator('button[aria-label="Close settings"]').click();
    await page.locator('[data-testid="default-model"]', { hasText: 'anthropic:claude-sonnet-4-6' }).waitFor({ timeout: T });
    expect(!(await page.locator('.welcome').innerText()).includes('not set'), 'home says the default model is not set');
    await page.locator('.welcome-actions .btn-primary', { hasText: 'New session' }).click();
    const offered = await page.locator('.new-session datalist option').evaluateAll((os) => os.map((o) => o.value));
    expect(offered.length > 0 && offered.every((v) => v.startsWith('anthropic:')), `the picker offers ${offered.join(', ')}`);
    // Row 18: what Save saved is what getSettings answers when Settings opens again.
    await page.locator('.side-bottom button', { hasText: 'Settings' }).click();
    await page.locator('[data-testid="mcp-servers"] .mcp-server[data-server="t"]:not([data-pending])').waitFor({ timeout: T });
    await page.locator('[data-testid="prices"] .rule[data-price="llama3.1"]:not([data-pending])', { hasText: 'in $0.5 · out $1' }).waitFor({ timeout: T });
    expect((await page.locator('.modal [data-testid="pending"]').count()) === 0, 'Settings reopened with changes marked not saved');
  },

  /**
   * One binding for a new session: the ? sheet names it (the desktop menu's
   * is the same, app/window TestNewSessionShortcutMatchesThePage), and
   * pressing what it names opens a new session from inside a session.
   */
  async 16({ page, send, idle, composer }) {
    await send('Hello.');
    await page.locator('.msg-assistant', { hasText: 'First session.' }).waitFor({ timeout: T });
    await idle();
    await page.locator('.chat-title h1').click(); // out of the message box: ? is text there
    await page.keyboard.press('?');
    const sheet = page.locator('.help-dialog');
    await sheet.waitFor({ timeout: T });
    const binding = (await sheet.locator('tr', { has: page.locator('td', { hasText: /^New session$/ }) }).locator('kbd').innerText()).trim();
    expect(binding === 'Ctrl+Alt+N', `the ? sheet says New session is ${JSON.stringify(binding)}`);
    await page.keyboard.press('Escape');
    await sheet.waitFor({ state: 'detached', timeout: T });
    const rowsBefore = await page.locator('.side-row').count();
    expect(rowsBefore === 1 && (await page.locator('.new-session').count()) === 0, `before the keys: ${rowsBefore} sessions, new-session view shown`);
    await composer.click(); // it works from the message box too (what people are typing in)
    await page.keyboard.press(binding.replace('Ctrl', 'Control').replace(/\+([A-Z])$/, (_, k) => `+${k.toLowerCase()}`));
    await page.locator('.new-session').waitFor({ timeout: T });
    await eventually(() => page.evaluate(() => document.activeElement?.id === 'composer-input'), 'the new session\'s message box does not have the focus');
    await page.keyboard.type('Second.');
    await page.keyboard.press('Enter');
    await page.locator('.msg-assistant', { hasText: 'Second session.' }).waitFor({ timeout: T });
    await eventually(async () => (await page.locator('.side-row').count()) === rowsBefore + 1, 'the keys did not open a new session');
  },

  /** @ completes in a new session's first message, the list at the @. */
  async 11({ page, composer }) {
    await page.locator('.sidebar .btn-primary').click();
    await composer.click();
    await page.keyboard.type('Please read the file @not');
    const list = page.locator('#mention-list');
    await list.locator('[role="option"]', { hasText: 'notes.txt' }).waitFor({ timeout: T });
    const [lb, ta] = [await list.boundingBox(), await composer.boundingBox()];
    expect(lb.x > ta.x + 60 && lb.x + lb.width <= page.viewportSize().width, `the list is not at the @: list ${JSON.stringify(lb)}, box ${JSON.stringify(ta)}`);
    await page.keyboard.press('Enter');
    await eventually(async () => (await composer.inputValue()) === 'Please read the file @notes.txt ', 'Enter did not complete the path');
    await page.keyboard.press('Enter');
    await page.locator('.msg-user [data-testid="attached-file"]', { hasText: 'notes.txt' }).waitFor({ timeout: T });
  },

  /** A failure shows once, inline under its question. */
  async 14({ page, send, idle }) {
    await send('This will fail.');
    await page.locator('.msg-user [data-testid="turn-outcome"][data-status="failed"]').waitFor({ timeout: T });
    await idle();
    expect((await page.locator('[data-testid="chat-error"]').count()) === 0, 'a banner repeats the inline failure');
  },

  /** Who approved stays on the card after a reload. */
  async 15({ page, send, idle }) {
    await send('Run something.');
    const prompt = page.locator('.tool-card[data-approval="pending"] .approval-prompt');
    await prompt.locator('button', { hasText: 'Approve once' }).click();
    await page.locator('.msg-assistant', { hasText: 'Ran it.' }).waitFor({ timeout: T });
    await idle();
    await page.locator('.approval-outcome', { hasText: 'approved by dashboard' }).waitFor({ timeout: T });
    await page.reload();
    await page.locator('.tool-card[aria-label="Tool bash"] .approval-outcome', { hasText: 'approved by dashboard' }).waitFor({ timeout: T });
  },

  /** A reply cut short: its output estimated (marked); a fork's export says "—" as the window does. */
  async 19({ page, send, idle, composer }) {
    await send('Short one.');
    const short = page.locator('.msg-assistant', { hasText: 'A short answer.' });
    await short.waitFor({ timeout: T });
    await idle();
    await send('Long one.');
    await page.locator('.msg-assistant', { hasText: 'streamed words of a reply' }).waitFor({ timeout: T });
    await page.locator('.composer-stop').click();
    await idle();
    const usage = page.locator('.msg-assistant', { hasText: 'streamed words' }).locator('.msg-usage[data-estimated="true"]');
    await usage.waitFor({ timeout: T });
    expect(/~\d{2,} out/.test(await usage.innerText()), `usage of the cut reply: ${await usage.innerText()}`);
    await short.locator('[data-testid="fork"]').click();
    await page.locator('.chat-title h1', { hasText: 'Fork of' }).waitFor({ timeout: T });
    await page.locator('.chat-stats button', { hasText: 'Export' }).click();
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: T }), page.locator('.menu-list [role="menuitem"]', { hasText: 'Markdown' }).click()]);
    const chunks = [];
    for await (const c of await download.createReadStream()) chunks.push(c);
    const md = Buffer.concat(chunks).toString('utf8');
    expect(md.includes('- Turns: —') && md.includes('- Cost: —'), `the fork's export header: ${md.split('\n').slice(0, 8).join(' | ')}`);
    void composer;
  },
};

await runScenario(`firsthour-row-${String(row).padStart(2, '0')}`, async ({ page, step, sync, shot }) => {
  const body = rows[row];
  if (!body) throw new Error(`no scenario for row ${row}`);
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  const composer = page.locator('textarea[aria-label="Message"]');
  const idle = () => page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });
  /** Sends text: from the new-session view (the first message makes the session) or the open session. */
  const send = async (text) => {
    if ((await composer.count()) === 0) await page.locator('.sidebar .btn-primary').click();
    await composer.fill(text);
    await composer.press('Enter');
    await page.locator('.msg-user', { hasText: text }).first().waitFor({ timeout: T });
  };
  step(`issue 34 row ${row}`);
  await body({ page, step, sync, shot, composer, idle, send });
});
