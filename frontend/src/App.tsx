import { useEffect, useState } from 'react';
import type { Backend } from './app/backend';
import { InfoPanel } from './app/InfoPanel';
import type { AppInfo } from './app/info';

type LoadState = { kind: 'loading' } | { kind: 'error'; message: string } | { kind: 'ready'; info: AppInfo };

/** Waits for two animation frames: the rendered DOM has been painted. */
function afterPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
}

/** The application shell: loads Info from the backend, shows the first window, reports ready. */
export function App({ backend }: { backend: Backend }) {
  const [state, setState] = useState<LoadState>({ kind: 'loading' });

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
    let live = true;
    const { version, data_dir } = state.info;
    afterPaint()
      .then(() => (live ? backend.ready({ version, data_dir }) : undefined))
      .catch((err: unknown) => console.error('FrontendReady failed', err));
    return () => {
      live = false;
    };
  }, [backend, state]);

  return (
    <main className="ah-app" data-backend={backend.kind}>
      {state.kind === 'loading' && <p className="ah-muted">Loading…</p>}
      {state.kind === 'error' && (
        <p role="alert" className="ah-error">
          Could not reach the hub: {state.message}
        </p>
      )}
      {state.kind === 'ready' && <InfoPanel info={state.info} />}
    </main>
  );
}
