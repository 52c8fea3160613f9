// Shared by the browser scenarios (*.e2e.mjs):
// playwright-core driving Debian's /usr/bin/chromium against a running
// headless Agent Hub whose LLM provider is a scripted fake (started by
// e2e_test.go, which also builds and launches the binary). Scenarios
// synchronise on DOM state only; where the Go side must act (release a
// stalled stream), the scenario calls sync(name), which prints
// "SYNC <name>" and waits for one line on stdin. Success prints "E2E OK".
//
// Env: E2E_URL (dashboard URL with ?token=), E2E_ARTIFACTS (screenshot dir),
// E2E_FRONTEND (frontend dir whose node_modules holds playwright-core),
// E2E_CHROMIUM (default /usr/bin/chromium).

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

/** The default wait for a DOM state, in ms. */
export const T = 20_000;

/** Fails with what unless cond. */
export function expect(cond, what) {
  if (!cond) throw new Error(what);
}

/** Polls check (an async predicate) until it holds, or fails with what after T ms. */
export async function eventually(check, what) {
  const until = Date.now() + T;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(what);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Clicks the sidebar's new-session button, first showing the sidebar where a narrow window hides it. */
export async function clickNewSession(page) {
  if ((await page.locator('nav.sidebar').count()) === 0) await page.locator('.side-expand').click();
  await page.locator('.sidebar .btn-primary').click();
}

/** Sends text from the composer, waits for its bubble and moves focus out of the composer so the keyboard shortcuts apply. */
export async function sendAndBlur(page, text) {
  const composer = page.locator('textarea[aria-label="Message"]');
  await composer.fill(text);
  await composer.press('Enter');
  await page.locator('.msg-user', { hasText: text }).waitFor({ timeout: T });
  await composer.evaluate((el) => el.blur());
}

/**
 * Runs body({ page, browser, step, sync, shot }) on a fresh chromium profile
 * opened at E2E_URL, then exits the process: 0 when body returned and the
 * page raised no errors, 1 otherwise (with the failure, the page state and a
 * screenshot named after the scenario). shot(name) saves <artifacts>/<name>.png.
 */
export async function runScenario(name, body) {
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
  const sync = (what) => {
    console.log(`SYNC ${what}`);
    return new Promise((resolve) => waiting.push(resolve));
  };
  const step = (what) => console.log(`STEP ${what}`);

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
    const shot = (file) => page.screenshot({ path: path.join(artifacts, `${file}.png`) });
    await body({ page, browser, step, sync, shot });
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
          documentTitle: document.title,
        }));
        console.error(`page state: ${JSON.stringify(state)}`);
        await pages[0].screenshot({ path: path.join(artifacts, `${name}-failure.png`) });
      }
    } catch {
      // the browser is gone: nothing to capture
    }
  } finally {
    await browser.close();
    lines.close();
    rmSync(profile, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}
