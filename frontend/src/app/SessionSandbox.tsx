// The open session's bash sandbox options, in Settings: reads inside the
// workspace only, network off (setSandboxOptions; docs/permissions.md).
// Where the kernel enforces nothing the toggles are off and say why.

import { useState } from "react";
import type { Session } from "../protocol";
import type { HubClient } from "../transport/hub";

/** Whether the settings' sandbox line says bash is confined at all. */
export function sandboxEnforced(line: string | undefined): boolean {
  return !!line && !line.includes("nothing enforced") && !line.includes("no sandbox on this system") && !line.startsWith("bash sandbox: off");
}

/** Props of SessionSandbox. */
export interface SessionSandboxProps {
  hub: HubClient;
  session: Session;
  /** The settings' sandbox line (what this kernel enforces). */
  line: string | undefined;
}

/** Two toggles for the session's bash sandbox. */
export function SessionSandbox({ hub, session, line }: SessionSandboxProps) {
  const [readsInside, setReadsInside] = useState(session.sandbox_read_workspace_only ?? false);
  const [network, setNetwork] = useState(!(session.sandbox_no_network ?? false));
  const [status, setStatus] = useState("");
  const enforced = sandboxEnforced(line);

  const apply = (nextReads: boolean, nextNetwork: boolean) => {
    setStatus("Saving…");
    hub.setSandboxOptions(session.session_id, nextReads, nextNetwork).then(
      (rec) => {
        setReadsInside(rec.sandbox_read_workspace_only ?? false);
        setNetwork(!(rec.sandbox_no_network ?? false));
        setStatus("Applies to this session's next command.");
      },
      (err: unknown) => setStatus(`Could not change the sandbox: ${err instanceof Error ? err.message : String(err)}`),
    );
  };

  return (
    <div className="settings-block" data-testid="session-sandbox">
      <span className="settings-block-title">This session's commands</span>
      <label className="check">
        <input type="checkbox" checked={readsInside} disabled={!enforced} onChange={(e) => apply(e.target.checked, network)} />
        Read only inside the workspace
      </label>
      <label className="check">
        <input type="checkbox" checked={network} disabled={!enforced} onChange={(e) => apply(readsInside, e.target.checked)} />
        Network
      </label>
      {!enforced && <p className="muted">Not enforced on this system — approvals are the guard.</p>}
      {status && (
        <p className="muted" role="status">
          {status}
        </p>
      )}
    </div>
  );
}
