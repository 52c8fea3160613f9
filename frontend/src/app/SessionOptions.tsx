// A session's model and folder: chosen in the new-session view and changed
// between turns from the chat header. The model field suggests the models
// the hub lists (configured providers' first) and takes any "provider:model"
// (a local server's own names); the folder is a path field, with the native
// folder dialog beside it in the window. The hub validates both.

import { useId, useState, type FormEvent } from "react";
import type { ModelInfo } from "../protocol";
import { Icon } from "./Icon";

/** The model and folder of a session as the form edits them. */
export interface SessionChoice {
  model: string;
  workspace: string;
}

/** Props of SessionOptionsFields. */
export interface SessionOptionsFieldsProps {
  models: ModelInfo[];
  value: SessionChoice;
  onChange: (v: SessionChoice) => void;
  /** The default model's id (the option "" says which it is). */
  defaultModel: string;
  /** The native folder dialog (the window only). */
  chooseFolder?: ((start: string) => Promise<string>) | undefined;
  disabled?: boolean;
}

/** The providers a model id may name. */
export const PROVIDERS = ["anthropic", "openai"] as const;

/**
 * What is wrong with a model id, in plain words, or null when it is one the
 * hub can route ("" is the default model): the Model field says it at once,
 * instead of the hub's refusal after the fact.
 */
export function modelProblem(model: string): string | null {
  const m = model.trim();
  if (m === "") return null;
  const at = m.indexOf(":");
  const example = "e.g. anthropic:claude-sonnet-4-6 or openai:gpt-4.1";
  if (at <= 0 || at === m.length - 1) return `Write the model as provider:model (${example}).`;
  const provider = m.slice(0, at);
  if (!(PROVIDERS as readonly string[]).includes(provider)) return `“${provider}” is not a provider: use anthropic or openai (${example}).`;
  return null;
}

/** The models to offer: only configured providers' (a server's own list included), the current value kept even when unlisted. */
export function modelOptions(models: ModelInfo[], current: string): ModelInfo[] {
  const sorted = models.filter((m) => m.configured).sort((a, b) => a.id.localeCompare(b.id));
  if (current && !sorted.some((m) => m.id === current)) sorted.unshift({ id: current, provider: current.split(":")[0] ?? "", context_window: 0, configured: true });
  return sorted;
}

/** The model select and folder field. */
export function SessionOptionsFields({ models, value, onChange, defaultModel, chooseFolder, disabled = false }: SessionOptionsFieldsProps) {
  const id = useId();
  const problem = modelProblem(value.model);
  const browse = async () => {
    if (!chooseFolder) return;
    const dir = await chooseFolder(value.workspace).catch(() => "");
    if (dir) onChange({ ...value, workspace: dir });
  };
  return (
    <div className="session-options">
      <label htmlFor={`${id}-model`}>Model</label>
      <input
        id={`${id}-model`}
        list={`${id}-models`}
        value={value.model}
        disabled={disabled}
        spellCheck={false}
        placeholder={defaultModel ? `Default (${defaultModel})` : "provider:model"}
        aria-invalid={problem !== null}
        aria-describedby={problem !== null ? `${id}-model-error` : undefined}
        onChange={(e) => onChange({ ...value, model: e.target.value })}
      />
      {problem !== null && (
        <p className="field-error" id={`${id}-model-error`} role="alert" data-testid="model-error">
          {problem}
        </p>
      )}
      <datalist id={`${id}-models`}>
        {modelOptions(models, value.model).map((m) => (
          <option key={m.id} value={m.id}>
            {m.configured ? m.provider : `${m.provider} — not configured`}
          </option>
        ))}
      </datalist>
      <label htmlFor={`${id}-folder`}>Folder</label>
      <span className="session-folder">
        <input id={`${id}-folder`} value={value.workspace} disabled={disabled} spellCheck={false} placeholder="/path/to/project" onChange={(e) => onChange({ ...value, workspace: e.target.value })} />
        {chooseFolder && (
          <button type="button" className="btn btn-xs" disabled={disabled} onClick={() => void browse()}>
            <Icon name="folder" size={14} /> Browse…
          </button>
        )}
      </span>
    </div>
  );
}

/** Props of SessionOptionsForm. */
export interface SessionOptionsFormProps extends Omit<SessionOptionsFieldsProps, "value" | "onChange"> {
  initial: SessionChoice;
  /** Applies the change; resolves false when the hub refused it (the form stays open). */
  onApply: (v: SessionChoice) => Promise<boolean>;
  onClose: () => void;
}

/** The header's popover form: change the open session's model and folder between turns. */
export function SessionOptionsForm({ initial, onApply, onClose, ...fields }: SessionOptionsFormProps) {
  const [value, setValue] = useState(initial);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (modelProblem(value.model) !== null) return;
    setBusy(true);
    const ok = await onApply(value);
    setBusy(false);
    if (ok) onClose();
  };
  return (
    <form className="session-options-form" aria-label="Session model and folder" onSubmit={(e) => void submit(e)} onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <SessionOptionsFields {...fields} value={value} onChange={setValue} disabled={busy || fields.disabled === true} />
      <div className="session-options-actions">
        <button type="button" className="btn btn-xs" onClick={onClose}>
          Cancel
        </button>
        <button
          type="submit"
          className="btn btn-xs btn-primary"
          disabled={busy || fields.disabled === true || modelProblem(value.model) !== null || (value.model === initial.model && value.workspace === initial.workspace)}
        >
          Apply
        </button>
      </div>
      {fields.disabled && <p className="muted session-options-note">A turn is running: change these when it ends.</p>}
    </form>
  );
}
