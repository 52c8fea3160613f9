// Settings: provider, API keys (masked; never shown back in full, sent only
// when typed; where they are stored), base URLs, default model, the default
// approval mode, where each value comes from (environment, flag, settings,
// default), auto titles and notifications, the permission rules of the open session's workspace, what
// the bash sandbox enforces, the MCP servers, the dashboard port, and About.

import { useEffect, useState, type FormEvent } from "react";
import { APPROVAL_MODES } from "../protocol";
import { sessionRecord } from "../state";
import type { AppController } from "./controller";
import type { HubClient, SettingsView } from "./hub";
import type { AppInfo } from "./info";
import { NOTIFY_KEY, notificationsEnabled, pageNotifications } from "./attention";
import { InfoPanel } from "./InfoPanel";
import { DevicesSettings } from "./DevicesSettings";
import { McpServers } from "./McpServers";
import { PermissionRules } from "./PermissionRules";
import { Prices } from "./Prices";
import { SessionSandbox } from "./SessionSandbox";
import { useModal } from "../chat/modals";

const MODE_NAMES: Record<(typeof APPROVAL_MODES)[number], string> = {
  ask: "Ask before commands, edits and workers",
  "auto-edits": "Auto-approve file edits",
  "auto-all": "Auto-approve all (no prompts)",
};

/** The patch to send: text fields as edited, secrets only when the user typed a new value. */
export function settingsPatch(before: SettingsView, form: SettingsView, secrets: { anthropic: string; openai: string }): SettingsView {
  const patch: SettingsView = {};
  const keys = ["provider", "model", "anthropic_base_url", "openai_base_url", "approval_mode"] as const;
  for (const k of keys) if ((form[k] ?? "") !== (before[k] ?? "")) patch[k] = (form[k] ?? "").trim();
  if ((form.dashboard_enabled ?? false) !== (before.dashboard_enabled ?? false)) patch.dashboard_enabled = form.dashboard_enabled ?? false;
  if ((form.auto_title ?? true) !== (before.auto_title ?? true)) patch.auto_title = form.auto_title ?? true;
  if (secrets.anthropic.trim()) patch.anthropic_api_key = secrets.anthropic.trim();
  if (secrets.openai.trim()) patch.openai_api_key = secrets.openai.trim();
  return patch;
}

const ENV_NAMES: Record<string, string> = {
  anthropic_api_key: "ANTHROPIC_API_KEY",
  anthropic_base_url: "ANTHROPIC_BASE_URL",
  openai_api_key: "OPENAI_API_KEY",
  openai_base_url: "OPENAI_BASE_URL",
  model: "--model",
  approval_mode: "--approval-mode",
};

/** Where a value in effect comes from, as the field shows it ("" when the hub did not say). */
export function sourceText(key: string, sources: Record<string, string> | undefined): string {
  switch (sources?.[key]) {
    case "env":
      return `env ${ENV_NAMES[key] ?? key} (overrides this)`;
    case "flag":
      return `flag ${ENV_NAMES[key] ?? key} (overrides this)`;
    case "settings":
      return "from settings";
    case "default":
      return "default";
    default:
      return "";
  }
}

function Source({ k, sources }: { k: string; sources: Record<string, string> | undefined }) {
  const text = sourceText(k, sources);
  return text ? (
    <span className="settings-source" data-testid={`source-${k}`}>
      {text}
    </span>
  ) : null;
}

/** The key field's placeholder: set in settings (masked), set in the environment, or not set. */
export function keyPlaceholder(masked: string | undefined, key: string, sources: Record<string, string> | undefined, unset: string): string {
  if (sources?.[key] === "env") return `set in the environment (${ENV_NAMES[key]})`;
  return masked ? `set (${masked}) — type to replace` : unset;
}

/** Props of SettingsDialog. */
export interface SettingsDialogProps {
  hub: HubClient;
  ctl: AppController;
  info: AppInfo;
  onClose: () => void;
}

/** The settings dialog. */
export function SettingsDialog({ hub, ctl, info, onClose }: SettingsDialogProps) {
  useModal();
  const [before, setBefore] = useState<SettingsView | null>(null);
  const [form, setForm] = useState<SettingsView>({});
  const [secrets, setSecrets] = useState({ anthropic: "", openai: "" });
  const [status, setStatus] = useState<string>("");
  const [copied, setCopied] = useState(false);
  const [notify, setNotify] = useState(notificationsEnabled);
  const toggleNotify = async (on: boolean) => {
    const api = pageNotifications();
    if (on && api && api.permission === "default") await api.requestPermission().catch(() => "denied");
    localStorage.setItem(NOTIFY_KEY, on ? "on" : "off");
    setNotify(on);
  };
  const models = ctl.store.getState().ui.models;
  const selected = ctl.store.getState().ui.selectedId;
  const session = selected ? sessionRecord(ctl.store.getState(), selected) : undefined;
  const workspace = session?.workspace_path;

  useEffect(() => {
    let live = true;
    hub.getSettings().then(
      (s) => live && (setBefore(s), setForm(s)),
      (err: unknown) => live && (setBefore({}), setStatus(`Could not read settings: ${err instanceof Error ? err.message : String(err)}`)),
    );
    return () => {
      live = false;
    };
  }, [hub]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && onClose();
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (!before) return;
    const patch = settingsPatch(before, form, secrets);
    if (Object.keys(patch).length === 0) {
      setStatus("Nothing changed.");
      return;
    }
    try {
      const next = await hub.updateSettings(patch);
      setBefore(next);
      setForm(next);
      setSecrets({ anthropic: "", openai: "" });
      setStatus("Saved. Provider changes apply to new turns; the dashboard setting applies at the next start.");
      void ctl.loadModels();
    } catch (err) {
      setStatus(`Could not save: ${err instanceof Error ? err.message : String(err)}`);
    }
  };

  const field = (k: keyof SettingsView) => ({
    value: String(form[k] ?? ""),
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value }),
  });
  const copy = () => {
    void navigator.clipboard?.writeText(info.dashboard_url).then(() => setCopied(true), () => undefined);
  };

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="settings-title">
        <header className="modal-head">
          <h2 id="settings-title">Settings</h2>
          <button type="button" className="icon-btn" aria-label="Close settings" onClick={onClose}>
            ×
          </button>
        </header>
        {before === null ? (
          <p className="muted">Loading…</p>
        ) : (
          <form className="settings" onSubmit={(e) => void save(e)}>
            <fieldset>
              <legend>Model</legend>
              <label>
                Default provider
                <select {...field("provider")}>
                  <option value="">(from the model)</option>
                  <option value="anthropic">Anthropic</option>
                  <option value="openai">OpenAI-compatible</option>
                </select>
              </label>
              <label>
                <span>
                  Default model
                  <Source k="model" sources={before.sources} />
                </span>
                <input {...field("model")} placeholder="anthropic:claude-sonnet-4-6" list="settings-models" />
                <datalist id="settings-models">
                  {models.map((m) => (
                    <option key={m.id} value={m.id} />
                  ))}
                </datalist>
              </label>
            </fieldset>
            <fieldset>
              <legend>Anthropic</legend>
              <label>
                <span>
                  API key
                  <Source k="anthropic_api_key" sources={before.sources} />
                </span>
                <input
                  type="password"
                  autoComplete="off"
                  value={secrets.anthropic}
                  onChange={(e) => setSecrets({ ...secrets, anthropic: e.target.value })}
                  placeholder={keyPlaceholder(before.anthropic_api_key, "anthropic_api_key", before.sources, "not set")}
                />
              </label>
              <label>
                <span>
                  Base URL
                  <Source k="anthropic_base_url" sources={before.sources} />
                </span>
                <input {...field("anthropic_base_url")} placeholder="https://api.anthropic.com" />
              </label>
            </fieldset>
            <fieldset>
              <legend>OpenAI-compatible (OpenAI, Ollama, vLLM, LM Studio)</legend>
              <label>
                <span>
                  API key
                  <Source k="openai_api_key" sources={before.sources} />
                </span>
                <input
                  type="password"
                  autoComplete="off"
                  value={secrets.openai}
                  onChange={(e) => setSecrets({ ...secrets, openai: e.target.value })}
                  placeholder={keyPlaceholder(before.openai_api_key, "openai_api_key", before.sources, "not set (not needed for Ollama)")}
                />
              </label>
              <label>
                <span>
                  Base URL
                  <Source k="openai_base_url" sources={before.sources} />
                </span>
                <input {...field("openai_base_url")} placeholder="http://127.0.0.1:11434/v1" />
              </label>
            </fieldset>
            <fieldset>
              <legend>Sessions</legend>
              <label className="check">
                <input type="checkbox" checked={form.auto_title ?? true} onChange={(e) => setForm({ ...form, auto_title: e.target.checked })} />
                Name new sessions after their first answer (one short model call)
              </label>
              <label className="check">
                <input type="checkbox" data-testid="notify-toggle" checked={notify} onChange={(e) => void toggleNotify(e.target.checked)} />
                Desktop notification when a turn finishes or a tool call waits while this window is in the background
              </label>
            </fieldset>
            <fieldset>
              <legend>Approvals</legend>
              <label>
                <span>
                  New sessions
                  <Source k="approval_mode" sources={before.sources} />
                </span>
                <select {...field("approval_mode")} className={form.approval_mode === "auto-all" ? "is-warning" : undefined}>
                  {!form.approval_mode && <option value="">(not set: ask)</option>}
                  {APPROVAL_MODES.map((m) => (
                    <option key={m} value={m}>
                      {MODE_NAMES[m]}
                    </option>
                  ))}
                </select>
              </label>
              <div className="settings-block">
                <span className="settings-block-title">
                  Rules of {workspace ? <code data-testid="rules-workspace">{workspace}</code> : "the open session's workspace"}
                </span>
                {workspace ? <PermissionRules hub={hub} workspace={workspace} /> : <p className="muted">Open a session to edit its workspace's rules.</p>}
              </div>
            </fieldset>
            <fieldset>
              <legend>Security</legend>
              <p className="settings-line" data-testid="sandbox-line">
                <span>Bash sandbox</span>
                <span>{before.sandbox || "not reported by this hub"}</span>
              </p>
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
            <fieldset>
              <legend>Dashboard</legend>
              <label className="check">
                <input type="checkbox" checked={form.dashboard_enabled ?? false} onChange={(e) => setForm({ ...form, dashboard_enabled: e.target.checked })} />
                Serve the browser dashboard on localhost (desktop app, from the next start)
              </label>
              {info.dashboard_url && (
                <div className="copy-row">
                  <code data-testid="dashboard-url">{info.dashboard_url}</code>
                  <button type="button" className="btn btn-xs" onClick={copy}>
                    {copied ? "Copied" : "Copy"}
                  </button>
                </div>
              )}
            </fieldset>
            <div className="settings-actions">
              <span className="muted" role="status">
                {status}
              </span>
              <button type="submit" className="btn btn-primary">
                Save
              </button>
            </div>
          </form>
        )}
        {before && (
          // Outside the settings form: the server form is a form of its own
          // and saves at once.
          <fieldset className="settings-mcp">
            <legend>MCP servers</legend>
            <McpServers
              hub={hub}
              saved={before.mcp_servers ?? {}}
              workspace={workspace}
              onSaved={(next) => {
                setBefore(next);
                setForm({ ...form, mcp_servers: next.mcp_servers });
              }}
            />
          </fieldset>
        )}
        {before && (
          <fieldset className="settings-mcp">
            <legend>Prices</legend>
            <Prices
              hub={hub}
              prices={before.prices ?? {}}
              onSaved={(prices) => {
                setBefore({ ...before, prices });
                setForm({ ...form, prices });
              }}
            />
          </fieldset>
        )}
        {before && <DevicesSettings hub={hub} gatewayUrl={before.gateway_url ?? ""} />}
        <details className="about">
          <summary>About this instance</summary>
          <InfoPanel info={info} />
        </details>
      </div>
    </div>
  );
}
