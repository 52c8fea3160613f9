// Asked when the window is closed (or Quit chosen) while turns run: quit
// anyway (the turns are interrupted and show so after the next start),
// cancel the turns and quit (they end as cancelled), or keep running.

import { useEffect, useRef } from "react";
import { useModal } from "../chat/modals";

/** The answers the window takes (app.AnswerQuit). */
export type QuitChoice = "quit" | "cancel" | "keep";

/** The quit confirmation for running turns; Esc or the backdrop keeps running. */
export function QuitDialog({ running, onAnswer }: { running: number; onAnswer: (choice: QuitChoice) => void }) {
  useModal();
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => keep.current?.focus(), []);
  const turns = running === 1 ? "A turn is" : `${running} turns are`;
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onAnswer("keep")} onKeyDown={(e) => e.key === "Escape" && onAnswer("keep")}>
      <div className="modal quit-dialog" role="alertdialog" aria-modal="true" aria-labelledby="quit-title" aria-describedby="quit-text" data-testid="quit-confirm">
        <h2 id="quit-title">Quit Agent Hub?</h2>
        <p id="quit-text">
          {turns} still running. Quitting stops {running === 1 ? "it" : "them"}: the answer so far is kept and the turn shows as interrupted.
        </p>
        <div className="quit-actions">
          <button type="button" className="btn" data-testid="quit-cancel" onClick={() => onAnswer("cancel")}>
            Cancel the {running === 1 ? "turn" : "turns"} and quit
          </button>
          <button type="button" className="btn btn-danger" data-testid="quit-anyway" onClick={() => onAnswer("quit")}>
            Quit
          </button>
          <button ref={keep} type="button" className="btn btn-primary" data-testid="quit-keep" onClick={() => onAnswer("keep")}>
            Keep running
          </button>
        </div>
      </div>
    </div>
  );
}
