import { useCallback, useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import type { Backend } from './app/backend';
import { ChatPane } from './app/ChatPane';
import { useApprovalAttention } from './app/attention';
import { AppController } from './app/controller';
import type { AppInfo } from './app/info';
import { installLinkHandler } from './app/links';
import { SettingsDialog } from './app/SettingsDialog';
import { Sidebar } from './app/Sidebar';
import { applyTheme, loadTheme, nextTheme, type Theme } from './app/theme';
import { Welcome } from './app/Welcome';

type LoadState = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; info: AppInfo };

/** How long FrontendReady waits for the open session to settle (snapshot shown, no turn running). */
export const READY_SETTLE_MS = 20_000;

/** Waits for two animation frames: the rendered DOM has been painted. */
function afterPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

/** The session id in location.hash ("#/s/ID"), or null. */
export function sessionFromHash(hash: string): string | null {
  const m = /^#\/s\/([^/?#]+)$/.exec(hash);
  return m ? decodeURIComponent(m[1]!) : null;
}

function setHash(id: string | null): void {
  const next = id ? `#/s/${encodeURIComponent(id)}` : '';
  if (window.location.hash === next) return;
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search + next);
}

/** The chat application once the hub answered: sidebar, chat, settings. */
function Workspace({ ctl, info, backend }: { ctl: AppController; info: AppInfo; backend: Backend }) {
  const selected = useStore(ctl.store, (s) => s.ui.selectedId);
  const notice = useStore(ctl.store, (s) => s.ui.notice);
  const [settings, setSettings] = useState(false);
  const [theme, setTheme] = useState<Theme>(loadTheme);
  const closeSettings = useCallback(() => setSettings(false), []);
  const setWindowTitle = useMemo(() => backend.setWindowTitle?.bind(backend), [backend]);
  useApprovalAttention(ctl, setWindowTitle);
  useEffect(() => applyTheme(theme), [theme]);
  useEffect(() => {
    const open = backend.openLink?.bind(backend);
    if (!open) return undefined;
    return installLinkHandler(document, open, (text) => ctl.notify(text));
  }, [backend, ctl]);
  useEffect(() => {
    const onHash = () => {
      const id = sessionFromHash(window.location.hash);
      if (id) ctl.open(id);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [ctl]);
  return (
    <>
      <Sidebar ctl={ctl} onSettings={() => setSettings(true)} theme={theme} onTheme={() => setTheme(nextTheme(theme))} />
      <main className="main">
        {notice && (
          <div className="notice" role="alert">
            <span>{notice}</span>
            <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => ctl.notify(null)}>
              ×
            </button>
          </div>
        )}
        {!info.provider.configured && selected && (
          <div className="notice notice-warn" data-testid="provider-warning">
            No LLM provider is configured: set <code>ANTHROPIC_API_KEY</code>, or <code>OPENAI_BASE_URL</code> (e.g.{' '}
            <code>http://127.0.0.1:11434/v1</code> with <code>--model openai:llama3.1</code>), or open{' '}
            <button type="button" className="link-btn" onClick={() => setSettings(true)}>
              Settings
            </button>
            .
          </div>
        )}
        {selected ? (
          <ChatPane key={selected} ctl={ctl} sessionId={selected} defaultModel={info.model} />
        ) : (
          <Welcome info={info} onNew={() => void ctl.newSession()} onSettings={() => setSettings(true)} />
        )}
      </main>
      {settings && <SettingsDialog hub={backend.hub()} ctl={ctl} info={info} onClose={closeSettings} />}
    </>
  );
}

/** The application shell: loads Info, starts the controller, reports ready once the first view settled. */
export function App({ backend }: { backend: Backend }) {
  const [state, setState] = useState<LoadState>({ kind: 'loading' });
  const [ctl, setCtl] = useState<AppController | null>(null);

  useEffect(() => {
    let live = true;
    backend.info().then(
      (info) => live && setState({ kind: 'ready', info }),
      (err: unknown) => live && setState({ kind: 'error', message: err instanceof Error ? err.message : String(err) }),
    );
    return () => {
      live = false;
    };
  }, [backend]);

  useEffect(() => {
    if (state.kind !== 'ready') return;
    const c = new AppController({ hub: backend.hub(), transport: () => backend.transport(), onSelect: setHash });
    setCtl(c);
    void c.start(sessionFromHash(window.location.hash));
    return () => c.dispose();
  }, [backend, state.kind]);

  useEffect(() => {
    if (state.kind !== 'ready' || !ctl) return;
    let live = true;
    const { version, data_dir } = state.info;
    afterPaint()
      .then(() => ctl.settled(READY_SETTLE_MS))
      .then(afterPaint)
      .then(() => (live ? backend.ready({ version, data_dir }) : undefined))
      .catch((err: unknown) => console.error('FrontendReady failed', err));
    return () => {
      live = false;
    };
  }, [backend, state, ctl]);

  return (
    <div className="ah-app" data-backend={backend.kind} data-ready={ctl ? 'true' : undefined}>
      {state.kind === 'loading' && <p className="ah-center muted">Loading…</p>}
      {state.kind === 'error' && (
        <p role="alert" className="ah-center ah-error">
          Could not reach the hub: {state.message}
        </p>
      )}
      {state.kind === 'ready' && ctl && <Workspace ctl={ctl} info={state.info} backend={backend} />}
    </div>
  );
}
