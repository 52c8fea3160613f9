// MCP servers in a real browser (scenario.mjs runs it; e2e_test.go's
// TestMCPInBrowser scripts the provider): Settings adds a stdio server
// (this test binary serving mcptest) — staged, marked not saved yet, saved
// by Save at the bottom — and shows it ready with its tools; a turn calls
// t__fast, which asks first (MCP tools default to ask), `y` approves, the
// card shows the server's answer; removing the server in Settings (staged,
// then Save) takes it away.

import { T, runScenario } from './scenario.mjs';

const command = process.env.E2E_MCP_COMMAND;
if (!command) throw new Error('E2E_MCP_COMMAND is not set');

await runScenario('mcp', async ({ page, step, shot }) => {
  step('new session');
  await page.locator('.sidebar').waitFor({ timeout: T });
  await page.locator('.sidebar .btn-primary').click();
  await page.locator('.new-session').waitFor({ timeout: T });

  step('settings: add a stdio MCP server and see it ready with its tools');
  await page.locator('.side-bottom button', { hasText: 'Settings' }).click();
  const block = page.locator('[data-testid="mcp-servers"]');
  await block.waitFor({ timeout: T });
  await block.locator('input[aria-label="Server name"]').fill('t');
  await block.locator('input[aria-label="Command"]').fill(command);
  await block.locator('textarea[aria-label="Environment"]').fill('AGENTHUB_MCPTEST=stdio');
  await block.locator('button', { hasText: 'Add server' }).click();
  await block.locator('.mcp-server[data-server="t"][data-pending="added"][data-status="unsaved"]').waitFor({ timeout: T });
  await page.locator('.settings-footer button', { hasText: 'Save' }).click();
  const server = block.locator('.mcp-server[data-server="t"][data-status="ready"]:not([data-pending])');
  await server.waitFor({ timeout: T });
  await server.locator('.mcp-state', { hasText: 'ready · 8 tools' }).waitFor({ timeout: T });
  await server.locator('.mcp-tools', { hasText: 't__fast' }).waitFor({ timeout: T });
  await server.locator('.mcp-unsupported', { hasText: 'task_only' }).waitFor({ timeout: T });
  await shot('mcp-settings');
  await page.keyboard.press('Escape');
  await page.locator('[role="dialog"]').waitFor({ state: 'detached', timeout: T });

  step('a turn calls t__fast: asked first, approved with y, the answer on the card');
  const composer = page.locator('textarea[aria-label="Message"]');
  await composer.fill('Use the MCP tool.');
  await composer.press('Enter');
  const card = page.locator('.tool-card[data-approval="pending"]', { hasText: 't__fast' });
  await card.locator('.approval-prompt').waitFor({ timeout: T });
  await composer.evaluate((el) => el.blur());
  await page.keyboard.press('y');
  const done = page.locator('.tool-card[data-status="done"]', { hasText: 'MCP t: fast' });
  await done.locator('.tool-output-text', { hasText: 'echo: from the browser' }).waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'The MCP tool answered.' }).waitFor({ timeout: T });
  await shot('mcp-call');

  step('settings: remove the server');
  await page.locator('.side-bottom button', { hasText: 'Settings' }).click();
  const gone = page.locator('[data-testid="mcp-servers"] .mcp-server[data-server="t"]');
  await gone.locator('button', { hasText: 'Remove' }).click();
  await gone.locator('[data-testid="pending"]', { hasText: 'removed · not saved yet' }).waitFor({ timeout: T });
  await page.locator('.settings-footer button', { hasText: 'Save' }).click();
  await gone.waitFor({ state: 'detached', timeout: T });
  await page.keyboard.press('Escape');
  await page.locator('[role="dialog"]').waitFor({ state: 'detached', timeout: T });
});
