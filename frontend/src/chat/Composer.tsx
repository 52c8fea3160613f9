// The input box: Enter sends, Shift+Enter inserts a newline, Esc cancels the
// running turn, Stop button while busy, queued submissions listed.

import { useState, type KeyboardEvent } from "react";
import type { QueuedTurn } from "../state";

/** Props of Composer. */
export interface ComposerProps {
  busy: boolean;
  queued: QueuedTurn[];
  onSend: (text: string) => void;
  onCancel: () => void;
  /** Cancels one queued submission (its turn never starts). */
  onCancelQueued?: (turnId: string) => void;
  disabled?: boolean;
}

/** The message composer. */
export function Composer({ busy, queued, onSend, onCancel, onCancelQueued, disabled = false }: ComposerProps) {
  const [text, setText] = useState("");
  const send = () => {
    if (disabled || text.trim() === "") return;
    onSend(text);
    setText("");
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === "Escape" && busy) {
      e.preventDefault();
      onCancel();
    }
  };
  return (
    <div className="composer">
      {queued.length > 0 && (
        <ul className="composer-queue" aria-label="Queued messages">
          {queued.map((q) => (
            <li key={q.turnId} data-testid="queued-turn" data-confirmed={q.confirmed ? "true" : "false"}>
              <span className="composer-queue-label">Queued</span>
              <span className="composer-queue-text">{q.content}</span>
              {onCancelQueued && (
                <button type="button" className="icon-btn" aria-label={`Remove queued message: ${q.content.slice(0, 40)}`} onClick={() => onCancelQueued(q.turnId)}>
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <textarea
        aria-label="Message"
        autoFocus
        value={text}
        rows={3}
        disabled={disabled}
        placeholder={busy ? "Agent is working — Enter queues, Esc stops" : "Message (Enter to send, Shift+Enter for a newline)"}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        {busy && (
          <button type="button" className="composer-stop" onClick={onCancel}>
            Stop
          </button>
        )}
        <button type="button" className="composer-send" onClick={send} disabled={disabled || text.trim() === ""}>
          {busy ? "Queue" : "Send"}
        </button>
      </div>
    </div>
  );
}
