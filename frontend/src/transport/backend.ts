// Backend: how the page reaches Go. In the Wails window the bound App
// methods (frontend/wailsjs) plus the wailsipc Bridge; in the browser
// dashboard the HTTP listener (POST /rpc, WebSocket streams), authenticated
// by the token the page was opened with (token.ts): Authorization: Bearer
// on every request, single-use attach tokens for WebSockets, signed URLs
// for what an <img> loads. No cookie is involved.
import { AnswerQuit, ChooseFolder, FrontendReady, Info, OpenLink, UploadAttachment } from '../../wailsjs/go/app/App';
import type { AttachmentInfo } from '../protocol';
import { EventsOn, WindowSetTitle } from '../../wailsjs/runtime/runtime';
import type { QuitChoice } from '../app/QuitDialog';
import { WailsTransport, isWailsAvailable, type WailsBridgeLike } from './wails';
import { RpcClient, bridgeChannel, httpChannel, type RequestBridge } from './rpc';
import type { Transport, TransportHandlers } from './types';
import { WsTransport } from './ws';
import { gatewayBackend, servedByGateway } from './gatewaybackend';
import { createHubClient, type HubClient } from './hub';
import { parseInfo, type AppInfo, type ReadyReport } from '../app/info';
import { bearerHeader, sessionStorageOf, takeDashboardToken } from './token';
import type { SignedUrl } from '../chat/resources';
import type { PendingDevice } from './devices';

export interface Backend {
  /** "wails" in the desktop window, "http" in the browser dashboard, "gateway" in a page an Agent Hub gateway served. */
  readonly kind: 'wails' | 'http' | 'gateway';
  info(): Promise<AppInfo>;
  /** Tells Go the first window has rendered (a no-op in the browser). */
  ready(report: ReadyReport): Promise<void>;
  /** The hub RPC client. */
  hub(): HubClient;
  /** A new transport for one session's event stream. */
  transport(): Transport;
  /**
   * Opens a link in the system browser (the window); absent in the browser
   * dashboard, where links open in new tabs.
   */
  openLink?(url: string): Promise<void>;
  /** Sets the native window's title (the window; the browser's tab shows document.title). */
  setWindowTitle?(title: string): void;
  /**
   * Shows the native folder dialog (the window); resolves with the chosen
   * directory, or "" when cancelled. Absent in the browser, which types a path.
   */
  chooseFolder?(start: string): Promise<string>;
  /**
   * Uploads a pasted, dropped or chosen file for the next message (the
   * window: the bound App.UploadAttachment; the browser: POST /attachments).
   * Rejects with the hub's message when it refuses the file.
   */
  uploadAttachment(file: File): Promise<AttachmentInfo>;
  /**
   * A short-lived URL of a same-origin resource path ("/attachments/ID")
   * that an <img src> or <a href> can load without headers (the browser:
   * POST /signed-urls). Absent in the window, whose asset server serves the
   * path itself.
   */
  signUrl?(path: string): Promise<SignedUrl>;
  /**
   * Calls cb when the window is being closed while turns run (the window
   * only); returns the unsubscribe. The page then answers with answerQuit.
   */
  onQuitRequest?(cb: (running: number) => void): () => void;
  /** Answers the quit confirmation: quit, cancel the turns and quit, or keep running. */
  answerQuit?(choice: QuitChoice): Promise<void>;
  /** Calls cb whenever the devices waiting for confirmation change (the window only: app.DevicesEvent); returns the unsubscribe. */
  onDevicesPending?(cb: (pending: PendingDevice[]) => void): () => void;
  /** Calls cb with each native menu action for the page (the window only); returns the unsubscribe. */
  onMenu?(cb: (action: string) => void): () => void;
}

/** The Wails event of the native menu's page actions (app.MenuEvent). */
export const MENU_EVENT = 'app:menu';

/** The Wails event listing the devices waiting for confirmation (app.DevicesEvent). */
export const DEVICES_EVENT = 'app:devicesPending';

/** The Wails event asking to confirm quitting (app.QuitEvent). */
export const QUIT_EVENT = 'app:confirmQuit';

/** The file's bytes as base64 (for the window's bound upload). */
export async function fileBase64(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** POSTs a file to the dashboard's /attachments; the error body's message becomes the rejection. */
export async function postAttachment(fetchFn: typeof fetch, base: string, file: File, token: string | null = null): Promise<AttachmentInfo> {
  const res = await fetchFn(`${base}/attachments?name=${encodeURIComponent(file.name)}`, {
    method: 'POST',
    credentials: 'omit',
    headers: { ...bearerHeader(token), 'Content-Type': file.type || 'application/octet-stream', Accept: 'application/json' },
    body: file,
  });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const msg = (body as { error?: { message?: unknown } } | null)?.error?.message;
    throw new Error(typeof msg === 'string' && msg !== '' ? msg : `uploading ${file.name}: ${res.status} ${res.statusText}`.trim());
  }
  return body as AttachmentInfo;
}

interface WailsWindow {
  go?: { app?: { App?: Record<string, unknown> }; wailsipc?: { Bridge?: WailsBridgeLike & RequestBridge } };
}

/** True when the page runs inside the Wails webview with the App bound. */
export function inWails(win: unknown): boolean {
  const app = (win as WailsWindow).go?.app?.App;
  return typeof app?.['Info'] === 'function';
}

/**
 * A transport that cannot connect (the Wails bridge is not bound in this
 * build): it reports why once and stays disconnected.
 */
export class UnavailableTransport implements Transport {
  constructor(private readonly why: string) {}
  /** Reports the reason as an error frame and the state as disconnected. */
  connect(_sessionId: string, h: TransportHandlers): void {
    h.frame({ type: 'error', code: 'unavailable', message: this.why });
    h.state('disconnected');
  }
  /** Nothing to close. */
  close(): void {}
}

function bridgeOf(win: unknown): (WailsBridgeLike & RequestBridge) | undefined {
  return (win as WailsWindow).go?.wailsipc?.Bridge;
}

/**
 * The UI subscribes to every event type: preset:chat lacks llm.call_* (usage,
 * context size, provider errors) and session.* (title, totals).
 */
export const UI_FILTER = 'preset:full' as const;

const NO_BRIDGE = 'the hub is not connected to this window (wailsipc.Bridge is not bound)';

/** The Wails backend: bound App.Info / App.FrontendReady and the wailsipc Bridge. */
export function wailsBackend(win: unknown): Backend {
  let hub: HubClient | null = null;
  return {
    kind: 'wails',
    async info() {
      return parseInfo(await Info());
    },
    async ready(report) {
      await FrontendReady(report);
    },
    hub() {
      hub ??= createHubClient(new RpcClient(bridgeChannel(() => bridgeOf(win), NO_BRIDGE)));
      return hub;
    },
    transport() {
      return isWailsAvailable() ? new WailsTransport({ filter: UI_FILTER }) : new UnavailableTransport(NO_BRIDGE);
    },
    async openLink(url) {
      await OpenLink(url);
    },
    chooseFolder(start) {
      return ChooseFolder(start);
    },
    async uploadAttachment(file) {
      return (await UploadAttachment(file.name, file.type, await fileBase64(file))) as AttachmentInfo;
    },
    onQuitRequest(cb) {
      return EventsOn(QUIT_EVENT, (data: unknown) => {
        const n = (data as { running?: unknown } | null)?.running;
        cb(typeof n === 'number' && n > 0 ? n : 1);
      });
    },
    answerQuit(choice) {
      return AnswerQuit(choice);
    },
    onDevicesPending(cb) {
      return EventsOn(DEVICES_EVENT, (data: unknown) => cb(Array.isArray(data) ? (data as PendingDevice[]) : []));
    },
    onMenu(cb) {
      return EventsOn(MENU_EVENT, (data: unknown) => {
        const a = (data as { action?: unknown } | null)?.action;
        if (typeof a === 'string') cb(a);
      });
    },
    setWindowTitle(title) {
      try {
        WindowSetTitle(title);
      } catch (err) {
        console.debug('[app] WindowSetTitle failed', err);
      }
    },
  };
}

/** What the page says when the hub refuses its token. */
export const TOKEN_REFUSED =
  'the dashboard token is missing or wrong: open the dashboard with the address the hub printed (the url in DATA_DIR/dashboard.json)';

/** POSTs a path to /signed-urls; resolves with its signed URL. */
export async function postSignUrl(fetchFn: typeof fetch, base: string, token: string | null, path: string): Promise<SignedUrl> {
  const res = await fetchFn(`${base}/signed-urls`, {
    method: 'POST',
    credentials: 'omit',
    headers: { ...bearerHeader(token), 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ path }),
  });
  if (!res.ok) throw new Error(`POST /signed-urls: ${res.status} ${res.statusText}`.trim());
  const body = (await res.json()) as { url?: unknown; expires_at?: unknown };
  if (typeof body.url !== 'string' || typeof body.expires_at !== 'string') throw new Error('POST /signed-urls: no url in the answer');
  return { url: `${base}${body.url}`, expiresAt: Date.parse(body.expires_at) };
}

/** An HTTP backend against the dashboard at base ("" = same origin), authenticated by token. */
export function httpBackend(fetchFn: typeof fetch, base = '', token: string | null = null): Backend {
  let hub: HubClient | null = null;
  return {
    kind: 'http',
    async info() {
      const res = await fetchFn(`${base}/api/info`, {
        credentials: 'omit',
        headers: { ...bearerHeader(token), Accept: 'application/json' },
      });
      if (!res.ok) {
        const status = `GET /api/info: ${res.status} ${res.statusText}`.trim();
        throw new Error(res.status === 401 ? `${status} — ${TOKEN_REFUSED}` : status);
      }
      return parseInfo(await res.json());
    },
    async ready() {},
    hub() {
      hub ??= createHubClient(new RpcClient(httpChannel(fetchFn, base, token)));
      return hub;
    },
    transport() {
      return new WsTransport({ baseUrl: base, token, fetch: fetchFn, filter: UI_FILTER });
    },
    uploadAttachment(file) {
      return postAttachment(fetchFn, base, file, token);
    },
    signUrl(path) {
      return postSignUrl(fetchFn, base, token, path);
    },
  };
}

/** Picks the backend for this page; in the browser it takes the dashboard token from the address (token.ts). */
export function detectBackend(win: Window): Backend {
  if (inWails(win)) return wailsBackend(win);
  if (servedByGateway(win.document)) return gatewayBackend(win);
  return httpBackend(win.fetch.bind(win), '', takeDashboardToken(win.location, win.history, sessionStorageOf(win)));
}
