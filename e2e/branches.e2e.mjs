// Branches in a real browser (issue 16; TestBranchesInBrowser scripts the
// provider): an answer regenerated, ‹ n/m › paging between the two answers,
// then the question edited and resent as a new branch of its own.

import { T, clickNewSession, expect, runScenario } from './scenario.mjs';

const width = Number(process.env.E2E_WIDTH ?? '800');

await runScenario(`branches-${width}`, async ({ page, step, shot }) => {
  await page.setViewportSize({ width, height: 860 });
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  const composer = page.locator('textarea[aria-label="Message"]');
  const answer = (text) => page.locator('.msg-assistant', { hasText: text });
  const idle = () => page.locator('[data-testid="running"]').waitFor({ state: 'detached', timeout: T });

  step('a question and its answer');
  await clickNewSession(page);
  await composer.fill('Name a colour.');
  await composer.press('Enter');
  await answer('First answer.').waitFor({ timeout: T });
  await idle();

  step('Regenerate: a second answer replaces the first, with ‹ 2/2 ›');
  await answer('First answer.').locator('[data-testid="regenerate"]').click();
  await answer('Second answer.').waitFor({ timeout: T });
  await answer('First answer.').waitFor({ state: 'detached', timeout: T });
  const nav = answer('Second answer.').locator('[data-testid="branch-nav"]');
  await nav.waitFor({ timeout: T });
  expect((await nav.innerText()).includes('2/2'), `the new answer shows ${await nav.innerText()}`);
  await shot(`branches-${width}-regenerated`);

  step('‹ goes back to the first answer, › forward again');
  await nav.locator('[aria-label="Previous branch"]').click();
  await answer('First answer.').waitFor({ timeout: T });
  await answer('Second answer.').waitFor({ state: 'detached', timeout: T });
  const back = answer('First answer.').locator('[data-testid="branch-nav"]');
  expect((await back.innerText()).includes('1/2'), `the first answer shows ${await back.innerText()}`);
  await back.locator('[aria-label="Next branch"]').click();
  await answer('Second answer.').waitFor({ timeout: T });

  step('Edit the question and resend: a new branch with its own answer; the original is one click away');
  const question = page.locator('.msg-user', { hasText: 'Name a colour.' });
  await question.locator('[data-testid="edit-message"]').click();
  const box = page.locator('[data-testid="edit-box"] textarea');
  await box.fill('Name a fruit.');
  await box.press('Enter');
  await answer('Answer to the edit.').waitFor({ timeout: T });
  await idle();
  const edited = page.locator('.msg-user', { hasText: 'Name a fruit.' });
  await edited.locator('[data-testid="branch-nav"]', { hasText: '2/2' }).waitFor({ timeout: T });
  expect((await page.locator('.msg-user', { hasText: 'Name a colour.' }).count()) === 0, 'the original question still shows on the edited branch');
  await shot(`branches-${width}-edited`);
  await edited.locator('[aria-label="Previous branch"]').click();
  await page.locator('.msg-user', { hasText: 'Name a colour.' }).waitFor({ timeout: T });
  await answer('Second answer.').waitFor({ timeout: T });
  const overflow = await page.evaluate(() =>
    [...document.querySelectorAll('.msg-meta *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).map((e) => e.className || e.tagName),
  );
  expect(overflow.length === 0, `message actions run past the right edge: ${overflow.slice(0, 5)}`);
});
