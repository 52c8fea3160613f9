// The permission rules of one workspace (docs/permissions.md), in Settings:
// listed, added and removed; each change replaces the workspace's rules
// through setPermissionRules and shows them as the hub stored them.

import { useEffect, useState, type KeyboardEvent } from "react";
import type { PermissionAction, PermissionRule } from "../protocol";
import type { HubClient } from "../transport/hub";

/** The tools a rule can name ("*": every tool). */
export const RULE_TOOLS = ["bash", "edit_file", "write_file", "delegate", "read_file", "list_dir", "glob", "grep", "*"] as const;
const ACTIONS: PermissionAction[] = ["allow", "ask", "deny"];

/** A rule as one line: "bash go test → allow", "bash = python3 build.py → allow" (exactly that command), "* → ask". */
export function ruleLabel(r: PermissionRule): string {
  const what = r.command ? ` = ${r.command}` : r.prefix ? ` ${r.prefix}` : "";
  return `${r.tool}${what} → ${r.action}`;
}

/** rules plus draft (a prefix only for bash, trimmed), or why it cannot be added. */
export function withRule(rules: readonly PermissionRule[], draft: PermissionRule): PermissionRule[] | string {
  const prefix = draft.tool === "bash" ? (draft.prefix ?? "").trim() : "";
  const rule: PermissionRule = prefix ? { tool: draft.tool, prefix, action: draft.action } : { tool: draft.tool, action: draft.action };
  if (rules.some((r) => r.tool === rule.tool && !r.command && (r.prefix ?? "") === prefix)) return `There is already a rule for ${rule.tool}${prefix ? ` ${prefix}` : ""}.`;
  return [...rules, rule];
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Props of PermissionRules. */
export interface PermissionRulesProps {
  hub: HubClient;
  workspace: string;
}

/** The rule editor of a workspace. */
export function PermissionRules({ hub, workspace }: PermissionRulesProps) {
  const [rules, setRules] = useState<PermissionRule[] | null>(null);
  const [gitWrites, setGitWrites] = useState(false);
  const [status, setStatus] = useState("");
  const [draft, setDraft] = useState<PermissionRule>({ tool: "bash", prefix: "", action: "allow" });

  useEffect(() => {
    let live = true;
    hub.getPermissionRules(workspace).then(
      (r) => live && setRules(r),
      (err: unknown) => live && (setRules([]), setStatus(`Could not read the rules: ${reason(err)}`)),
    );
    hub.getGitWrites(workspace).then(
      (on) => live && setGitWrites(on),
      () => undefined, // an older hub: the box stays off
    );
    return () => {
      live = false;
    };
  }, [hub, workspace]);

  const store = async (next: PermissionRule[]) => {
    try {
      setRules(await hub.setPermissionRules(workspace, next));
      setStatus("");
      return true;
    } catch (err) {
      setStatus(`Could not save the rules: ${reason(err)}`);
      return false;
    }
  };
  const toggleGit = async (allow: boolean) => {
    try {
      setGitWrites(await hub.setGitWrites(workspace, allow));
      setStatus("");
    } catch (err) {
      setStatus(`Could not change git writes: ${reason(err)}`);
    }
  };
  const add = async () => {
    const next = withRule(rules ?? [], draft);
    if (typeof next === "string") return setStatus(next);
    if (await store(next)) setDraft({ ...draft, prefix: "" });
  };
  const onPrefixKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key !== "Enter") return;
    e.preventDefault(); // not the settings form's submit
    void add();
  };

  if (rules === null) return <p className="muted">Loading the rules…</p>;
  return (
    <div className="rules" data-testid="permission-rules">
      {rules.length === 0 ? (
        <p className="muted">No rules: every tool asks or runs as its default says.</p>
      ) : (
        <ul className="rules-list">
          {rules.map((r, i) => (
            <li key={`${r.tool} ${r.prefix ?? ""} ${r.command ?? ""}`} className={`rule rule-${r.action}`}>
              <code>{r.tool}</code>
              {r.prefix && <code className="rule-prefix">{r.prefix}</code>}
              {r.command && (
                <code className="rule-command" title="exactly this command">
                  = {r.command}
                </code>
              )}
              <span className="rule-action">{r.action}</span>
              <button type="button" className="icon-btn" aria-label={`Remove rule ${ruleLabel(r)}`} onClick={() => void store(rules.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="rules-add" role="group" aria-label="Add a rule">
        <select aria-label="Tool" value={draft.tool} onChange={(e) => setDraft({ ...draft, tool: e.target.value })}>
          {RULE_TOOLS.map((t) => (
            <option key={t} value={t}>
              {t === "*" ? "* (every tool)" : t}
            </option>
          ))}
        </select>
        <input
          aria-label="Command prefix"
          placeholder={draft.tool === "bash" ? "command prefix, e.g. go test (optional)" : "prefix: bash only"}
          disabled={draft.tool !== "bash"}
          value={draft.tool === "bash" ? (draft.prefix ?? "") : ""}
          onChange={(e) => setDraft({ ...draft, prefix: e.target.value })}
          onKeyDown={onPrefixKey}
        />
        <select aria-label="Action" value={draft.action} onChange={(e) => setDraft({ ...draft, action: e.target.value })}>
          {ACTIONS.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
        <button type="button" className="btn btn-xs" onClick={() => void add()}>
          Add rule
        </button>
      </div>
      <label className="check" title="Off: sandboxed bash can read .git but not write it (no commit, no hook, no config change)">
        <input type="checkbox" data-testid="git-writes" checked={gitWrites} onChange={(e) => void toggleGit(e.target.checked)} />
        Allow bash to write .git in this workspace (git commit, git checkout)
      </label>
      {status && (
        <p className="rules-status" role="alert">
          {status}
        </p>
      )}
    </div>
  );
}
