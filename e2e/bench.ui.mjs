// UI benchmark driver: serves frontend/bench-dist (built with
// `vite build --config vite.bench.config.ts`) on loopback, opens it in
// Debian's chromium through playwright-core and prints the page's results
// as JSON. Figures, not assertions: see docs/benchmarks.md "UI".
//
//   cd frontend && ./node_modules/.bin/vite build --config vite.bench.config.ts && node ../e2e/bench.ui.mjs

import { openBenchPage } from './benchpage.mjs';

const { page, url, close } = await openBenchPage();
let code = 0;
try {
  await page.goto(url);
  await page.waitForFunction(() => window.__benchDone === true, null, { timeout: 180_000, polling: 500 });
  const results = await page.evaluate(() => window.__bench);
  console.log(JSON.stringify(results, null, 2));
  if (results?.error) code = 1;
} finally {
  await close();
}
process.exit(code);
