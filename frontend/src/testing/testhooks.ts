// Test hooks of the desktop test harness (app/smoketest, app/desktoptest).
// They exist only in the smoketest build: main.tsx imports this module when
// vite's mode is "smoketest" (the frontend the smoketest binary embeds), so a
// normal build contains none of it. In the Wails window the page asks Go's
// Page.TestReport (app/smoketest) whether the harness runs; only then does it report each
// page load and every change of the transcript it renders (read from the
// DOM), and obey the harness's `agenthub:test` events. Otherwise it removes
// its listener and does nothing more.

/** The Wails event the harness sends to the page (app.TestEvent). */
export const TEST_EVENT = 'agenthub:test';

/** One message as the window renders it (app.RenderedMessage). */
export interface RenderedMessage {
  role: string;
  status: string;
  text: string;
  /** The turn outcome shown under a user message (its data-status), if any. */
  outcome?: string;
  /** Whether that outcome offers Retry. */
  retry?: boolean;
  /** Attached images shown under the message, and how many of them loaded. */
  images?: number;
  images_loaded?: number;
  /** Names of the files attached to the message (chips). */
  files?: string[];
  /** With `paint` `words`: how many whitespace-separated words text has (text is then left out). */
  words?: number;
}

/** Frames drawn while the harness's frame meter ran (app.FrameStats). */
export interface FrameStats {
  frames: number;
  max_gap_ms: number;
}

/** What the page reports to the harness (smoketest.PageReport, app/smoketest). */
export interface PageReport {
  kind: 'loaded' | 'transcript' | 'painted' | 'frames';
  page_id: string;
  session_id: string;
  running: boolean;
  messages: RenderedMessage[];
  frame_stats?: FrameStats;
  /** The composer's pending attachments' states ("uploading", "ready", "error"). */
  composer_attachments?: string[];
  /** The quit confirmation is shown. */
  quit_prompt?: boolean;
  /** The start-up failure the window shows instead of the chat. */
  startup_error?: string;
  /** The app has started (its controller runs: data-ready on the root). */
  ready?: boolean;
  /** The open dialog's heading; the page's zoom ("" at 100%). */
  dialog?: string;
  zoom?: string;
  /** The viewport's width in CSS px. */
  width?: number;
}

/**
 * A command from the harness: open a session; report the transcript now;
 * report it (as kind "painted") once two more frames have been drawn;
 * click the first element matching a selector (as a user would); start a
 * fetch of a URL (a probe of the window's Content-Security-Policy); stop
 * (paint words: each message's word count instead of its text, so a
 * benchmark polling a huge message does not haul it through IPC on every
 * poll); stop reporting transcript changes (quiet: reports only on request, so a
 * benchmark does not pay for them); start the frame meter (frames on) or
 * stop it and report what it measured (frames off, kind "frames"); paste a
 * width×height PNG named name into the composer (as a screenshot paste).
 */
type TestCommand =
  | { cmd: 'open'; session_id: string }
  | { cmd: 'transcript' }
  | { cmd: 'paint'; words?: boolean }
  | { cmd: 'click'; selector: string }
  | { cmd: 'fetch'; url: string }
  | { cmd: 'quiet' }
  | { cmd: 'frames'; on: boolean }
  | { cmd: 'paste'; name: string; width: number; height: number };

/** Pastes a solid width×height PNG named name into the composer, as the clipboard does. */
export async function pasteImage(doc: Document, name: string, width: number, height: number): Promise<void> {
  const canvas = doc.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const g = canvas.getContext('2d');
  if (g) {
    g.fillStyle = '#2a6';
    g.fillRect(0, 0, width, height);
  }
  const blob = await new Promise<Blob | null>((r) => canvas.toBlob(r, 'image/png'));
  // The command may come before the open session's composer is mounted and
  // enabled: wait for it (frame by frame, at most 10 s).
  const win = doc.defaultView;
  let area: HTMLTextAreaElement | null = null;
  for (let i = 0; win && i < 600; i++) {
    area = doc.querySelector<HTMLTextAreaElement>('textarea#composer-input');
    if (area && !area.disabled) break;
    await new Promise((r) => win.requestAnimationFrame(r));
  }
  if (!blob || !area) return;
  const dt = new DataTransfer();
  dt.items.add(new File([blob], name, { type: 'image/png' }));
  area.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
}

/**
 * A frame meter: a requestAnimationFrame loop counting frames and keeping
 * the longest gap between two of them (a stalled UI thread shows as a gap).
 */
export function startFrameMeter(win: Pick<Window, 'requestAnimationFrame' | 'cancelAnimationFrame'>): () => FrameStats {
  let frames = 0;
  let maxGap = 0;
  let last: number | null = null;
  let handle = 0;
  const tick = (now: number) => {
    if (last !== null) maxGap = Math.max(maxGap, now - last);
    last = now;
    frames++;
    handle = win.requestAnimationFrame(tick);
  };
  handle = win.requestAnimationFrame(tick);
  return () => {
    win.cancelAnimationFrame(handle);
    return { frames, max_gap_ms: maxGap };
  };
}

interface HookWindow {
  go?: { smoketest?: { Page?: { TestReport?: (r: PageReport) => Promise<boolean> } } };
  runtime?: { EventsOn?: (name: string, cb: (...data: unknown[]) => void) => () => void };
}

/** The rendered transcript of doc: the open session, whether a turn shows as running, the messages in order. */
export function readTranscript(doc: Document, hash: string): Omit<PageReport, 'kind' | 'page_id'> {
  const m = /^#\/s\/([^/?#]+)$/.exec(hash);
  const rows = Array.from(doc.querySelectorAll<HTMLElement>('.msg-list article.msg'));
  const index = (el: HTMLElement) => Number(el.closest('[data-index]')?.getAttribute('data-index') ?? 0);
  rows.sort((a, b) => index(a) - index(b));
  return {
    session_id: m ? decodeURIComponent(m[1]!) : '',
    running: doc.querySelector('[data-testid="running"]') !== null,
    messages: rows.map((el) => {
      const outcome = el.querySelector('[data-testid="turn-outcome"]');
      const m: RenderedMessage = {
        role: /\bmsg-(user|assistant|toolResult)\b/.exec(el.className)?.[1] ?? '',
        status: el.getAttribute('data-status') ?? '',
        text: Array.from(el.querySelectorAll('.msg-user-text, .md, .tool-output-text'))
          .map((n) => n.textContent ?? '')
          .join(''),
      };
      if (outcome) {
        m.outcome = outcome.getAttribute('data-status') ?? '';
        m.retry = outcome.querySelector('.turn-retry') !== null;
      }
      const images = Array.from(el.querySelectorAll<HTMLImageElement>('[data-testid="attached-image"] img'));
      if (images.length > 0) {
        m.images = images.length;
        m.images_loaded = images.filter((i) => i.getAttribute('data-loaded') === 'true').length;
      }
      const files = Array.from(el.querySelectorAll('[data-testid="attached-file"]')).map((f) => (f.textContent ?? '').trim());
      if (files.length > 0) m.files = files;
      return m;
    }),
    composer_attachments: Array.from(doc.querySelectorAll('[data-testid="pending-attachment"]')).map((p) => p.getAttribute('data-state') ?? ''),
    ...(doc.querySelector('[data-testid="quit-confirm"]') ? { quit_prompt: true } : {}),
    ...(doc.querySelector('.ah-app[data-ready="true"]') ? { ready: true } : {}),
    ...(doc.querySelector('.modal h2') ? { dialog: doc.querySelector('.modal h2')?.textContent ?? '' } : {}),
    ...(doc.documentElement.style.getPropertyValue('zoom') ? { zoom: doc.documentElement.style.getPropertyValue('zoom') } : {}),
    ...(doc.defaultView ? { width: doc.defaultView.innerWidth } : {}),
    ...(doc.querySelector('[data-testid="startup-error"]') ? { startup_error: doc.querySelector('[data-testid="startup-error"] .startup-error-text')?.textContent ?? '' } : {}),
  };
}

/** Counts whitespace-separated words without splitting s (no garbage for a huge text). */
export function countWords(s: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const space = c === 32 || (c >= 9 && c <= 13) || c === 160;
    if (!space && !inWord) n++;
    inWord = !space;
  }
  return n;
}

/** r with each message's text replaced by its word count. */
function wordsOnly(r: PageReport): PageReport {
  return { ...r, messages: r.messages.map((m) => ({ ...m, text: '', words: countWords(m.text) })) };
}

function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  return c?.randomUUID ? c.randomUUID() : `page-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/**
 * Installs the hooks in win (the Wails window). Reports are sent one at a
 * time, in order: a change while one is in flight is sent, as the latest
 * state, once it has been delivered.
 */
export function installTestHooks(win: Window = window): void {
  const w = win as unknown as HookWindow;
  const send = w.go?.smoketest?.Page?.TestReport;
  const on = w.runtime?.EventsOn;
  if (typeof send !== 'function' || typeof on !== 'function') return;
  const pageId = randomId();
  const current = (kind: PageReport['kind']): PageReport => ({ kind, page_id: pageId, ...readTranscript(win.document, win.location.hash) });

  let active = false;
  let inFlight = false;
  let dirty = false;
  let last = '';
  let frame: number | null = null;
  let observer: MutationObserver | null = null;
  let stopMeter: (() => FrameStats) | null = null;
  const flush = (force: boolean) => {
    if (!active) return;
    if (force) last = '';
    if (inFlight) {
      dirty = true;
      return;
    }
    const r = current('transcript');
    const key = JSON.stringify(r);
    if (!force && key === last) return;
    last = key;
    inFlight = true;
    send(r)
      .catch((err: unknown) => console.error('TestReport failed', err))
      .finally(() => {
        inFlight = false;
        if (dirty) {
          dirty = false;
          flush(false);
        }
      });
  };
  const schedule = () => {
    if (frame !== null) return;
    frame = win.requestAnimationFrame(() => {
      frame = null;
      flush(false);
    });
  };

  // The listener is registered before the load is reported, so a command
  // sent in answer to "loaded" is never missed.
  const off = on(TEST_EVENT, (data: unknown) => {
    const c = data as TestCommand;
    if (c?.cmd === 'open' && typeof c.session_id === 'string') win.location.hash = `#/s/${encodeURIComponent(c.session_id)}`;
    else if (c?.cmd === 'transcript') flush(true);
    else if (c?.cmd === 'paint') win.requestAnimationFrame(() => win.requestAnimationFrame(() => void send(c.words ? wordsOnly(current('painted')) : current('painted'))));
    else if (c?.cmd === 'click' && typeof c.selector === 'string') win.document.querySelector<HTMLElement>(c.selector)?.click();
    else if (c?.cmd === 'fetch' && typeof c.url === 'string') void win.fetch(c.url).catch(() => undefined);
    else if (c?.cmd === 'paste' && typeof c.name === 'string') void pasteImage(win.document, c.name, c.width, c.height);
    else if (c?.cmd === 'quiet') {
      observer?.disconnect();
      win.removeEventListener('hashchange', schedule);
    } else if (c?.cmd === 'frames' && c.on) {
      stopMeter?.();
      stopMeter = startFrameMeter(win);
    } else if (c?.cmd === 'frames' && !c.on && stopMeter) {
      const stats = stopMeter();
      stopMeter = null;
      void send({ ...current('frames'), messages: [], frame_stats: stats });
    }
  });
  send(current('loaded')).then(
    (enabled) => {
      if (!enabled) return off();
      active = true;
      observer = new MutationObserver(schedule);
      observer.observe(win.document.documentElement, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['data-status', 'data-testid', 'data-state', 'data-loaded', 'data-ready', 'style'] });
      win.addEventListener('hashchange', schedule);
      schedule();
    },
    () => off(),
  );
}
