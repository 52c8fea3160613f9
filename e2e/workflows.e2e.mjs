// Plan mode, the todo panel and slash commands in a real browser
// (docs/workflows.md; TestWorkflowsInBrowser scripts the provider and
// writes the repository's .claude/commands/review.md): "/" lists the
// commands, /review runs the repository's command, the model's todo list
// is a pinned panel the user ticks and adds to, /plan switches to plan
// mode, the plan card's "Build it" builds the plan in the same session,
// a reload and a restart of the binary on the same data dir (sync
// "restart" answers with its new URL) show the list and the built plan
// again; a repository command with a shell line asks first (the trust
// question); @agent-explorer delegates to the named sub-agent, and the
// main agent loads a skill.

import { T, runScenario } from './scenario.mjs';

/** Fails with what unless cond. */
function expect(cond, what) {
  if (!cond) throw new Error(what);
}

await runScenario('workflows', async ({ page, step, shot, sync }) => {
  await page.setViewportSize({ width: 1100, height: 820 });
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });

  step('a session in the folder');
  await page.evaluate(async () => {
    const token = sessionStorage.getItem('agenthub.token');
    const r = await fetch('/sessions', { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'Typos in the notes' }) });
    if (!r.ok) throw new Error(`POST /sessions: ${r.status}`);
  });
  await page.reload();
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  const composer = page.locator('textarea[aria-label="Message"]');
  await composer.waitFor({ timeout: T });

  step('"/" lists the built-ins and the repository\'s command; @ offers the agents');
  await composer.fill('@exp');
  await page.locator('#mention-list li', { hasText: 'agent-explorer' }).waitFor({ timeout: T });
  await composer.fill('/');
  const review = page.locator('[data-testid="slash-option"]', { hasText: '/review' });
  await review.waitFor({ timeout: T });
  const names = await page.locator('[data-testid="slash-option"] .slash-name').allInnerTexts();
  for (const n of ['/plan', '/compact', '/model', '/title', '/clear', '/undo', '/review', '/deploy', '/changelog']) expect(names.includes(n), `"/" lists ${names}, not ${n}`);
  expect((await review.innerText()).includes('Review a file for typos'), 'the command\'s description is missing');
  const skill = page.locator('[data-testid="slash-option"][data-kind="skill"]', { hasText: '/changelog' });
  expect((await skill.locator('.slash-origin').innerText()) === 'skill · project', 'the skill is not labelled as one');
  const deploy = page.locator('[data-testid="slash-option"]', { hasText: '/deploy' });
  expect((await deploy.locator('.slash-shell').innerText()) === 'runs a command', 'the command with a shell line does not say so');
  await shot('workflows-slash');

  step('a repository command with a shell line asks first; Cancel runs nothing');
  await composer.fill('/deploy');
  await composer.press('Enter');
  const trust = page.locator('[data-testid="trust-confirm"]');
  await trust.waitFor({ timeout: T });
  expect((await trust.locator('.trust-lines').innerText()).includes('echo deployed'), 'the trust question does not show the line');
  await shot('workflows-trust');
  await trust.locator('[data-testid="trust-cancel"]').click();
  await trust.waitFor({ state: 'detached', timeout: T });
  expect((await composer.inputValue()) === '/deploy', 'Cancel did not keep the text');
  await composer.fill('/');
  await review.waitFor({ timeout: T });

  step('/review runs the command; the model keeps a todo list, shown pinned');
  await composer.pressSequentially('rev');
  await composer.press('Enter');
  expect((await composer.inputValue()) === '/review ', `Enter completed to ${JSON.stringify(await composer.inputValue())}`);
  await composer.pressSequentially('typos');
  await composer.press('Enter');
  await page.locator('.msg-assistant', { hasText: 'One typo' }).waitFor({ timeout: T });
  const panel = page.locator('[data-testid="todo-panel"]');
  await panel.locator('[data-testid="todo-item"]').nth(2).waitFor({ timeout: T });
  expect((await panel.locator('[data-testid="todo-progress"]').innerText()) === '1 of 3 done', 'the progress is wrong');

  step('the user ticks an item and adds one');
  await panel.getByLabel('Done: List the typos').click(); // the hub's todo.updated ticks it
  await panel.locator('[data-testid="todo-item"][data-status="done"]').nth(1).waitFor({ timeout: T });
  await panel.getByLabel('Add a todo').fill('Re-read the file');
  await panel.getByLabel('Add a todo').press('Enter');
  await panel.locator('[data-testid="todo-item"]', { hasText: 'Re-read the file' }).waitFor({ timeout: T });
  await panel.locator('.todo-by').waitFor({ timeout: T });
  await shot('workflows-todo');

  step('/plan switches to plan mode; the model presents its plan');
  await composer.fill('/plan Fix the typo');
  await composer.press('Enter');
  await page.locator('.mode-switch[data-mode="plan"]').waitFor({ timeout: T });
  const card = page.locator('[data-testid="plan-card"][data-state="proposed"]');
  await card.waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'The plan is ready for you.' }).waitFor({ timeout: T });
  expect((await card.locator('.plan-text h2').innerText()) === 'Fix the typo', 'the plan is not rendered as Markdown');
  await shot('workflows-plan');

  step('"Build it" builds the plan in the same session, in auto edits');
  await card.locator('[data-testid="plan-build"]').click();
  await page.locator('.msg-assistant', { hasText: 'Fixed the typo.' }).waitFor({ timeout: T });
  await page.locator('[data-testid="plan-card"][data-state="accepted"]').waitFor({ timeout: T });
  await page.locator('.mode-switch[data-mode="auto-edits"]').waitFor({ timeout: T });
  await shot('workflows-built');

  step('after a reload the todo list and the built plan are still there');
  await page.reload();
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  await page.locator('[data-testid="todo-item"]', { hasText: 'Re-read the file' }).waitFor({ timeout: T });
  await page.locator('[data-testid="plan-card"][data-state="accepted"]').waitFor({ timeout: T });
  const status = await page.locator('[data-testid="plan-card"] .tool-status-text').innerText();
  expect(status === 'Building in Auto edits', `the plan card says ${status}`);

  step('after a restart of the binary the todo list and the built plan are still there');
  await page.goto(await sync('restart'));
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  if ((await page.locator('nav.sidebar').count()) === 0) await page.locator('.side-expand').click();
  await page.locator('.side-row .side-open', { hasText: 'Typos in the notes' }).click();
  const restarted = page.locator('[data-testid="todo-panel"]');
  await restarted.locator('[data-testid="todo-item"]', { hasText: 'Re-read the file' }).waitFor({ timeout: T });
  expect((await restarted.locator('[data-testid="todo-progress"]').innerText()) === '2 of 4 done', 'the progress after a restart is wrong');
  await page.locator('[data-testid="plan-card"][data-state="accepted"]').waitFor({ timeout: T });
  await page.locator('.mode-switch[data-mode="auto-edits"]').waitFor({ timeout: T });

  step('@agent-explorer delegates to the named sub-agent; the main agent then loads a skill');
  const composer2 = page.locator('textarea[aria-label="Message"]');
  await composer2.fill('@agent-explorer where are the notes?');
  await composer2.press('Enter');
  const ask = page.locator('.tool-card[data-approval="pending"]');
  await ask.waitFor({ timeout: T });
  await ask.locator('.approval-once').click();
  const deleg = page.locator('.deleg-card[data-status="done"]');
  await deleg.waitFor({ timeout: T });
  expect((await deleg.locator('.tool-name').innerText()) === 'sub-agent explorer', 'the card does not name the sub-agent');
  await page.locator('.msg-assistant', { hasText: 'The explorer found' }).waitFor({ timeout: T });
  await shot('workflows-agent');
});
