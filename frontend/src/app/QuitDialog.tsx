// Asked when the window is closed (or Quit chosen) while turns run: Quit
// (the turns are stopped — they end as cancelled, what they wrote so far
// kept — and the app quits) or Stay (nothing changes).

import { useEffect, useRef } from "react";
import { useModal } from "../chat/modals";

/** The answers the window takes (app.AnswerQuit). */
export type QuitChoice = "quit" | "cancel" | "keep";

/** The quit confirmation for running turns: Quit stops them and quits; Stay, Esc or the backdrop keeps running. */
export function QuitDialog({ running, onAnswer }: { running: number; onAnswer: (choice: QuitChoice) => void }) {
  useModal();
  const stay = useRef<HTMLButtonElement>(null);
  useEffect(() => stay.current?.focus(), []);
  const turns = running === 1 ? "A turn is" : `${running} turns are`;
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onAnswer("keep")} onKeyDown={(e) => e.key === "Escape" && onAnswer("keep")}>
      <div className="modal quit-dialog" role="alertdialog" aria-modal="true" aria-labelledby="quit-title" aria-describedby="quit-text" data-testid="quit-confirm">
        <h2 id="quit-title">Quit Agent Hub?</h2>
        <p id="quit-text">
          {turns} still running. Quitting stops {running === 1 ? "it" : "them"}; what {running === 1 ? "it" : "they"} wrote so far is kept.
        </p>
        <div className="quit-actions">
          <button type="button" className="btn btn-danger" data-testid="quit" onClick={() => onAnswer("cancel")}>
            Quit
          </button>
          <button ref={stay} type="button" className="btn btn-primary" data-testid="quit-keep" onClick={() => onAnswer("keep")}>
            Stay
          </button>
        </div>
      </div>
    </div>
  );
}
