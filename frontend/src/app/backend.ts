// Backend: how the page reaches Go. In the Wails window the bound App
// methods (frontend/wailsjs); in the browser dashboard the HTTP listener,
// authenticated by the cookie set on first load.
import { FrontendReady, Info } from '../../wailsjs/go/app/App';
import { parseInfo, type AppInfo, type ReadyReport } from './info';

export interface Backend {
  /** "wails" in the desktop window, "http" in the browser dashboard. */
  readonly kind: 'wails' | 'http';
  info(): Promise<AppInfo>;
  /** Tells Go the first window has rendered (a no-op in the browser). */
  ready(report: ReadyReport): Promise<void>;
}

interface WailsWindow {
  go?: { app?: { App?: Record<string, unknown> } };
}

/** True when the page runs inside the Wails webview with the App bound. */
export function inWails(win: unknown): boolean {
  const app = (win as WailsWindow).go?.app?.App;
  return typeof app?.['Info'] === 'function';
}

/** The Wails backend: bound App.Info and App.FrontendReady. */
export const wailsBackend: Backend = {
  kind: 'wails',
  async info() {
    return parseInfo(await Info());
  },
  async ready(report) {
    await FrontendReady(report);
  },
};

/** An HTTP backend against the dashboard at base ("" = same origin). */
export function httpBackend(fetchFn: typeof fetch, base = ''): Backend {
  return {
    kind: 'http',
    async info() {
      const res = await fetchFn(`${base}/api/info`, {
        credentials: 'same-origin',
        headers: { Accept: 'application/json' },
      });
      if (!res.ok) {
        throw new Error(`GET /api/info: ${res.status} ${res.statusText}`.trim());
      }
      return parseInfo(await res.json());
    },
    async ready() {},
  };
}

/** Picks the backend for this page. */
export function detectBackend(win: Window): Backend {
  return inWails(win) ? wailsBackend : httpBackend(win.fetch.bind(win));
}
