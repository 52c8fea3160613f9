// Shared by the UI bench drivers (bench.ui.mjs, trace.ui.mjs): serves
// frontend/bench-dist (built with `vite build --config vite.bench.config.ts`)
// on loopback and opens it in Debian's chromium through playwright-core,
// with the flags this closed-network machine needs and a fresh profile.

import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';

const frontend = process.env.E2E_FRONTEND ?? path.resolve(import.meta.dirname, '../frontend');
const dist = path.join(frontend, 'bench-dist');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/**
 * Serves the bench page and launches chromium on it. query is appended to
 * bench.html's URL (e.g. "?only=stream"). Returns the browser context, its
 * page (not yet navigated), the page URL and close(), which stops the
 * browser and the server and removes the profile. Exits with status 2 when
 * the bench page has not been built.
 */
export async function openBenchPage(query = '') {
  if (!existsSync(path.join(dist, 'bench.html'))) {
    console.error(`${dist}/bench.html is missing: cd frontend && ./node_modules/.bin/vite build --config vite.bench.config.ts`);
    process.exit(2);
  }
  const { chromium } = createRequire(path.join(frontend, 'package.json'))('playwright-core');
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
  const url = `http://127.0.0.1:${server.address().port}/bench.html${query}`;
  const profile = mkdtempSync(path.join(tmpdir(), 'agenthub-bench-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.E2E_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  return {
    ctx,
    page,
    url,
    async close() {
      await ctx.close();
      server.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
