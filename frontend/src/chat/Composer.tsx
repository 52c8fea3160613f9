// The input box: Enter sends, Shift+Enter inserts a newline, Esc cancels the
// running turn, Stop button while busy, queued submissions listed. It grows
// with its text up to half the window, then scrolls. Typing @ completes the
// folder's file paths (↑ ↓ choose, Enter or Tab insert, Esc closes); the
// hub attaches a mentioned file's content when the message is sent. Images
// and text files pasted, dropped or chosen with the paperclip upload at once
// and go with the next message.

import { useEffect, useLayoutEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from "react";
import type { AttachmentInfo } from "../protocol";
import type { QueuedTurn } from "../state";
import { MAX_ATTACHMENTS, PendingAttachments, type PendingAttachment } from "./Attachments";

/** The composer textarea's element id (the skip link and the focus shortcut target it). */
export const COMPOSER_ID = "composer-input";

/**
 * Where the caret at index sits inside a textarea, in px from its top-left
 * corner (scroll included): measured on a mirror element with the
 * textarea's text styles, the text before the caret and a marker at it.
 */
export function caretPoint(el: HTMLTextAreaElement, index: number): { left: number; top: number } {
  const doc = el.ownerDocument;
  const style = doc.defaultView?.getComputedStyle(el);
  const mirror = doc.createElement("div");
  const props = ["boxSizing", "width", "paddingTop", "paddingRight", "paddingBottom", "paddingLeft", "borderTopWidth", "borderRightWidth", "borderBottomWidth", "borderLeftWidth", "fontFamily", "fontSize", "fontWeight", "fontStyle", "letterSpacing", "lineHeight", "textTransform", "wordSpacing", "tabSize"] as const;
  for (const p of props) if (style) mirror.style[p] = style[p];
  Object.assign(mirror.style, { position: "absolute", visibility: "hidden", top: "0", left: "-9999px", whiteSpace: "pre-wrap", overflowWrap: "break-word", overflow: "hidden" });
  mirror.textContent = el.value.slice(0, index);
  const mark = doc.createElement("span");
  mark.textContent = "\u200b";
  mirror.appendChild(mark);
  doc.body.appendChild(mirror);
  const point = { left: mark.offsetLeft - el.scrollLeft, top: mark.offsetTop - el.scrollTop };
  mirror.remove();
  return point;
}

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

let pendingSeq = 0;

/** The message composer. */
export function Composer({ busy, queued, onSend, onCancel, onCancelQueued, complete, disabled = false, upload }: ComposerProps) {
  const [text, setText] = useState("");
  const [pending, setPending] = useState<PendingAttachment[]>([]);
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const ready = pending.filter((p) => p.info !== null && p.error === null);
  const uploading = pending.some((p) => p.info === null && p.error === null);
  const canSend = !disabled && !uploading && (text.trim() !== "" || ready.length > 0);
  const attach = (files: File[]) => {
    if (!upload || files.length === 0) return;
    const room = MAX_ATTACHMENTS - pending.filter((p) => p.error === null).length;
    const items = files.map((f, i): PendingAttachment => ({
      key: `att-${++pendingSeq}`,
      name: f.name || "pasted image",
      info: null,
      error: i < room ? null : `${f.name || "pasted image"}: a message carries at most ${MAX_ATTACHMENTS} attachments`,
    }));
    setPending((cur) => [...cur, ...items]);
    items.forEach((item, i) => {
      if (item.error) return;
      upload(files[i]!).then(
        (info) => setPending((cur) => cur.map((p) => (p.key === item.key ? { ...p, info } : p))),
        (err: unknown) => setPending((cur) => cur.map((p) => (p.key === item.key ? { ...p, error: err instanceof Error ? err.message : String(err) } : p))),
      );
    });
  };
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const files = Array.from(e.clipboardData?.files ?? []);
    if (!upload || files.length === 0) return;
    e.preventDefault();
    attach(files);
  };
  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    setDragging(false);
    const files = Array.from(e.dataTransfer?.files ?? []);
    if (!upload || files.length === 0) return;
    e.preventDefault();
    attach(files);
  };
  const area = useRef<HTMLTextAreaElement>(null);
  const [caret, setCaret] = useState(0);
  const [options, setOptions] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const mention = complete ? mentionAt(text, caret) : null;
  const open = mention !== null && dismissed !== mention.start && options.length > 0;
  // The list opens at the @ being completed (the caret's line, its column), kept inside the composer.
  const box = useRef<HTMLDivElement>(null);
  const [anchor, setAnchor] = useState<{ left: number; bottom: number } | null>(null);
  useLayoutEffect(() => {
    const el = area.current;
    const host = box.current;
    if (!open || !el || !host || !mention) return setAnchor(null);
    const at = caretPoint(el, mention.start);
    const listWidth = Math.min(416, host.clientWidth - 16);
    const left = Math.max(8, Math.min(el.offsetLeft + at.left, host.clientWidth - listWidth - 8));
    setAnchor({ left, bottom: host.clientHeight - (el.offsetTop + at.top) + 4 });
  }, [open, mention?.start, text]);
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
    if (!canSend) return;
    const sent = text;
    const kept = pending;
    const r = onSend(sent, ready.map((p) => ({ ...p.info!, name: p.name })));
    setText("");
    setPending([]);
    if (r instanceof Promise)
      void r.then((ok) => {
        if (ok) return;
        setText((cur) => (cur === "" ? sent : cur));
        setPending((cur) => (cur.length === 0 ? kept : cur));
      });
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
    <div
      ref={box}
      className={`composer${dragging ? " is-dragging" : ""}`}
      {...(upload
        ? {
            onDragOver: (e: DragEvent<HTMLDivElement>) => {
              if (Array.from(e.dataTransfer?.types ?? []).includes("Files")) {
                e.preventDefault();
                setDragging(true);
              }
            },
            onDragLeave: () => setDragging(false),
            onDrop,
          }
        : {})}
    >
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
        <ul className="mention-list" role="listbox" id="mention-list" aria-label="Files in the folder" style={anchor ? { left: anchor.left, bottom: anchor.bottom } : undefined}>
          {options.map((p, i) => (
            <li key={p} role="option" aria-selected={i === active} className={i === active ? "is-active" : undefined} onMouseDown={(e) => (e.preventDefault(), pick(p))}>
              {p}
            </li>
          ))}
        </ul>
      )}
      <PendingAttachments items={pending} onRemove={(key) => setPending((cur) => cur.filter((p) => p.key !== key))} />
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
        onPaste={onPaste}
      />
      <div className="composer-actions">
        {upload && (
          <>
            <input
              ref={picker}
              type="file"
              multiple
              hidden
              data-testid="attach-input"
              onChange={(e) => {
                attach(Array.from(e.target.files ?? []));
                e.target.value = "";
              }}
            />
            <button type="button" className="composer-attach icon-btn" aria-label="Attach images or files" title="Attach images or text files (or paste / drop them)" disabled={disabled} onClick={() => picker.current?.click()}>
              <svg className="icon" width={16} height={16} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" aria-hidden="true">
                <path d="M20 11.5l-8.5 8.5a5 5 0 0 1-7-7L13 4.5a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L14 7.5" />
              </svg>
            </button>
          </>
        )}
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
