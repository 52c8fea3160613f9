// What guards this machine: the bash sandbox and its protections here,
// the open session's sandbox, and where the API keys are kept.

import type { Session } from "../../protocol";
import type { HubClient, SettingsView } from "../../transport/hub";
import { SessionSandbox } from "../SessionSandbox";

/** The Security fieldset (read-only but for the session's sandbox). */
export function SecurityFields({ before, hub, session }: { before: SettingsView; hub: HubClient; session: Session | undefined }) {
  return (
    <fieldset>
      <legend>Security</legend>
      <p className="settings-line" data-testid="sandbox-line">
        <span>Bash sandbox</span>
        <span>{before.sandbox || "not reported by this hub"}</span>
      </p>
      {before.sandbox_protections && before.sandbox_protections.length > 0 && (
        <ul className="sandbox-protections" data-testid="sandbox-protections" aria-label="Protections active on this machine">
          {before.sandbox_protections.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      {session && <SessionSandbox hub={hub} session={session} line={before.sandbox} />}
      <p className="settings-line" data-testid="keys-line">
        <span>API keys stored in</span>
        <span>{before.keys_stored_in || "not reported by this hub"}</span>
      </p>
      {before.keys_error && (
        <p className="settings-warning" role="alert">
          {before.keys_error}
        </p>
      )}
    </fieldset>
  );
}
