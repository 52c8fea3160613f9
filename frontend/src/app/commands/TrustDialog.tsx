// Asked before a repository's custom command runs its shell lines for the
// first time (and again once the file changed): the command, its file and
// every line it runs. "Run" lets it (the lines still run as bash calls
// under the session's rules and mode); "Cancel", Esc or the backdrop
// leave it.

import { useCallback, useEffect, useRef, useState, type ReactElement } from "react";
import { useModal } from "../../chat/modals";
import { Revealed } from "../../chat/Reveal";
import type { SlashCommand } from "../../chat/commands";

/** The trust question for c; onAnswer(true) lets it run. */
export function TrustDialog({ command, onAnswer }: { command: SlashCommand; onAnswer: (ok: boolean) => void }) {
  useModal();
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => cancel.current?.focus(), []);
  const lines = command.shell ?? [];
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onAnswer(false)} onKeyDown={(e) => e.key === "Escape" && onAnswer(false)}>
      <div className="modal trust-dialog" role="alertdialog" aria-modal="true" aria-labelledby="trust-title" data-testid="trust-confirm">
        <h2 id="trust-title">Run /{command.name} from this repository?</h2>
        <p>
          It comes from <code>{command.path}</code>, a file of the repository, and runs {lines.length === 1 ? "this command" : `these ${lines.length} commands`} first:
        </p>
        <ul className="trust-lines">
          {lines.map((l, i) => (
            <li key={i}>
              <code>
                <Revealed text={l} />
              </code>
            </li>
          ))}
        </ul>
        <p className="muted">Each runs as a bash call under this session's rules and mode. You are asked again if the file changes.</p>
        <div className="quit-actions">
          <button type="button" className="btn btn-primary" data-testid="trust-run" onClick={() => onAnswer(true)}>
            Run
          </button>
          <button ref={cancel} type="button" className="btn" data-testid="trust-cancel" onClick={() => onAnswer(false)}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

/** A confirm function that shows TrustDialog and resolves with the answer, and the dialog to render (null while none is asked). */
export function useTrustConfirm(): [(c: SlashCommand) => Promise<boolean>, ReactElement | null] {
  const [ask, setAsk] = useState<{ command: SlashCommand; resolve: (ok: boolean) => void } | null>(null);
  const confirm = useCallback((command: SlashCommand) => new Promise<boolean>((resolve) => setAsk({ command, resolve })), []);
  const dialog = ask ? (
    <TrustDialog
      command={ask.command}
      onAnswer={(ok) => {
        ask.resolve(ok);
        setAsk(null);
      }}
    />
  ) : null;
  return [confirm, dialog];
}
