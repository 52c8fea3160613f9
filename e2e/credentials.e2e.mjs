// No credential in a cookie (issue 32 row 5; TestNoCredentialInCookie runs
// it): the dashboard opened with ?token= takes the token out of the address
// bar and keeps it in sessionStorage; a turn with an image works (the image
// loads by a signed URL, the page's plain fetch of it without one is 401);
// a reload works without the token in the address; then the tab visits
// another local server (E2E_OTHER, a recorder on another 127.0.0.1 port,
// whose requests the Go side checks): the browser holds no cookie at all.

import { T, clickNewSession, expect, runScenario } from './scenario.mjs';

const token = new URL(process.env.E2E_URL).searchParams.get('token');
const other = process.env.E2E_OTHER;
const image = process.env.E2E_IMAGE;

await runScenario('credentials', async ({ page, browser, step, shot }) => {
  const composer = page.locator('textarea[aria-label="Message"]');
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });

  step('the token left the address bar for sessionStorage; no cookie exists');
  expect(!page.url().includes(token) && !new URL(page.url()).searchParams.has('token'), `the token is in the address bar: ${page.url()}`);
  expect((await page.evaluate(() => sessionStorage.getItem('agenthub.token'))) === token, 'the token is not in sessionStorage');
  expect((await page.evaluate(() => document.cookie)) === '', 'document.cookie is not empty');
  expect((await browser.cookies()).length === 0, `the browser holds cookies: ${JSON.stringify(await browser.cookies())}`);

  step('a turn with an image: the image loads by a signed URL');
  await clickNewSession(page);
  await page.locator('.new-session').waitFor({ timeout: T });
  await page.locator('[data-testid="attach-input"]').setInputFiles(image);
  await page.locator('[data-testid="pending-attachment"][data-state="ready"] img').waitFor({ timeout: T });
  await composer.fill('What is in this picture?');
  await composer.press('Enter');
  const user = page.locator('.msg-user', { hasText: 'What is in this picture?' });
  await page.locator('.msg-assistant', { hasText: 'A small red square' }).waitFor({ timeout: T });
  const thumb = user.locator('[data-testid="attached-image"] img');
  await page.waitForFunction(() => {
    const img = document.querySelector('[data-testid="attached-image"] img');
    return img instanceof HTMLImageElement && img.complete && img.naturalWidth === 64;
  }, null, { timeout: T });
  const src = await thumb.getAttribute('src');
  expect(/^\/attachments\/[0-9a-f]{64}\?exp=\d+&sig=[\w-]+$/.test(src ?? ''), `the image src is not a signed URL: ${src}`);
  expect(!src.includes(token), 'the image URL carries the token');
  const bare = src.split('?')[0];
  const status = await page.evaluate(async (p) => (await fetch(p, { credentials: 'include' })).status, bare);
  expect(status === 401, `the attachment without a signature answered ${status}, want 401`);
  await shot('credentials-turn');

  step('a reload without the token in the address keeps working (sessionStorage)');
  await page.reload();
  await page.locator('.ah-app[data-ready="true"]').waitFor({ timeout: T });
  await page.locator('.msg-assistant', { hasText: 'A small red square' }).waitFor({ timeout: T });
  expect(!page.url().includes('token'), `the token came back to the address bar: ${page.url()}`);

  step('another local server visited in the same tab gets no cookie');
  await page.goto(`${other}/visited`);
  await page.locator('text=recorder').waitFor({ timeout: T });
  await page.evaluate(async () => void (await fetch('/fetched', { credentials: 'include' })));
  expect((await browser.cookies()).length === 0, `the browser holds cookies: ${JSON.stringify(await browser.cookies())}`);
});
