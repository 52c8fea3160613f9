// Tool approvals in a real browser (scenario.mjs runs it; e2e_test.go's
// approvalScript scripts the provider): a bash call waits with its prompt
// on the card, the sidebar badge and the title count it, a reload brings the
// prompt back, `y` approves and the tool runs; `n` with a message denies;
// switched to auto-approve all, the next call runs without a prompt; Settings
// edits the workspace's rules and shows the sandbox and key storage.

import { T, runScenario, sendAndBlur } from './scenario.mjs';

await runScenario('approvals', async ({ page, step, shot }) => {
  const composer = page.locator('textarea[aria-label="Message"]');
  const send = (text) => sendAndBlur(page, text);

  step('new session in ask mode');
  await page.locator('.sidebar').waitFor({ timeout: T });
  await page.locator('.sidebar .btn-primary').click();
  await page.locator('.new-session').waitFor({ timeout: T });

  step('a bash call waits for approval: prompt, badge, title');
  await send('Run the first command.');
  await page.locator('.mode-switch[data-mode="ask"]').waitFor({ timeout: T });
  const first = page.locator('.tool-card[data-approval="pending"]', { hasText: 'echo approved-run' });
  await first.locator('.approval-command', { hasText: 'echo approved-run' }).waitFor({ timeout: T });
  await first.locator('.approval-risk', { hasText: 'high risk' }).waitFor({ timeout: T });
  await page.locator('.side-row.is-selected [data-testid="approval-badge"]', { hasText: '1' }).waitFor({ timeout: T });
  await page.waitForFunction(() => document.title.startsWith('(1) waiting for approval'), null, { timeout: T });
  await shot('approvals-prompt');

  step('reload mid-wait: the prompt comes back (listPendingApprovals)');
  await page.reload();
  const again = page.locator('.tool-card[data-approval="pending"]', { hasText: 'echo approved-run' });
  await again.locator('.approval-prompt[data-active="true"]').waitFor({ timeout: T });
  await composer.evaluate((el) => el.blur()); // the composer takes focus on load

  step('y approves once: the tool runs');
  await page.keyboard.press('y');
  const ran = page.locator('.tool-card[data-approval="once"][data-status="done"]', { hasText: 'echo approved-run' });
  await ran.locator('.tool-output-text', { hasText: 'approved-run' }).waitFor({ timeout: T });
  await ran.locator('.approval-outcome', { hasText: 'approved by dashboard' }).waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'The first command ran.' }).waitFor({ timeout: T });
  await page.locator('[data-testid="approval-badge"]').waitFor({ state: 'detached', timeout: T });
  await page.waitForFunction(() => !document.title.includes('waiting for approval'), null, { timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });

  step('n with a message denies');
  await send('Run the second command.');
  const second = page.locator('.tool-card[data-approval="pending"]', { hasText: 'rm -rf ./scratch' });
  await second.locator('.approval-command').waitFor({ timeout: T });
  const message = second.locator('.approval-message');
  await message.fill('not today');
  await message.press('Escape'); // leaves the field: the shortcuts apply again
  await page.keyboard.press('n');
  const denied = page.locator('.tool-card[data-approval="deny"]', { hasText: 'rm -rf ./scratch' });
  await denied.locator('.approval-outcome', { hasText: 'denied by dashboard: not today' }).waitFor({ timeout: T });
  await denied.locator('.tool-error', { hasText: 'denied' }).waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'Understood, I will not delete it.' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });
  await shot('approvals-denied');

  step('auto-approve all: the next call runs without a prompt');
  await page.locator('.mode-opt', { hasText: 'Auto all' }).click();
  await page.locator('.mode-switch.is-warning[data-mode="auto-all"]').waitFor({ timeout: T });
  await send('Run the third command.');
  const third = page.locator('.tool-card[data-status="done"]', { hasText: 'echo auto-ran' });
  await third.locator('.tool-output-text', { hasText: 'auto-ran' }).waitFor({ timeout: T });
  if ((await third.getAttribute('data-approval')) !== null) throw new Error('the auto-approved call was asked about');
  await page.locator('.msg-assistant', { hasText: 'The third command ran.' }).waitFor({ timeout: T });
  if ((await page.locator('.approval-prompt').count()) !== 0) throw new Error('a prompt is still shown');
  await shot('approvals-auto');

  step('settings: the workspace rules, the sandbox line, where keys are stored');
  await page.locator('.side-bottom button', { hasText: 'Settings' }).click();
  const rules = page.locator('[data-testid="permission-rules"]');
  await rules.waitFor({ timeout: T });
  await page.locator('[data-testid="rules-workspace"]').waitFor({ timeout: T });
  await rules.locator('input[aria-label="Command prefix"]').fill('go test');
  await rules.locator('button', { hasText: 'Add rule' }).click();
  await rules.locator('.rule-allow', { hasText: 'go test' }).waitFor({ timeout: T });
  for (const id of ['sandbox-line', 'keys-line']) {
    const text = await page.locator(`[data-testid="${id}"]`).innerText();
    if (text.includes('not reported')) throw new Error(`settings: ${text}`);
  }
  await shot('approvals-settings');
  await rules.locator('button[aria-label="Remove rule bash go test → allow"]').click();
  await rules.locator('.rule').waitFor({ state: 'detached', timeout: T });
  await page.keyboard.press('Escape');
  await page.locator('[role="dialog"]').waitFor({ state: 'detached', timeout: T });
});
