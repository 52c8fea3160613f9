// Branch controls of a message (docs/branching.md): ‹ n/m › at a branch
// point switches to a sibling; Edit turns a user message into a box whose
// text is sent as a new branch; Regenerate answers a turn again; Fork copies
// the conversation up to the message into a new session. Nothing is ever
// deleted: every branch stays one click away.

import { useState, type KeyboardEvent } from "react";
import type { ChatMessage } from "../state";
import { useChatSession, useSessionSelector } from "./session";

/** ‹ n/m › for a message with siblings; nothing otherwise. */
export function BranchNav({ message: m }: { message: ChatMessage }) {
  const { onSwitchBranch } = useChatSession();
  const busy = useSessionSelector((s) => s?.turn.running ?? false);
  const sib = m.siblings;
  if (!sib || sib.length < 2 || !onSwitchBranch) return null;
  const i = sib.indexOf(m.id);
  const go = (j: number) => sib[j] && onSwitchBranch(sib[j]);
  return (
    <span className="branch-nav" data-testid="branch-nav" aria-label={`Branch ${i + 1} of ${sib.length}`}>
      <button type="button" className="branch-step" aria-label="Previous branch" disabled={busy || i <= 0} onClick={() => go(i - 1)}>
        ‹
      </button>
      <span className="branch-count">
        {i + 1}/{sib.length}
      </span>
      <button type="button" className="branch-step" aria-label="Next branch" disabled={busy || i >= sib.length - 1} onClick={() => go(i + 1)}>
        ›
      </button>
    </span>
  );
}

/** The branch actions of a finished message: Edit (user), Regenerate (an answer that ends its turn), Fork. */
export function BranchActions({ message: m, onEdit }: { message: ChatMessage; onEdit?: () => void }) {
  const { onRegenerate, onFork } = useChatSession();
  const busy = useSessionSelector((s) => s?.turn.running ?? false);
  if (m.status === "streaming" || m.role === "toolResult") return null;
  const answer = m.role === "assistant" && m.stopReason !== "tool_use";
  return (
    <>
      {m.role === "user" && onEdit && (
        <button type="button" className="msg-action" data-testid="edit-message" disabled={busy} onClick={onEdit}>
          Edit
        </button>
      )}
      {answer && onRegenerate && (
        <button type="button" className="msg-action" data-testid="regenerate" disabled={busy} title="Answer this message again (the old answer stays, ‹ n/m ›)" onClick={() => void onRegenerate(m.id)}>
          Regenerate
        </button>
      )}
      {onFork && (
        <button type="button" className="msg-action" data-testid="fork" disabled={busy} title="A new session with the conversation up to here" onClick={() => onFork(m.id)}>
          Fork
        </button>
      )}
    </>
  );
}

/** The edit box of a user message: Enter (or Send) sends the text as a new branch, Esc cancels. */
export function EditBox({ message: m, text, onDone }: { message: ChatMessage; text: string; onDone: () => void }) {
  const { onEdit } = useChatSession();
  const [value, setValue] = useState(text);
  const [sending, setSending] = useState(false);
  const send = () => {
    if (!onEdit || value.trim() === "" || sending) return;
    setSending(true);
    void onEdit(m.id, value).then((ok) => {
      setSending(false);
      if (ok) onDone();
    });
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === "Escape") {
      e.preventDefault();
      onDone();
    }
  };
  return (
    <div className="msg-edit" data-testid="edit-box">
      <textarea aria-label="Edit the message" autoFocus value={value} rows={Math.min(12, Math.max(2, value.split("\n").length))} onChange={(e) => setValue(e.target.value)} onKeyDown={onKey} />
      <div className="msg-edit-actions">
        <span className="muted">Sends a new branch; the original stays (‹ n/m ›).</span>
        <button type="button" className="btn btn-xs" onClick={onDone} disabled={sending}>
          Cancel
        </button>
        <button type="button" className="btn btn-xs btn-primary" onClick={send} disabled={sending || value.trim() === ""}>
          {sending ? "Sending…" : "Send"}
        </button>
      </div>
    </div>
  );
}
