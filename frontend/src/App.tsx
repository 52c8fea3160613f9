import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { Backend } from './transport/backend';
import { ChatPane } from './app/ChatPane';
import { useAttention } from './app/attention';
import { HelpDialog } from './app/HelpDialog';
import { QuitDialog } from './app/QuitDialog';
import { Icon } from './app/Icon';
import { NewSession, lastFolder } from './app/NewSession';
import { COMPOSER_ID } from './chat';
import { AppController } from './app/controller';
import type { AppInfo } from './app/info';
import { SettingsDialog } from './app/settings/SettingsDialog';
import { Sidebar } from './app/Sidebar';
import { applyTheme, loadTheme, nextTheme, type Theme } from './app/theme';
import { Welcome } from './app/Welcome';
import { sessionFromHash, useMenuActions, usePageWiring, useQuitQuestion, useShortcuts, type MenuRequest } from './app/workspace';
import { StartupFailure } from './app/StartupFailure';
import { UrlSigner, UrlSignerContext } from './chat/resources';

type LoadState = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; info: AppInfo };

/** How long FrontendReady waits for the open session to settle (snapshot shown, no turn running). */
export const READY_SETTLE_MS = 20_000;

/** Waits for two animation frames: the rendered DOM has been painted. */
function afterPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

function setHash(id: string | null): void {
  const next = id ? `#/s/${encodeURIComponent(id)}` : '';
  if (window.location.hash === next) return;
  window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search + next);
}

/** Below this width the sidebar overlays the chat and starts hidden. */
export const NARROW_PX = 760;
const SIDEBAR_KEY = "agenthub.sidebar";

function isNarrow(): boolean {
  return typeof window.matchMedia === "function" && window.matchMedia(`(max-width: ${NARROW_PX}px)`).matches;
}

/** The sidebar's open state: remembered on wide windows, hidden at first on narrow ones. */
function useSidebar(): [boolean, (open: boolean) => void, boolean] {
  const [narrow, setNarrow] = useState(isNarrow);
  const narrowAtMount = useRef(narrow);
  const [open, setOpenState] = useState(() => !isNarrow() && localStorage.getItem(SIDEBAR_KEY) !== "closed");
  useEffect(() => {
    if (typeof window.matchMedia !== "function") return undefined;
    const mq = window.matchMedia(`(max-width: ${NARROW_PX}px)`);
    const on = () => {
      setNarrow(mq.matches);
      setOpenState(!mq.matches && localStorage.getItem(SIDEBAR_KEY) !== "closed");
    };
    mq.addEventListener("change", on);
    if (mq.matches !== narrowAtMount.current) on(); // the width changed between the first render and now
    return () => mq.removeEventListener("change", on);
  }, []);
  const setOpen = useCallback(
    (v: boolean) => {
      setOpenState(v);
      if (!narrow) localStorage.setItem(SIDEBAR_KEY, v ? "open" : "closed");
    },
    [narrow],
  );
  return [open, setOpen, narrow];
}

/** The chat application once the hub answered: sidebar, chat, settings. */

function Workspace({ ctl, info: firstInfo, backend, onLayout, menuAction }: { ctl: AppController; info: AppInfo; backend: Backend; onLayout: (cls: string) => void; menuAction: MenuRequest | null }) {
  const selected = useStore(ctl.store, (st) => st.ui.selectedId);
  const draft = useStore(ctl.store, (st) => st.ui.draft);
  const [info, setInfo] = useState(firstInfo);
  // No default folder (a desktop launch without --workspace): offer the one chosen last this launch.
  const recentFolder = useStore(ctl.store, (st) => (info.workspace ? "" : lastFolder(st.sessions.records)));
  const [settings, setSettings] = useState(false);
  const [help, setHelp] = useState(false);
  const [theme, setTheme] = useState<Theme>(loadTheme);
  const [sidebarOpen, setSidebarOpen, narrow] = useSidebar();
  const searchRef = useRef<HTMLInputElement>(null);
  // Settings may have configured a provider: the banners follow at once.
  const closeSettings = useCallback(() => {
    setSettings(false);
    backend.info().then(setInfo, (err: unknown) => console.debug("[app] info after settings", err));
    void ctl.loadModels(); // the picker lists the providers configured now
  }, [backend, ctl]);
  const setWindowTitle = useMemo(() => backend.setWindowTitle?.bind(backend), [backend]);
  const chooseFolder = useMemo(() => backend.chooseFolder?.bind(backend), [backend]);
  const upload = useMemo(() => backend.uploadAttachment.bind(backend), [backend]);
  const [quitAsk, answerQuit] = useQuitQuestion(backend, ctl);
  const panels = { narrow, sidebarOpen, setSidebarOpen, setSettings, setHelp, searchRef };
  usePageWiring(backend, ctl);
  useShortcuts(ctl, panels);
  useMenuActions(ctl, menuAction, panels);
  useAttention(ctl, setWindowTitle);
  useEffect(() => applyTheme(theme), [theme]);
  useEffect(() => onLayout(`${sidebarOpen ? "layout-side-open" : "layout-side-closed"}${narrow ? " is-narrow" : ""}`), [sidebarOpen, narrow, onLayout]);
  const closeOverlay = useCallback(() => narrow && setSidebarOpen(false), [narrow, setSidebarOpen]);
  return (
    <>
      <a className="skip-link" href={`#${COMPOSER_ID}`} onClick={(e) => (e.preventDefault(), document.getElementById(COMPOSER_ID)?.focus())}>
        Skip to the message box
      </a>
      {sidebarOpen && (
        <Sidebar
          ctl={ctl}
          onSettings={() => setSettings(true)}
          theme={theme}
          onTheme={() => setTheme(nextTheme(theme))}
          onHelp={() => setHelp(true)}
          onCollapse={() => setSidebarOpen(false)}
          searchRef={searchRef}
          onNavigate={closeOverlay}
        />
      )}
      {sidebarOpen && narrow && <div className="side-backdrop" aria-hidden="true" onClick={() => setSidebarOpen(false)} />}
      <main className="main">
        {!sidebarOpen && (
          <button type="button" className="icon-btn side-expand" aria-label="Show the sidebar" title="Show the sidebar (Ctrl+B)" aria-controls="sidebar" onClick={() => setSidebarOpen(true)}>
            <Icon name="sidebar" />
          </button>
        )}
        <Notices ctl={ctl} providerMissing={!info.provider.configured && Boolean(selected || draft)} onSettings={() => setSettings(true)} />
        {selected ? (
          <ChatPane key={selected} ctl={ctl} sessionId={selected} defaultModel={info.model} chooseFolder={chooseFolder} upload={upload} />
        ) : draft ? (
          <NewSession ctl={ctl} defaultModel={info.model} defaultWorkspace={info.workspace || recentFolder} chooseFolder={chooseFolder} upload={upload} />
        ) : (
          <Welcome info={info} onNew={() => ctl.startDraft()} onSettings={() => setSettings(true)} />
        )}
      </main>
      {settings && <SettingsDialog hub={backend.hub()} ctl={ctl} info={info} onClose={closeSettings} />}
      {help && <HelpDialog info={info} onClose={() => setHelp(false)} />}
      {quitAsk !== null && <QuitDialog running={quitAsk} onAnswer={answerQuit} />}
    </>
  );
}

/** The page's notice, and the warning that no provider is set up yet. */
function Notices({ ctl, providerMissing, onSettings }: { ctl: AppController; providerMissing: boolean; onSettings: () => void }) {
  const notice = useStore(ctl.store, (st) => st.ui.notice);
  return (
    <>
      {notice && (
        <div className="notice" role="alert">
          <span>{notice}</span>
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => ctl.notify(null)}>
            <Icon name="close" size={14} />
          </button>
        </div>
      )}
      {providerMissing && (
        <div className="notice notice-warn" data-testid="provider-warning">
          No model provider is set up yet:{" "}
          <button type="button" className="link-btn" onClick={onSettings}>
            open Settings
          </button>{" "}
          and add an API key or a local server&apos;s address.
        </div>
      )}
    </>
  );
}

/** The application shell: loads Info, starts the controller, reports ready once the first view settled. */
export function App({ backend }: { backend: Backend }) {
  const [state, setState] = useState<LoadState>({ kind: 'loading' });
  const [ctl, setCtl] = useState<AppController | null>(null);
  const [menuAction, setMenuAction] = useState<MenuRequest | null>(null);

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

  const failed = state.kind === 'ready' && state.info.startup_error !== undefined;
  useEffect(() => {
    if (state.kind !== 'ready' || failed) return;
    const c = new AppController({ hub: backend.hub(), transport: () => backend.transport(), onSelect: setHash });
    // The menu is listened to before the app shows as started, so no action is lost.
    let seq = 0;
    const offMenu = backend.onMenu?.((action) => setMenuAction({ action, seq: ++seq }));
    setCtl(c);
    void c.start(sessionFromHash(window.location.hash));
    return () => {
      offMenu?.();
      c.dispose();
    };
  }, [backend, state.kind, failed]);

  // A window that shows why the app could not start is ready once painted.
  useEffect(() => {
    if (state.kind !== 'ready' || !failed) return;
    const { version, data_dir } = state.info;
    afterPaint()
      .then(() => backend.ready({ version, data_dir }))
      .catch((err: unknown) => console.error('FrontendReady failed', err));
  }, [backend, state, failed]);

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

  const [layout, setLayout] = useState('layout-side-open');
  // In the browser an <img> loads attachments by signed URL (it cannot send the token).
  const signer = useMemo(() => (backend.signUrl ? new UrlSigner(backend.signUrl.bind(backend)) : null), [backend]);
  return (
    <UrlSignerContext.Provider value={signer}>
      <div className={`ah-app ${layout}`} data-backend={backend.kind} data-ready={ctl ? 'true' : undefined}>
        {state.kind === 'loading' && <p className="ah-center muted">Loading…</p>}
        {state.kind === 'error' && (
          <p role="alert" className="ah-center ah-error">
            Could not reach the hub: {state.message}
          </p>
        )}
        {state.kind === 'ready' && state.info.startup_error !== undefined && <StartupFailure info={state.info} />}
        {state.kind === 'ready' && ctl && <Workspace ctl={ctl} info={state.info} backend={backend} onLayout={setLayout} menuAction={menuAction} />}
      </div>
    </UrlSignerContext.Provider>
  );
}
