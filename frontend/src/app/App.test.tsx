// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../App';
import { sessionFromHash } from './workspace';
import { TRACES } from '../state/traces';
import { httpBackend, inWails, type Backend } from '../transport/backend';
import { FakeHub, ScriptedTransport, session } from '../testing/fakes';
import type { AppInfo, ReadyReport } from './info';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

// jsdom has no layout: give the virtualised list a viewport so rows render.
Object.defineProperties(HTMLElement.prototype, {
  clientHeight: { configurable: true, get: () => 800 },
  offsetHeight: { configurable: true, get: () => 800 },
  clientWidth: { configurable: true, get: () => 1000 },
  offsetWidth: { configurable: true, get: () => 1000 },
});

const info: AppInfo = {
  name: 'Agent Hub',
  version: '0.9.0',
  mode: 'desktop',
  data_dir: '/data/agenthub',
  provider: { configured: false, providers: [], sources: [] },
  model: '',
  workspace: '/home/u/proj',
  dashboard_url: '',
};

const plain = TRACES['plain-turn']!;

/** A backend over fixed data and a fake hub; resolves firstReady on the first ready report. */
function fakeBackend(data: AppInfo, hub = new FakeHub()) {
  const reports: ReadyReport[] = [];
  let signal: () => void = () => {};
  const firstReady = new Promise<void>((r) => (signal = r));
  const backend: Backend = {
    kind: 'wails',
    info: () => Promise.resolve(data),
    ready: (r) => {
      reports.push(r);
      signal();
      return Promise.resolve();
    },
    hub: () => hub,
    transport: () => new ScriptedTransport((id) => (id === plain.sessionId ? plain.frames : [])),
    uploadAttachment: (file) => Promise.reject(new Error(`no uploads in this test (${file.name})`)),
  };
  return { backend, reports, firstReady, hub };
}

let container: HTMLDivElement;
let root: Root;
beforeEach(() => {
  window.history.replaceState(null, '', '/');
  container = document.createElement('div');
  document.body.appendChild(container);
  root = createRoot(container);
});
afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

const q = (sel: string) => container.querySelector(sel);

describe('App', () => {
  it('leads to Settings on first run (no terminal needed) and reports ready', async () => {
    const { backend, reports, firstReady } = fakeBackend(info);
    await act(async () => root.render(<App backend={backend} />));
    await act(async () => firstReady);
    const help = q('[data-testid="setup-help"]')?.textContent ?? '';
    expect(help).toContain('http://127.0.0.1:11434/v1');
    expect(help).toContain('Test connection');
    expect(help).not.toContain('ANTHROPIC_API_KEY'); // no environment variables or flags for a desktop-menu start
    expect(q('.welcome-actions .btn-primary')?.textContent).toBe('Open Settings');
    expect(q('.side-empty')?.textContent).toBe('No sessions yet.');
    expect(reports).toEqual([{ version: '0.9.0', data_dir: '/data/agenthub' }]);
  });

  it('opens the newest session, renders its finished conversation, then reports ready', async () => {
    const hub = new FakeHub();
    hub.sessions = [session(plain.sessionId, { title: 'Demo' })];
    const { backend, reports, firstReady } = fakeBackend({ ...info, provider: { configured: true, providers: ['anthropic'], sources: ['anthropic: env ANTHROPIC_API_KEY'] } }, hub);
    await act(async () => root.render(<App backend={backend} />));
    await act(async () => firstReady);
    expect(reports).toHaveLength(1);
    expect(q('.chat-title h1')?.textContent).toBe('Demo');
    expect(q('.side-row.is-selected .side-title')?.textContent).toBe('Demo');
    expect(q('.msg-user .msg-user-text')?.textContent).toBe('Say hello in markdown');
    expect(container.querySelectorAll('.msg-assistant').length).toBe(1);
    expect(q('.msg-assistant .msg-usage')?.textContent).toMatch(/in · .* out · \$/);
    expect(q('[data-testid="session-usage"]')).not.toBeNull();
    expect(window.location.hash).toBe(`#/s/${plain.sessionId}`);
  });

  it('shows an error when the hub cannot be reached', async () => {
    const backend = httpBackend(() => Promise.resolve(new Response('no', { status: 401, statusText: 'Unauthorized' })));
    await act(async () => root.render(<App backend={backend} />));
    await act(async () => {});
    expect(container.querySelector('[role="alert"]')?.textContent).toContain('401 Unauthorized');
  });
});

describe('helpers', () => {
  it('detects the bound App', () => {
    expect(inWails({ go: { app: { App: { Info: () => 0 } } } })).toBe(true);
    expect(inWails({})).toBe(false);
  });
  it('reads the session from the hash', () => {
    expect(sessionFromHash('#/s/01ABC')).toBe('01ABC');
    expect(sessionFromHash('#/x')).toBeNull();
    expect(sessionFromHash('')).toBeNull();
  });
});
