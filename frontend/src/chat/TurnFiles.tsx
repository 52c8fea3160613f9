// The files a turn changed, under the user message that started it: "N files
// changed" opens the list with each file's diff; Undo restores them to
// before the turn after a confirmation, and says which it left alone (a file
// changed since the turn is never overwritten). After a reload the count and
// the undone state come from the stored turn outcome.

import { useState } from "react";
import type { FileChange, TurnChanges, TurnOutcome, TurnUndone } from "../protocol";
import { DiffView } from "./DiffView";
import { HiddenBadge, Revealed } from "./Reveal";
import { useChatSession, useSessionSelector } from "./session";

const STATUS_LABEL: Record<FileChange["status"], string> = { created: "created", modified: "modified", deleted: "deleted" };

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One changed file: its status, path, why it cannot be restored, and its diff when its text is known. */
function ChangedFile({ change: c }: { change: FileChange }) {
  const diff =
    c.status === "created" ? (c.after !== undefined ? <DiffView path={c.path} text={c.after} /> : null) :
    c.status === "deleted" ? (c.before !== undefined ? <DiffView path={c.path} old={c.before} text="" /> : null) :
    c.before !== undefined && c.after !== undefined ? <DiffView path={c.path} old={c.before} text={c.after} /> : null;
  return (
    <li className="turn-file" data-testid="turn-file" data-status={c.status}>
      <div className="turn-file-head">
        <span className={`turn-file-status is-${c.status}`}>{STATUS_LABEL[c.status]}</span>
        <code className="turn-file-path">
          <Revealed text={c.path} newlines="escape" />
        </code>
        <HiddenBadge paths={[c.path]} />
        <span className="muted">by {c.tool}</span>
      </div>
      {c.unrestorable && <p className="turn-file-note">Undo cannot restore it: {c.unrestorable}.</p>}
      {diff ?? (c.unrestorable ? null : <p className="turn-file-note muted">No diff to show (binary or too large).</p>)}
    </li>
  );
}

/** What an undo did, as a sentence and the files it left alone. */
function UndoSummary({ result }: { result: TurnUndone }) {
  return (
    <div className="turn-undo-result" role="status" data-testid="undo-result">
      <p>
        Restored {plural(result.restored.length, "file", "files")} to before this turn
        {result.skipped.length > 0 ? `; left ${plural(result.skipped.length, "file", "files")} alone:` : "."}
      </p>
      {result.skipped.length > 0 && (
        <ul>
          {result.skipped.map((s) => (
            <li key={s.path}>
              <code>
                <Revealed text={s.path} newlines="escape" />
              </code>{" "}
              — {s.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The offer after a branch switch, regenerate or edit: the branch left
 * behind changed files; undo those turns (newest first) or keep them.
 */
export function AbandonedChanges() {
  const { undoTurn, onAbandonedAnswered } = useChatSession();
  const turns = useSessionSelector((s) => s?.abandoned ?? NONE);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TurnUndone | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (result) {
    return (
      <div className="abandoned-changes" data-testid="abandoned-changes">
        <UndoSummary result={result} />
        <button type="button" className="btn btn-xs" onClick={() => setResult(null)}>
          Close
        </button>
      </div>
    );
  }
  if (turns.length === 0 || !undoTurn || !onAbandonedAnswered) return null;
  const files = turns.reduce((n, t) => n + t.files_changed, 0);
  const undoAll = async () => {
    setBusy(true);
    setError(null);
    const all: TurnUndone = { restored: [], skipped: [] };
    try {
      for (const t of turns) {
        const r = await undoTurn(t.turn_id);
        all.restored.push(...r.restored);
        all.skipped.push(...r.skipped);
      }
      setResult(all);
      onAbandonedAnswered();
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="abandoned-changes" role="alert" data-testid="abandoned-changes">
      <p>
        The branch you left changed {plural(files, "file", "files")} in the folder ({plural(turns.length, "turn", "turns")}). Undo those changes? Files changed
        since are left alone.
      </p>
      {error && <p className="turn-files-error">{error}</p>}
      <button type="button" className="btn btn-xs btn-danger" data-testid="undo-abandoned" disabled={busy} onClick={() => void undoAll()}>
        {busy ? "Undoing…" : "Undo those changes"}
      </button>{" "}
      <button type="button" className="btn btn-xs" disabled={busy} onClick={onAbandonedAnswered}>
        Keep them
      </button>
    </div>
  );
}

const NONE: never[] = [];

/** Props of TurnFiles. */
export interface TurnFilesProps {
  outcome: TurnOutcome;
}

/** "N files changed" with the diffs and Undo; nothing for a turn that changed no file or still runs. */
export function TurnFiles({ outcome: o }: TurnFilesProps) {
  const { turnChanges, undoTurn } = useChatSession();
  const [open, setOpen] = useState(false);
  const [changes, setChanges] = useState<TurnChanges | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<TurnUndone | null>(null);
  const n = o.files_changed ?? 0;
  if (n === 0 || o.status === "running" || !turnChanges) return null;
  const undone = o.files_undone === true || result !== null || changes?.undone !== undefined;
  const load = () => {
    setError(null);
    turnChanges(o.id).then(setChanges, (err: unknown) => setError(err instanceof Error ? err.message : String(err)));
  };
  const toggle = () => {
    if (!open && changes === null) load();
    setOpen(!open);
  };
  const undo = () => {
    if (!undoTurn) return;
    setBusy(true);
    setError(null);
    undoTurn(o.id).then(
      (r) => {
        setResult(r);
        setConfirming(false);
        setBusy(false);
        load();
      },
      (err: unknown) => {
        setError(err instanceof Error ? err.message : String(err));
        setBusy(false);
      },
    );
  };
  const shown = result ?? changes?.undone ?? null;
  return (
    <div className="turn-files" data-testid="turn-files" data-undone={undone ? "true" : "false"}>
      <div className="turn-files-bar">
        <button type="button" className="btn btn-xs turn-files-toggle" aria-expanded={open} onClick={toggle}>
          {plural(n, "file", "files")} changed
        </button>
        {undone ? (
          <span className="turn-files-undone">Undone</span>
        ) : (
          undoTurn &&
          !confirming && (
            <button type="button" className="btn btn-xs turn-undo" onClick={() => (setConfirming(true), !open && toggle())}>
              Undo
            </button>
          )
        )}
      </div>
      {confirming && !undone && (
        <div className="turn-undo-confirm" role="alertdialog" aria-label="Undo this turn's file changes">
          <p>
            Restore {plural(n, "file", "files")} to how they were before this turn? A file changed since (by you or a later turn) is left
            alone.
          </p>
          <button type="button" className="btn btn-xs btn-danger turn-undo-confirm-btn" disabled={busy} onClick={undo}>
            {busy ? "Undoing…" : "Undo changes"}
          </button>{" "}
          <button type="button" className="btn btn-xs" disabled={busy} onClick={() => setConfirming(false)}>
            Keep them
          </button>
        </div>
      )}
      {error && (
        <p className="turn-files-error" role="alert">
          {error}
        </p>
      )}
      {shown && <UndoSummary result={shown} />}
      {open && changes && (
        <ul className="turn-files-list" aria-label="Files this turn changed">
          {changes.changes.map((c) => (
            <ChangedFile key={c.path} change={c} />
          ))}
        </ul>
      )}
    </div>
  );
}
