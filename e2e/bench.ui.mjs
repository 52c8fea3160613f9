// UI benchmark driver: serves frontend/bench-dist (built with
// `vite build --config vite.bench.config.ts`) on loopback, opens it in
// Debian's chromium through playwright-core and prints the page's results
// as JSON. Figures, not assertions: see docs/benchmarks.md "UI".
//
//   cd frontend && ./node_modules/.bin/vite build --config vite.bench.config.ts && node ../e2e/bench.ui.mjs

import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const frontend = process.env.E2E_FRONTEND ?? path.resolve(import.meta.dirname, '../frontend');
const dist = path.join(frontend, 'bench-dist');
if (!existsSync(path.join(dist, 'bench.html'))) {
  console.error(`${dist}/bench.html is missing: cd frontend && ./node_modules/.bin/vite build --config vite.bench.config.ts`);
  process.exit(2);
}
const { chromium } = createRequire(path.join(frontend, 'package.json'))('playwright-core');

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };
const server = createServer((req, res) => {
  const name = path.normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)).replace(/^\/+/, '') || 'bench.html';
  const file = path.join(dist, name);
  if (!file.startsWith(dist) || !existsSync(file)) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/bench.html`;

const profile = mkdtempSync(path.join(tmpdir(), 'agenthub-bench-chromium-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.E2E_CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 860 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let code = 0;
try {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(url);
  await page.waitForFunction(() => window.__benchDone === true, null, { timeout: 180_000, polling: 500 });
  const results = await page.evaluate(() => window.__bench);
  console.log(JSON.stringify(results, null, 2));
  if (results?.error) code = 1;
} finally {
  await ctx.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(code);
