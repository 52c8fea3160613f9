// The input box: Enter sends, Shift+Enter inserts a newline, Esc cancels the
// running turn, Stop button while busy, queued submissions listed. It grows
// with its text up to half the window, then scrolls. Typing @ completes the
// folder's file paths (↑ ↓ choose, Enter or Tab insert, Esc closes); the
// hub attaches a mentioned file's content when the message is sent. Images
// and text files pasted, dropped or chosen with the paperclip upload at once
// and go with the next message (useAttachments); the @-completion is
// useMentions.

import { useLayoutEffect, useRef, useState, type KeyboardEvent } from "react";
import type { AttachmentInfo } from "../protocol";
import type { QueuedTurn } from "../state";
import { PendingAttachments } from "./Attachments";
import { useAttachments } from "./useAttachments";
import { useMentions } from "./useMentions";

export { caretPoint, MENTION_DEBOUNCE_MS, mentionAt } from "./useMentions";

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
  /**
   * Sends the text and the uploaded attachments; a promise resolving false
   * (e.g. the session could not be created) puts both back.
   */
  onSend: (text: string, attachments: AttachmentInfo[]) => void | Promise<boolean>;
  onCancel: () => void;
  /** Cancels one queued submission (its turn never starts). */
  onCancelQueued?: (turnId: string) => void;
  /** Completes an @-mention: the folder's paths matching the query (absent: no completion). */
  complete?: (query: string) => Promise<string[]>;
  disabled?: boolean;
  /** Uploads a pasted, dropped or chosen file (absent: no attachments); rejects with a message to show. */
  upload?: ((file: File) => Promise<AttachmentInfo>) | undefined;
}

/** The message composer. */
export function Composer({ busy, queued, onSend, onCancel, onCancelQueued, complete, disabled = false, upload }: ComposerProps) {
  const [text, setText] = useState("");
  const [caret, setCaret] = useState(0);
  const area = useRef<HTMLTextAreaElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const files = useAttachments(upload);
  const mentions = useMentions(complete, { text, setText, caret, setCaret, area, box });
  const canSend = !disabled && !files.uploading && (text.trim() !== "" || files.ready.length > 0);
  useLayoutEffect(() => {
    if (area.current) fitHeight(area.current, Math.max(120, Math.floor(window.innerHeight / 2)));
  }, [text]);
  const send = () => {
    if (!canSend) return;
    const sent = text;
    const kept = files.pending;
    const r = onSend(sent, files.ready.map((p) => ({ ...p.info!, name: p.name })));
    setText("");
    files.setPending([]);
    if (r instanceof Promise)
      void r.then((ok) => {
        if (ok) return;
        setText((cur) => (cur === "" ? sent : cur));
        files.setPending((cur) => (cur.length === 0 ? kept : cur));
      });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mentions.onKey(e)) return;
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === "Escape" && busy) {
      e.preventDefault();
      onCancel();
    }
  };
  return (
    <div ref={box} className={`composer${files.dragging ? " is-dragging" : ""}`} {...files.dropProps}>
      <QueuedList queued={queued} onCancelQueued={onCancelQueued} />
      {mentions.open && <MentionList {...mentions} />}
      <PendingAttachments items={files.pending} onRemove={files.remove} />
      <textarea
        ref={area}
        aria-autocomplete={complete ? "list" : undefined}
        aria-controls={mentions.open ? "mention-list" : undefined}
        aria-expanded={complete ? mentions.open : undefined}
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
        onPaste={files.onPaste}
      />
      <div className="composer-actions">
        {upload && <AttachButton disabled={disabled} onFiles={files.attach} />}
        {busy && (
          <button type="button" className="composer-stop" onClick={onCancel}>
            Stop
          </button>
        )}
        <button type="button" className="composer-send" onClick={send} disabled={!canSend}>
          {busy ? "Queue" : "Send"}
        </button>
      </div>
    </div>
  );
}

/** The queued submissions, each with a button that cancels it. */
function QueuedList({ queued, onCancelQueued }: { queued: QueuedTurn[]; onCancelQueued: ((turnId: string) => void) | undefined }) {
  if (queued.length === 0) return null;
  return (
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
  );
}

/** The @-mention completions, anchored at the @. */
function MentionList({ options, active, anchor, pick }: ReturnType<typeof useMentions>) {
  return (
    <ul className="mention-list" role="listbox" id="mention-list" aria-label="Files in the folder" style={anchor ? { left: anchor.left, bottom: anchor.bottom } : undefined}>
      {options.map((p, i) => (
        <li key={p} role="option" aria-selected={i === active} className={i === active ? "is-active" : undefined} onMouseDown={(e) => (e.preventDefault(), pick(p))}>
          {p}
        </li>
      ))}
    </ul>
  );
}

/** The paperclip: chooses files to attach. */
function AttachButton({ disabled, onFiles }: { disabled: boolean; onFiles: (files: File[]) => void }) {
  const picker = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        data-testid="attach-input"
        onChange={(e) => {
          onFiles(Array.from(e.target.files ?? []));
          e.target.value = "";
        }}
      />
      <button type="button" className="composer-attach icon-btn" aria-label="Attach images or files" title="Attach images or text files (or paste / drop them)" disabled={disabled} onClick={() => picker.current?.click()}>
        <svg className="icon" width={16} height={16} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" aria-hidden="true">
          <path d="M20 11.5l-8.5 8.5a5 5 0 0 1-7-7L13 4.5a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L14 7.5" />
        </svg>
      </button>
    </>
  );
}
