// Settings: provider, API keys (masked; never shown back in full, sent only
// when typed; where they are stored), base URLs, default model, the default
// approval mode, where each value comes from (environment, flag, settings,
// default), auto titles and notifications, the permission rules of the open session's workspace, what
// the bash sandbox enforces, the MCP servers, the prices, the dashboard port, and About.
// Each fieldset is a component of its own in this folder; the dialog holds
// the form's state — the MCP servers and prices staged in it too — and
// saves it with the one Save at the bottom. Closing with changes not saved
// yet asks first (SettingsFooter).

import { useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { sessionRecord } from "../../state";
import type { AppController } from "../controller";
import type { HubClient, SettingsView } from "../../transport/hub";
import type { AppInfo } from "../info";
import { InfoPanel } from "../InfoPanel";
import { DevicesSettings } from "./DevicesSettings";
import { useModal } from "../../chat/modals";
import { settingsPatch } from "./fields";
import { SettingsFooter } from "./SettingsFooter";
import { SettingsForm, StagedLists, type Secrets } from "./SettingsForm";

export { keyPlaceholder, settingsPatch, sourceText } from "./fields";

/** Props of SettingsDialog. */
export interface SettingsDialogProps {
  hub: HubClient;
  ctl: AppController;
  info: AppInfo;
  onClose: () => void;
}

const NO_SECRETS: Secrets = { anthropic: "", openai: "" };

/** The settings dialog. */
export function SettingsDialog({ hub, ctl, info, onClose }: SettingsDialogProps) {
  useModal();
  const [before, setBefore] = useState<SettingsView | null>(null);
  const [form, setFormState] = useState<SettingsView>({});
  const [secrets, setSecrets] = useState<Secrets>(NO_SECRETS);
  const [status, setStatus] = useState<string>("");
  const [confirming, setConfirming] = useState(false);
  const models = ctl.store.getState().ui.models;
  const selected = ctl.store.getState().ui.selectedId;
  const session = selected ? sessionRecord(ctl.store.getState(), selected) : undefined;
  const dirty = before !== null && Object.keys(settingsPatch(before, form, secrets)).length > 0;
  const setForm = (next: SettingsView) => {
    setFormState(next);
    setStatus("");
  };

  useEffect(() => {
    let live = true;
    hub.getSettings().then(
      (s) => live && (setBefore(s), setFormState(s)),
      (err: unknown) => live && (setBefore({}), setStatus(`Could not read settings: ${err instanceof Error ? err.message : String(err)}`)),
    );
    return () => {
      live = false;
    };
  }, [hub]);

  // What Escape reads is the state as last rendered, not as of the last
  // effect: a key pressed between a Save's render and its effects must not
  // ask about changes that are saved already.
  const current = useRef({ dirty, confirming });
  current.current = { dirty, confirming };

  /** Closes, or asks first when something is not saved yet. */
  const requestClose = useCallback(() => (current.current.dirty ? setConfirming(true) : onClose()), [onClose]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === "Escape" && (current.current.confirming ? setConfirming(false) : requestClose());
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [requestClose]);

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
      setFormState(next);
      setSecrets(NO_SECRETS);
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
  const saveAndClose = async () => {
    setConfirming(false);
    if (await apply(true)) onClose();
  };

  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && requestClose()}>
      <div className="modal" role="dialog" aria-modal="true" aria-labelledby="settings-title">
        <header className="modal-head">
          <h2 id="settings-title">Settings</h2>
          <button type="button" className="icon-btn" aria-label="Close settings" onClick={requestClose}>
            ×
          </button>
        </header>
        {before === null ? (
          <p className="muted">Loading…</p>
        ) : (
          <>
            <SettingsForm {...{ before, form, setForm, hub, info, models, session, secrets, setSecrets }} save={save} apply={apply} />
            <StagedLists hub={hub} before={before} form={form} setForm={setForm} workspace={session?.workspace_path} />
          </>
        )}
        {before && <DevicesSettings hub={hub} savedUrl={before.gateway_url ?? ""} url={form.gateway_url ?? ""} setUrl={(gateway_url) => setForm({ ...form, gateway_url })} />}
        <details className="about">
          <summary>About this instance</summary>
          <InfoPanel info={info} />
        </details>
        {before && (
          // Save at the bottom of the whole dialog: it saves everything above.
          <SettingsFooter status={status} dirty={dirty} confirming={confirming} onSaveAndClose={() => void saveAndClose()} onDiscard={onClose} onKeepEditing={() => setConfirming(false)} />
        )}
      </div>
    </div>
  );
}
