// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from '../App';
import { httpBackend, inWails, type Backend } from './backend';
import type { AppInfo, ReadyReport } from './info';

declare global {
  var IS_REACT_ACT_ENVIRONMENT: boolean;
}
globalThis.IS_REACT_ACT_ENVIRONMENT = true;

const info: AppInfo = {
  name: 'Agent Hub',
  version: '0.9.0',
  mode: 'desktop',
  data_dir: '/data/agenthub',
  provider: { configured: false, providers: [], sources: [] },
  model: '',
  dashboard_url: '',
};

/** A backend over fixed data that records ready reports and resolves a promise on the first. */
function recordingBackend(data: AppInfo) {
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
  };
  return { backend, reports, firstReady };
}

let container: HTMLDivElement;
let root: Root;
beforeEach(() => {
  container = document.createElement('div');
  document.body.appendChild(container);
  root = createRoot(container);
});
afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

function text(testId: string): string {
  return container.querySelector(`[data-testid="${testId}"]`)?.textContent ?? '';
}

describe('App', () => {
  it('renders the first window and reports ready with what it shows', async () => {
    const { backend, reports, firstReady } = recordingBackend(info);
    await act(async () => root.render(<App backend={backend} />));
    await act(async () => firstReady);
    expect(container.querySelector('h1')?.textContent).toBe('Agent Hub');
    expect(text('version')).toBe('v0.9.0');
    expect(text('data-dir')).toBe('/data/agenthub');
    expect(text('provider')).toContain('Not configured');
    expect(text('provider')).toContain('ANTHROPIC_API_KEY');
    expect(text('dashboard')).toContain('off');
    expect(reports).toEqual([{ version: '0.9.0', data_dir: '/data/agenthub' }]);
  });

  it('shows the configured provider and the dashboard link', async () => {
    const { backend, firstReady } = recordingBackend({
      ...info,
      provider: { configured: true, providers: ['openai'], sources: ['openai: env OPENAI_BASE_URL'] },
      dashboard_url: 'http://127.0.0.1:8421/?token=t',
      model: 'openai:llama3.1',
    });
    await act(async () => root.render(<App backend={backend} />));
    await act(async () => firstReady);
    expect(text('provider')).toBe('● OpenAI-compatible (env OPENAI_BASE_URL)');
    expect(container.querySelector('a')?.getAttribute('href')).toBe('http://127.0.0.1:8421/?token=t');
    expect(text('model')).toBe('openai:llama3.1');
  });

  it('shows an error when the hub cannot be reached', async () => {
    const backend = httpBackend(() => Promise.resolve(new Response('no', { status: 401, statusText: 'Unauthorized' })));
    await act(async () => root.render(<App backend={backend} />));
    await act(async () => {});
    expect(container.querySelector('[role="alert"]')?.textContent).toContain('401 Unauthorized');
  });
});

describe('inWails', () => {
  it('detects the bound App', () => {
    expect(inWails({ go: { app: { App: { Info: () => 0 } } } })).toBe(true);
    expect(inWails({})).toBe(false);
  });
});
