// UI trace driver: runs one bench scenario (default: stream) in Debian's
// chromium under a CDP performance trace and prints where main-thread time
// went (self time per trace event, grouped into script / style / layout /
// paint / raster / gc / other), overall and inside the longest tasks.
// Figures, not assertions: see docs/benchmarks.md "UI".
//
//   cd frontend && ./node_modules/.bin/vite build --config vite.bench.config.ts && node ../e2e/trace.ui.mjs [scenario]

import { writeFileSync } from 'node:fs';
import { openBenchPage } from './benchpage.mjs';

const scenario = process.argv[2] ?? 'stream';

/** Category of a trace event name (Chromium's DevTools timeline names). */
function category(name) {
  if (/^(FunctionCall|EvaluateScript|v8\.|V8\.|RunMicrotasks|FireAnimationFrame|TimerFire|EventDispatch|v8\.run|RunTask|ParseHTML|XHR|FireIdleCallback)/.test(name)) return 'script';
  if (/GC|GarbageCollection/.test(name)) return 'gc';
  if (/^(UpdateLayoutTree|RecalculateStyles|ScheduleStyleRecalculation|ParseAuthorStyleSheet|InvalidateLayout)/.test(name)) return 'style';
  if (/^(Layout|UpdateLayerTree|IntersectionObserverController|ResizeObserverController|LocalFrameView::RunPostLifecycleSteps)/.test(name)) return 'layout';
  if (/^(Paint|PrePaint|Layerize|CompositeLayers|PaintImage|UpdateLayer|Commit|RasterTask|Decode|Rasterize)/.test(name)) return 'paint';
  return 'other';
}

const { ctx, page, url, close } = await openBenchPage(`?only=${encodeURIComponent(scenario)}`);
let code = 0;
try {
  const cdp = await ctx.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (m) => events.push(...m.value));
  const complete = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'blink', 'cc', 'gpu', 'toplevel', 'v8'], recordMode: 'recordContinuously' },
  });
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await page.goto(url);
  await page.waitForFunction(() => window.__benchDone === true, null, { timeout: 180_000, polling: 500 });
  const results = await page.evaluate(() => window.__bench);
  const { profile: cpu } = await cdp.send('Profiler.stop');
  await cdp.send('Tracing.end');
  await complete;
  if (process.env.TRACE_OUT) writeFileSync(process.env.TRACE_OUT, JSON.stringify({ traceEvents: events }));

  // Threads by name; the page's main thread is CrRendererMain, raster runs on CompositorTileWorker*.
  const threadNames = new Map();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') threadNames.set(`${e.pid}:${e.tid}`, e.args.name);
  const byThread = new Map();
  for (const e of events) {
    if (e.ph !== 'X' || typeof e.dur !== 'number') continue;
    const k = `${e.pid}:${e.tid}`;
    if (!byThread.has(k)) byThread.set(k, []);
    byThread.get(k).push(e);
  }
  // Self time per name: subtract directly nested children (events are properly nested per thread).
  const selfTimes = (list) => {
    list.sort((a, b) => a.ts - b.ts || b.dur - a.dur);
    const self = new Map();
    const stack = [];
    const add = (e, d) => self.set(e.name, (self.get(e.name) ?? 0) + d);
    for (const e of list) {
      while (stack.length && stack.at(-1).ts + stack.at(-1).dur <= e.ts) stack.pop();
      if (stack.length) add(stack.at(-1), -e.dur);
      add(e, e.dur);
      stack.push(e);
    }
    return self;
  };
  const summarise = (self) => {
    const cats = {};
    for (const [n, d] of self) cats[category(n)] = (cats[category(n)] ?? 0) + d / 1000;
    const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([n, d]) => `${n} ${(d / 1000).toFixed(1)}ms`);
    return { categoriesMs: Object.fromEntries(Object.entries(cats).map(([k, v]) => [k, Math.round(v)])), top };
  };
  const out = { results };
  // JS self time per function from the sampling profiler (samples × mean interval).
  const dt = (cpu.endTime - cpu.startTime) / 1000 / Math.max(1, cpu.samples.length);
  const fnSelf = new Map();
  for (const n of cpu.nodes) {
    const f = n.callFrame;
    const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + (n.hitCount ?? 0) * dt);
  }
  out.jsSelfTop = [...fnSelf].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${v.toFixed(0)}ms ${k}`);
  for (const [k, list] of byThread) {
    const name = threadNames.get(k) ?? k;
    if (name !== 'CrRendererMain' && !name.startsWith('CompositorTileWorker') && name !== 'Compositor') continue;
    const tasks = list.filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask');
    const longest = [...tasks].sort((a, b) => b.dur - a.dur).slice(0, 5);
    const entry = { ...summarise(selfTimes([...list])), longestTasksMs: longest.map((t) => Math.round(t.dur / 1000)) };
    if (name === 'CrRendererMain' && longest.length) {
      const inLongest = list.filter((e) => longest.some((t) => e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur));
      entry.insideLongestTasks = summarise(selfTimes(inLongest));
    }
    out[`${name} (${k})`] = entry;
  }
  console.log(JSON.stringify(out, null, 2));
  if (results?.error) code = 1;
} finally {
  await close();
}
process.exit(code);
