// The input box: Enter sends, Shift+Enter inserts a newline, Esc cancels the
// running turn, Stop button while busy, queued submissions listed. It grows
// with its text up to half the window, then scrolls. Typing @ completes the
// folder's file paths (↑ ↓ choose, Enter or Tab insert, Esc closes); the
// hub attaches a mentioned file's content when the message is sent.

import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import type { QueuedTurn } from "../state";

/** The composer textarea's element id (the skip link and the focus shortcut target it). */
export const COMPOSER_ID = "composer-input";

/** The @-mention being typed before the caret: its query and where it starts (the @), or null. */
export function mentionAt(text: string, caret: number): { query: string; start: number } | null {
  const m = /(?:^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  if (!m) return null;
  return { query: m[1]!, start: caret - m[1]!.length - 1 };
}

/** Completion waits this long after the last keystroke. */
export const MENTION_DEBOUNCE_MS = 120;

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
  /** Completes an @-mention: the folder's paths matching the query (absent: no completion). */
  complete?: (query: string) => Promise<string[]>;
  disabled?: boolean;
}

/** The message composer. */
export function Composer({ busy, queued, onSend, onCancel, onCancelQueued, complete, disabled = false }: ComposerProps) {
  const [text, setText] = useState("");
  const area = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(0);
  const [options, setOptions] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const mention = complete ? mentionAt(text, caret) : null;
  const open = mention !== null && dismissed !== mention.start && options.length > 0;
  useEffect(() => {
    if (!complete || !mention) {
      setOptions([]);
      return undefined;
    }
    let live = true;
    const t = setTimeout(() => {
      void complete(mention.query).then(
        (paths) => live && (setOptions(paths), setActive(0)),
        () => live && setOptions([]),
      );
    }, MENTION_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [complete, mention?.query, mention?.start]);
  const pick = (path: string) => {
    if (!mention) return;
    const before = text.slice(0, mention.start);
    const after = text.slice(caret);
    const insert = `@${path} `;
    setText(before + insert + after.replace(/^\S*/, ""));
    setOptions([]);
    const at = before.length + insert.length;
    setCaret(at);
    requestAnimationFrame(() => area.current?.setSelectionRange(at, at));
  };
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
    if (open) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        setActive((active + (e.key === "ArrowDown" ? 1 : options.length - 1)) % options.length);
        return;
      }
      if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey) {
        e.preventDefault();
        pick(options[active] ?? options[0]!);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setDismissed(mention.start);
        return;
      }
    }
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
      {open && (
        <ul className="mention-list" role="listbox" id="mention-list" aria-label="Files in the folder">
          {options.map((p, i) => (
            <li key={p} role="option" aria-selected={i === active} className={i === active ? "is-active" : undefined} onMouseDown={(e) => (e.preventDefault(), pick(p))}>
              {p}
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={area}
        aria-autocomplete={complete ? "list" : undefined}
        aria-controls={open ? "mention-list" : undefined}
        aria-expanded={complete ? open : undefined}
        id={COMPOSER_ID}
        aria-label="Message"
        autoFocus
        value={text}
        rows={2}
        disabled={disabled}
        placeholder={busy ? "Agent is working — Enter queues, Esc stops" : "Message (Enter to send, Shift+Enter for a newline)"}
        onChange={(e) => {
          setText(e.target.value);
          setCaret(e.target.selectionStart ?? e.target.value.length);
        }}
        onSelect={(e) => setCaret(e.currentTarget.selectionStart ?? 0)}
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
