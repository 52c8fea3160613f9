// The input box: Enter sends, Shift+Enter inserts a newline, Esc cancels the
// running turn, Stop button while busy, queued submissions listed. It grows
// with its text up to half the window, then scrolls.

import { useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import type { QueuedTurn } from "../state";

/** The composer textarea's element id (the skip link and the focus shortcut target it). */
export const COMPOSER_ID = "composer-input";

/** Sets a textarea's height to fit its content, at most maxPx (then it scrolls). */
export function fitHeight(el: HTMLTextAreaElement, maxPx: number): void {
  el.style.height = "auto";
  const h = Math.min(el.scrollHeight + 2, maxPx);
  el.style.height = `${h}px`;
  el.style.overflowY = el.scrollHeight + 2 > maxPx ? "auto" : "hidden";
}

/** Props of Composer. */
export interface ComposerProps {
  busy: boolean;
  queued: QueuedTurn[];
  /** Sends the text; a promise resolving false (e.g. the session could not be created) puts the text back. */
  onSend: (text: string) => void | Promise<boolean>;
  onCancel: () => void;
  /** Cancels one queued submission (its turn never starts). */
  onCancelQueued?: (turnId: string) => void;
  disabled?: boolean;
}

/** The message composer. */
export function Composer({ busy, queued, onSend, onCancel, onCancelQueued, disabled = false }: ComposerProps) {
  const [text, setText] = useState("");
  const area = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => {
    if (area.current) fitHeight(area.current, Math.max(120, Math.floor(window.innerHeight / 2)));
  }, [text]);
  const send = () => {
    if (disabled || text.trim() === "") return;
    const sent = text;
    const r = onSend(sent);
    setText("");
    if (r instanceof Promise) void r.then((ok) => !ok && setText((cur) => (cur === "" ? sent : cur)));
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
        ref={area}
        id={COMPOSER_ID}
        aria-label="Message"
        autoFocus
        value={text}
        rows={2}
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
