// UI benchmark page: mounts the real ChatPane (controller, batcher, reducer,
// virtualised list, incremental Markdown, tool cards) over an in-page
// transport and measures frame gaps while synthetic events stream in at a
// fixed rate. Results land in window.__bench (read by e2e/bench.ui.mjs).

import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { ChatPane } from '../app/ChatPane';
import { AppController } from '../app/controller';
import { FakeHub, ScriptedTransport, session } from '../testing/fakes';
import { decodeServerFrame, type ServerFrame } from '../protocol';
import { messageText } from '../state';
import '../chat/chat.css';
import '../app/app.css';

type FrameStats = {
  frames: number;
  longestFrameMs: number;
  p99FrameMs: number;
  over50ms: number;
  longestTaskMs: number;
  durationMs: number;
};

declare global {
  interface Window {
    __bench?: Record<string, unknown>;
    __benchDone?: boolean;
  }
}

let seq = 0;
const id = () => `01BENCH${String(++seq).padStart(12, '0')}`;
const ts = () => new Date().toISOString();

function frame(raw: unknown): ServerFrame {
  const f = decodeServerFrame(raw);
  if (f.type === 'unknown') throw new Error(`bench built a bad frame: ${f.reason}`);
  return f;
}
function ev(sessionId: string, type: string, payload: unknown, turn = 'turnB'): ServerFrame {
  return frame({ type: 'event', event: { id: id(), type, session_id: sessionId, turn_id: turn, ts: ts(), actor: 'agent', payload } });
}
function snapshot(sessionId: string, messages: unknown[]): ServerFrame {
  return frame({
    type: 'snapshot',
    session: { ...session(sessionId), id: sessionId, current_turn_id: null },
    messages,
    snapshot_at_event_id: id(),
    epoch: 'bench',
  });
}

/** Records rAF gaps and long tasks until stop(). */
function measureFrames(): () => FrameStats {
  const gaps: number[] = [];
  let last = performance.now();
  const start = last;
  let running = true;
  let longestTask = 0;
  const po = new PerformanceObserver((l) => l.getEntries().forEach((e) => (longestTask = Math.max(longestTask, e.duration))));
  try {
    po.observe({ type: 'longtask', buffered: false });
  } catch {
    // longtask unsupported: rAF gaps still measure jank
  }
  const loop = (t: number) => {
    gaps.push(t - last);
    last = t;
    if (running) requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
  return () => {
    running = false;
    po.disconnect();
    const sorted = [...gaps].sort((a, b) => a - b);
    return {
      frames: gaps.length,
      longestFrameMs: round(sorted.at(-1) ?? 0),
      p99FrameMs: round(sorted[Math.floor(sorted.length * 0.99)] ?? 0),
      over50ms: gaps.filter((g) => g > 50).length,
      longestTaskMs: round(longestTask),
      durationMs: round(performance.now() - start),
    };
  };
}
const round = (x: number) => Math.round(x * 10) / 10;

/** Pushes n frames at rate per second; resolves after the last. */
function pace(n: number, perSecond: number, make: (i: number) => ServerFrame[], push: (f: ServerFrame[]) => void): Promise<void> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let i = 0;
    const tick = () => {
      const due = Math.min(n, Math.floor(((performance.now() - t0) / 1000) * perSecond) + 1);
      while (i < due) push(make(i++));
      if (i >= n) resolve();
      else setTimeout(tick, 1000 / perSecond);
    };
    tick();
  });
}

const WORDS = 'the agent reads files runs commands and streams its answer token by token while the window stays smooth'.split(' ');
/** ~chars of Markdown for delta i: prose with paragraph breaks and a code block every 60 deltas. */
function chunk(i: number): string {
  if (i % 60 === 30) return '\n\n```go\nfunc main() {\n\tfmt.Println("hello", ' + i + ')\n}\n```\n\n';
  if (i % 12 === 11) return '.\n\n';
  let s = '';
  for (let k = 0; k < 8; k++) s += WORDS[(i * 7 + k) % WORDS.length] + ' ';
  return i % 20 === 3 ? `**${s.trim()}** ` : s;
}

async function setup(sid: string, messages: unknown[] = []) {
  const hub = new FakeHub();
  hub.sessions = [session(sid, { title: 'Benchmark' })];
  let transport!: ScriptedTransport;
  const ctl = new AppController({
    hub,
    pollMs: 0,
    transport: () => (transport = new ScriptedTransport(() => [frame({ type: 'subscribe_ack', resolved_filter: { event_types: null, actors: null, include_worker_sessions: false }, since: null, snapshot: true, replay_event_count: 0 }), snapshot(sid, messages)])),
  });
  const host = document.getElementById('root')!;
  host.style.height = '860px';
  host.style.display = 'flex';
  const root = createRoot(host);
  await ctl.start(sid);
  flushSync(() => root.render(<div className="ah-app" style={{ height: 860 }}><main className="main"><ChatPane ctl={ctl} sessionId={sid} defaultModel="anthropic:claude-sonnet-4-6" /></main></div>));
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const push = (fs: ServerFrame[]) => fs.forEach((f) => transport.push(f));
  return { ctl, root, push };
}

/** 2,000 text deltas at 200/s: the message grows to ≈20,000 tokens (≈80 KB). */
async function streamScenario(): Promise<Record<string, unknown>> {
  const sid = 'bench-stream';
  const { root, push, ctl } = await setup(sid);
  push([ev(sid, 'turn.started', { user_message_id: 'u1', input: 'Write a long answer' }), ev(sid, 'message.start', { message_id: 'a1', role: 'assistant', model: 'anthropic:claude-sonnet-4-6' })]);
  let text = '';
  const stop = measureFrames();
  await pace(2000, 200, (i) => {
    const c = chunk(i);
    text += c;
    return [ev(sid, 'text.delta', { message_id: 'a1', content_block_index: 0, text: c })];
  }, push);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const stats = stop();
  const rendered = document.querySelector('.msg-assistant .md')?.textContent?.length ?? 0;
  const m = ctl.store.getState().chat[sid]!.messages['a1']!;
  const got = messageText(m).length;
  root.unmount();
  ctl.dispose();
  return { ...stats, deltas: 2000, ratePerSecond: 200, chars: text.length, approxTokens: Math.round(text.length / 4), storedChars: got, renderedChars: rendered };
}

/**
 * The desktop bench's burst (bench/desktop_stream.go): 100,000 text deltas of
 * one paragraph ("<nanoseconds> " each), unpaced, in batches of 130 frames
 * (≈ one coalesced Wails batch), until the finished message is painted.
 */
async function burstScenario(): Promise<Record<string, unknown>> {
  const sid = 'bench-burst';
  const n = Number(new URLSearchParams(location.search).get('burst') ?? 100_000);
  const { root, push } = await setup(sid);
  push([ev(sid, 'turn.started', { user_message_id: 'u1', input: 'Burst' }), ev(sid, 'message.start', { message_id: 'a1', role: 'assistant', model: 'anthropic:claude-sonnet-4-6' })]);
  const stop = measureFrames();
  const t0 = performance.now();
  let sent = 0;
  let chars = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const batch: ServerFrame[] = [];
      for (let k = 0; k < 130 && sent < n; k++, sent++) {
        const text = `${1_780_000_000_000_000_000 + sent * 1000} `;
        chars += text.length;
        batch.push(ev(sid, 'text.delta', { message_id: 'a1', content_block_index: 0, text }));
      }
      push(batch);
      if (sent < n) setTimeout(tick, 0);
      else resolve();
    };
    tick();
  });
  const sentMs = performance.now() - t0;
  push([
    ev(sid, 'message.complete', { message_id: 'a1', final_content: [{ type: 'text', text: Array.from({ length: n }, (_, i) => `${1_780_000_000_000_000_000 + i * 1000} `).join('') }], stop_reason: 'end_turn', usage: { input_tokens: 100, output_tokens: n, cost_usd: 0.01 } }),
    ev(sid, 'turn.completed', { status: 'completed', usage: { input_tokens: 100, output_tokens: n, cost_usd: 0.01 } }),
  ]);
  let words = 0;
  for (let i = 0; i < 600 && words !== n; i++) {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const el = document.querySelector('.msg-assistant[data-status="complete"] .md');
    words = el ? (el.textContent ?? '').split(/\s+/).filter(Boolean).length : 0;
  }
  const renderedMs = performance.now() - t0;
  const stats = stop();
  const heap = (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0;
  root.unmount();
  return { ...stats, deltas: n, chars, sentMs: round(sentMs), renderedMs: round(renderedMs), deltasPerSecond: Math.round(n / (renderedMs / 1000)), wordsShown: words, heapMB: round(heap / 1e6) };
}

/** 35,000 lines of tool output in 350 deltas at 200/s, then tool.completed with all of it. */
async function toolScenario(): Promise<Record<string, unknown>> {
  const sid = 'bench-tool';
  const { root, push, ctl } = await setup(sid);
  push([
    ev(sid, 'turn.started', { user_message_id: 'u1', input: 'Run the build' }),
    ev(sid, 'message.start', { message_id: 'a1', role: 'assistant', model: 'anthropic:claude-sonnet-4-6' }),
    ev(sid, 'tool.use_start', { message_id: 'a1', content_block_index: 0, tool_use_id: 't1', tool_name: 'bash' }),
    ev(sid, 'tool.use_end', { message_id: 'a1', content_block_index: 0, tool_use_id: 't1', final_input: { command: 'make all' } }),
    ev(sid, 'tool.called', { message_id: 'a1', tool_use_id: 't1', tool_name: 'bash', input: { command: 'make all' }, status_text: 'Running make all', summary: '' }),
  ]);
  let all = '';
  const stop = measureFrames();
  await pace(350, 200, (i) => {
    let s = '';
    for (let k = 0; k < 100; k++) s += `[${i * 100 + k}] compiling package_${(i * 100 + k) % 977}/module.go ok\n`;
    all += s;
    return [ev(sid, 'tool.output_delta', { tool_use_id: 't1', stream: 'stdout', text: s })];
  }, push);
  push([ev(sid, 'tool.completed', { tool_use_id: 't1', tool_name: 'bash', output: all, is_error: false, truncated: false, output_bytes: all.length, duration_ms: 1750, status_text: 'Ran make all', summary: '**exit 0** · 35,000 lines' })]);
  await new Promise((r) => setTimeout(r, 200));
  const stats = stop();
  const shownLines = (document.querySelector('.tool-output-text')?.textContent ?? '').split('\n').length;
  root.unmount();
  ctl.dispose();
  return { ...stats, lines: 35000, bytes: all.length, linesInDom: shownLines };
}

function storedMessages(sid: string, n: number): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const user = i % 2 === 0;
    out.push({
      id: `m${String(i).padStart(6, '0')}`,
      session_id: sid,
      offset: i,
      role: user ? 'user' : 'assistant',
      content: [{ type: 'text', text: user ? `Question ${i}: what does file_${i}.go do?` : `Message ${i}. It **parses** the input, checks it and writes \`out_${i}\`.\n\nA second paragraph for message ${i}.` }],
      status: 'complete',
      created_at: '2026-05-08T14:00:00Z',
      ...(user ? {} : { usage: { input_tokens: 1000 + i, output_tokens: 50, cost_usd: 0.003 } }),
    });
  }
  return out;
}

/** Opening a session whose snapshot holds `count` messages: time until the newest is in the DOM. */
async function openScenario(count: number): Promise<Record<string, unknown>> {
  const sid = `bench-open-${count}`;
  const messages = storedMessages(sid, count);
  const newest = `Message ${count - 1}.`;
  const t0 = performance.now();
  const { root, ctl } = await setup(sid, messages);
  let shownAt = -1;
  for (let i = 0; i < 300 && shownAt < 0; i++) {
    if ([...document.querySelectorAll('.msg-assistant')].some((e) => e.textContent?.includes(newest))) shownAt = performance.now();
    else await new Promise((r) => requestAnimationFrame(r));
  }
  const rows = document.querySelectorAll('.msg-row').length;
  root.unmount();
  ctl.dispose();
  return { messages: count, newestShownMs: shownAt < 0 ? null : round(shownAt - t0), rowsInDom: rows };
}

/** 3 s with nothing happening: the machine's own frame jitter (baseline). */
async function idleScenario(): Promise<Record<string, unknown>> {
  const { root, ctl } = await setup('bench-idle', storedMessages('bench-idle', 50));
  const stop = measureFrames();
  await new Promise((r) => setTimeout(r, 3000));
  const stats = stop();
  root.unmount();
  ctl.dispose();
  return stats;
}

async function run() {
  const results: Record<string, unknown> = {};
  // ?only=stream (comma-separated names) runs a subset, e.g. for e2e/trace.ui.mjs.
  const only = new URLSearchParams(location.search).get('only')?.split(',');
  const want = (name: string) => !only || only.includes(name);
  if (want('idle')) results.idle = await idleScenario();
  if (want('stream')) results.stream = await streamScenario();
  if (want('burst')) results.burst = await burstScenario();
  if (want('toolOutput')) results.toolOutput = await toolScenario();
  if (want('open50')) results.open50 = await openScenario(50);
  if (want('open10000')) results.open10000 = await openScenario(10_000);
  window.__bench = results;
  window.__benchDone = true;
}

run().catch((err: unknown) => {
  window.__bench = { error: String(err instanceof Error ? err.stack : err) };
  window.__benchDone = true;
});
