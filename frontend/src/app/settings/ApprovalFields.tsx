// The approval mode of new sessions, and the permission rules of the open
// session's workspace (docs/permissions.md).

import { APPROVAL_MODES } from "../../protocol";
import type { HubClient } from "../../transport/hub";
import { PermissionRules } from "../PermissionRules";
import { bind, Source, type FormProps } from "./fields";

const MODE_NAMES: Record<(typeof APPROVAL_MODES)[number], string> = {
  ask: "Ask before commands, edits and workers",
  "auto-edits": "Auto-approve file edits",
  "auto-all": "Auto-approve all (no prompts)",
};

/** The Approvals fieldset; workspace is the open session's ("" or undefined: none). */
export function ApprovalFields(props: FormProps & { hub: HubClient; workspace: string | undefined }) {
  const { form, workspace } = props;
  return (
    <fieldset>
      <legend>Approvals</legend>
      <label>
        <span>
          New sessions
          <Source k="approval_mode" sources={props.before.sources} />
        </span>
        <select {...bind(props, "approval_mode")} className={form.approval_mode === "auto-all" ? "is-warning" : undefined}>
          {!form.approval_mode && <option value="">(not set: ask)</option>}
          {APPROVAL_MODES.map((m) => (
            <option key={m} value={m}>
              {MODE_NAMES[m]}
            </option>
          ))}
        </select>
      </label>
      <div className="settings-block">
        <span className="settings-block-title">Rules of {workspace ? <code data-testid="rules-workspace">{workspace}</code> : "the open session's workspace"}</span>
        {workspace ? <PermissionRules hub={props.hub} workspace={workspace} /> : <p className="muted">Open a session to edit its workspace's rules.</p>}
      </div>
    </fieldset>
  );
}
