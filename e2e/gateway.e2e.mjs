// The UI through the gateway (gateway_test.go starts `agenthub gateway`,
// a headless hub with --gateway and the fake provider): the pairing link
// opens the gateway's page, which registers as a client device and asks
// the hub; the hub's own dashboard (a second page) shows "Allow … to
// control this hub?" and allows it; then the gateway page works like the
// dashboard: a streamed answer, a tool call approved from the page, a
// cancel mid-stream, search, and the history after a reload.
//
// Env besides scenario.mjs's: E2E_HUB_URL, the hub's dashboard URL.

import { T, runScenario, sendAndBlur } from './scenario.mjs';

await runScenario('gateway', async ({ page, browser, step, shot }) => {
  step('the pairing link: the page leaves it out of the address bar and waits for the hub');
  await page.waitForFunction(() => window.location.hash === '', null, { timeout: T });

  step("the hub's user allows the device in the hub's own page");
  const hubPage = await browser.newPage();
  await hubPage.goto(process.env.E2E_HUB_URL);
  const prompt = hubPage.locator('[data-testid="device-confirm"]');
  await prompt.waitFor({ timeout: T });
  const asked = await prompt.textContent();
  if (!/Allow browser-.* to control this hub\?/.test(asked ?? '')) throw new Error(`prompt reads: ${asked}`);
  await shot('gateway-allow-device');
  await hubPage.screenshot({ path: `${process.env.E2E_ARTIFACTS ?? 'artifacts'}/gateway-hub-prompt.png` });
  await prompt.locator('[data-testid="device-allow"]').click();
  await prompt.waitFor({ state: 'detached', timeout: T });

  step('the gateway page is the app, over the gateway');
  await page.locator('.ah-app[data-backend="gateway"][data-ready="true"]').waitFor({ timeout: 60_000 });
  const composer = page.locator('textarea[aria-label="Message"]');
  const send = (text) => sendAndBlur(page, text);

  step('a session: a streamed answer');
  await page.locator('.sidebar .btn-primary').click();
  await page.locator('.new-session').waitFor({ timeout: T });
  await send('Say hello through the gateway.');
  await page.locator('.msg-assistant', { hasText: 'Hello through the gateway, zebrafish.' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });

  step('a tool call waits for approval; y approves it from this page');
  await send('Run the command.');
  const card = page.locator('.tool-card[data-approval="pending"]', { hasText: 'echo through-gateway' });
  await card.locator('.approval-command').waitFor({ timeout: T });
  await page.keyboard.press('y');
  const ran = page.locator('.tool-card[data-approval="once"][data-status="done"]', { hasText: 'echo through-gateway' });
  await ran.locator('.tool-output-text', { hasText: 'through-gateway' }).waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'The command ran.' }).waitFor({ timeout: T });
  await page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });
  await shot('gateway-tool');

  step('cancel mid-stream with Esc');
  await send('Count slowly.');
  await page.locator('.msg-assistant', { hasText: 'Counting: 1 2 3' }).waitFor({ timeout: T });
  await composer.focus();
  await composer.press('Escape');
  await page.locator('.msg-assistant', { hasText: 'Counting: 1 2 3' }).locator('.msg-annotation', { hasText: '(cancelled)' }).waitFor({ timeout: T });

  step('search finds a word of the first answer');
  await page.keyboard.press('Control+k');
  const search = page.locator('input[aria-label="Search sessions and messages"]');
  await search.fill('zebrafish');
  await page.locator('[data-testid="search-hit"]').first().waitFor({ timeout: T });
  await search.fill('');

  step('reload: the history comes back through the gateway');
  await page.reload();
  await page.locator('.ah-app[data-backend="gateway"][data-ready="true"]').waitFor({ timeout: 60_000 });
  await page.locator('.msg-assistant', { hasText: 'Hello through the gateway, zebrafish.' }).waitFor({ timeout: T });
  await page.locator('.tool-card', { hasText: 'echo through-gateway' }).waitFor({ timeout: T });
  await shot('gateway-history');
});
