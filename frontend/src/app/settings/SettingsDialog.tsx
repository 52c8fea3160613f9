// Settings: provider, API keys (masked; never shown back in full, sent only
// when typed; where they are stored), base URLs, default model, the default
// approval mode, where each value comes from (environment, flag, settings,
// default), auto titles and notifications, the permission rules of the open session's workspace, what
// the bash sandbox enforces, the MCP servers, the dashboard port, and About.
// Each fieldset is a component of its own in this folder; the dialog holds
// the form's state and saves it.

import { useEffect, useState, type FormEvent } from "react";
import { sessionRecord } from "../../state";
import type { AppController } from "../controller";
import type { HubClient, ModelInfo, SettingsView } from "../../transport/hub";
import type { Session } from "../../protocol";
import type { AppInfo } from "../info";
import { InfoPanel } from "../InfoPanel";
import { DevicesSettings } from "./DevicesSettings";
import { McpServers } from "../McpServers";
import { Prices } from "../Prices";
import { useModal } from "../../chat/modals";
import { ApprovalFields } from "./ApprovalFields";
import { DashboardFields } from "./DashboardFields";
import { settingsPatch, type FormProps } from "./fields";
import { ModelFields } from "./ModelFields";
import { ProviderFields } from "./ProviderFields";
import { SecurityFields } from "./SecurityFields";
import { SessionFields } from "./SessionFields";

export { keyPlaceholder, settingsPatch, sourceText } from "./fields";

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
  const models = ctl.store.getState().ui.models;
  const selected = ctl.store.getState().ui.selectedId;
  const session = selected ? sessionRecord(ctl.store.getState(), selected) : undefined;

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

  /** Saves what changed; resolves false when the hub refused it. */
  const apply = async (quiet: boolean): Promise<boolean> => {
    if (!before) return false;
    const patch = settingsPatch(before, form, secrets);
    if (Object.keys(patch).length === 0) {
      if (!quiet) setStatus("Nothing changed.");
      return true;
    }
    try {
      const next = await hub.updateSettings(patch);
      setBefore(next);
      setForm(next);
      setSecrets({ anthropic: "", openai: "" });
      setStatus("Saved. Provider changes apply to new turns; the dashboard setting applies at the next start.");
      void ctl.loadModels();
      return true;
    } catch (err) {
      setStatus(`Could not save: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  };
  const save = async (e: FormEvent) => {
    e.preventDefault();
    await apply(false);
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
        {before === null ? <p className="muted">Loading…</p> : <SettingsForm {...{ before, form, setForm, hub, info, models, session, secrets, setSecrets }} save={save} apply={apply} />}
        {before && (
          // Outside the settings form: the server form is a form of its own;
          // each server added or removed is saved as it is.
          <fieldset className="settings-mcp">
            <legend>MCP servers</legend>
            <p className="muted settings-note">A server is saved as you add or remove it.</p>
            <McpServers
              hub={hub}
              saved={before.mcp_servers ?? {}}
              workspace={session?.workspace_path}
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
            <p className="muted settings-note">A price is saved as you set or remove it.</p>
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
        {before && (
          // Save at the bottom of the whole dialog: it saves the fields above.
          <div className="settings-actions settings-footer">
            <span className="muted" role="status">
              {status}
            </span>
            <button type="submit" form="settings-form" className="btn btn-primary">
              Save
            </button>
          </div>
        )}
      </div>
    </div>
  );
}

type Secrets = { anthropic: string; openai: string };

/** The fields saved together with Save: one fieldset each. */
function SettingsForm(
  props: FormProps & {
    hub: HubClient;
    info: AppInfo;
    models: ModelInfo[];
    session: Session | undefined;
    secrets: Secrets;
    setSecrets: (s: Secrets) => void;
    save: (e: FormEvent) => Promise<void>;
    apply: (quiet: boolean) => Promise<boolean>;
  },
) {
  const { hub, secrets, setSecrets } = props;
  const form = { before: props.before, form: props.form, setForm: props.setForm };
  return (
    <form className="settings" id="settings-form" onSubmit={(e) => void props.save(e)}>
      <ModelFields {...form} models={props.models} />
      <ProviderFields {...form} hub={hub} provider="anthropic" secret={secrets.anthropic} setSecret={(v) => setSecrets({ ...secrets, anthropic: v })} save={() => props.apply(true)} />
      <ProviderFields {...form} hub={hub} provider="openai" secret={secrets.openai} setSecret={(v) => setSecrets({ ...secrets, openai: v })} save={() => props.apply(true)} />
      <SessionFields {...form} />
      <ApprovalFields {...form} hub={hub} workspace={props.session?.workspace_path} />
      <SecurityFields before={props.before} hub={hub} session={props.session} />
      <DashboardFields {...form} url={props.info.dashboard_url} />
    </form>
  );
}
