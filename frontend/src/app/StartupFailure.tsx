// Shown instead of the chat when Agent Hub could not start its hub (a
// settings file it cannot read, a data dir it cannot use, a dashboard port
// in use): what went wrong and what to do. A desktop launch has no
// terminal, so this is where the person learns it.

import type { AppInfo } from "./info";

/** The start-up failure screen. */
export function StartupFailure({ info }: { info: AppInfo }) {
  return (
    <main className="startup-failure" role="alert" data-testid="startup-error" aria-labelledby="startup-title">
      <h1 id="startup-title">Agent Hub could not start</h1>
      <p className="startup-error-text">{info.startup_error}</p>
      {info.startup_hint && <p>{info.startup_hint}</p>}
      <p className="muted">
        Data folder: <code>{info.data_dir}</code> · version {info.version}. Close this window when done.
      </p>
    </main>
  );
}
