// The bottom of Settings: what the last save said, and Save — the one
// control that saves the dialog (the fields, the MCP servers, the prices).
// Closing with changes not saved yet asks here first: save and close,
// discard them, or keep editing.

import { useEffect, useRef } from "react";

/** Props of SettingsFooter. */
export interface SettingsFooterProps {
  status: string;
  /** Whether the dialog has changes Save has not saved. */
  dirty: boolean;
  /** Whether a close waits for an answer about unsaved changes. */
  confirming: boolean;
  onSaveAndClose: () => void;
  onDiscard: () => void;
  onKeepEditing: () => void;
}

/** The footer with Save, and the question asked when closing with unsaved changes. */
export function SettingsFooter(p: SettingsFooterProps) {
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (p.confirming) keep.current?.focus();
  }, [p.confirming]);
  if (p.confirming) {
    return (
      <div className="settings-actions settings-footer settings-unsaved" role="alertdialog" aria-labelledby="unsaved-text" data-testid="unsaved-confirm">
        <span id="unsaved-text">Some changes are not saved yet.</span>
        <button type="button" className="btn btn-primary" onClick={p.onSaveAndClose}>
          Save and close
        </button>
        <button type="button" className="btn" onClick={p.onDiscard}>
          Discard changes
        </button>
        <button ref={keep} type="button" className="btn" onClick={p.onKeepEditing}>
          Keep editing
        </button>
      </div>
    );
  }
  return (
    <div className="settings-actions settings-footer" data-dirty={p.dirty}>
      <span className="muted" role="status">
        {p.status || (p.dirty ? "Changes not saved yet." : "")}
      </span>
      <button type="submit" form="settings-form" className="btn btn-primary">
        Save
      </button>
    </div>
  );
}
