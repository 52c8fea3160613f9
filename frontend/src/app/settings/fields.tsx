// What the settings fieldsets share: the form state they edit, how a
// field binds to it, where a value in effect comes from, and the patch the
// dialog sends.

import type { SettingsView } from "../../transport/hub";
import { sameValue } from "./staged";

/** The state every fieldset of the settings form edits. */
export interface FormProps {
  /** What getSettings answered (the masked keys, sources and status). */
  before: SettingsView;
  /** The form as edited. */
  form: SettingsView;
  setForm: (next: SettingsView) => void;
}

/** Binds an input or select to form[k]. */
export function bind({ form, setForm }: FormProps, k: keyof SettingsView) {
  return {
    value: String(form[k] ?? ""),
    onChange: (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value }),
  };
}

/**
 * The patch to send: text fields as edited, secrets only when the user typed
 * a new value, the MCP servers and the prices whole when any entry was
 * staged (a patch carrying either replaces the saved set). Empty: nothing to save.
 */
export function settingsPatch(before: SettingsView, form: SettingsView, secrets: { anthropic: string; openai: string }): SettingsView {
  const patch: SettingsView = {};
  const keys = ["provider", "model", "anthropic_base_url", "openai_base_url", "approval_mode", "gateway_url"] as const;
  for (const k of keys) if ((form[k] ?? "") !== (before[k] ?? "")) patch[k] = (form[k] ?? "").trim();
  if ((form.dashboard_enabled ?? false) !== (before.dashboard_enabled ?? false)) patch.dashboard_enabled = form.dashboard_enabled ?? false;
  if ((form.auto_title ?? true) !== (before.auto_title ?? true)) patch.auto_title = form.auto_title ?? true;
  if (secrets.anthropic.trim()) patch.anthropic_api_key = secrets.anthropic.trim();
  if (secrets.openai.trim()) patch.openai_api_key = secrets.openai.trim();
  if (!sameValue(form.mcp_servers ?? {}, before.mcp_servers ?? {})) patch.mcp_servers = form.mcp_servers ?? {};
  if (!sameValue(form.prices ?? {}, before.prices ?? {})) patch.prices = form.prices ?? {};
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

/** The source of setting k, next to its label. */
export function Source({ k, sources }: { k: string; sources: Record<string, string> | undefined }) {
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
