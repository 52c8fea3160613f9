// The approval prompt inline on a tool card (docs/permissions.md): what the
// call would do (the full command, a coloured diff of the edit), why it asks
// and how risky it is, Approve once / Always / Deny with an optional message,
// and keyboard shortcuts (y / a / n) for the oldest prompt while focus is not
// in a text field. After the answer the card says who answered and how.

import { useEffect, useRef, useState } from "react";
import type { ApprovalAnswer } from "../protocol";
import type { ApprovalResolution, ToolCardState } from "../state";
import { DiffView } from "./DiffView";
import { MarkdownView } from "./Markdown";

/** The shortcut key of each answer. */
export const SHORTCUT_KEYS: Record<ApprovalAnswer, string> = { once: "y", always: "a", deny: "n" };

const INPUT_TYPES_WITHOUT_TEXT = new Set(["button", "checkbox", "radio", "submit", "reset", "range", "color", "file", "image"]);

/** Whether el takes typed text (a shortcut key typed there is text, not an answer). */
export function isTextField(el: EventTarget | null): boolean {
  if (typeof HTMLElement === "undefined" || !(el instanceof HTMLElement)) return false;
  if (el.isContentEditable) return true;
  if (el.tagName === "TEXTAREA" || el.tagName === "SELECT") return true;
  return el.tagName === "INPUT" && !INPUT_TYPES_WITHOUT_TEXT.has((el as HTMLInputElement).type);
}

/** What shortcutAnswer reads of a key press. */
export type ShortcutKey = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "repeat" | "target">;

/** The answer a key press gives: y, a or n without modifiers, outside text fields and dialogs; otherwise null. */
export function shortcutAnswer(e: ShortcutKey, doc: Document = document): ApprovalAnswer | null {
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || isTextField(e.target)) return null;
  if (doc.querySelector('[aria-modal="true"]')) return null;
  const key = e.key.toLowerCase();
  const hit = (Object.keys(SHORTCUT_KEYS) as ApprovalAnswer[]).find((a) => SHORTCUT_KEYS[a] === key);
  return hit ?? null;
}

/** One line on who answered and how: "approved by dashboard", "denied by window: not now", "cancelled (restart)". */
export function approvalOutcome(r: ApprovalResolution): string {
  const msg = r.message ? `: ${r.message}` : "";
  switch (r.decision) {
    case "once":
      return `approved by ${r.by}${msg}`;
    case "always":
      return `always allowed by ${r.by}${msg}`;
    case "deny":
      return `denied by ${r.by}${msg}`;
    case "cancelled":
      return `cancelled (${r.by === "cancel" ? "turn cancelled" : r.by})`;
    default:
      return `${r.decision} by ${r.by}${msg}`;
  }
}

function field(input: unknown, key: string): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const v = (input as Record<string, unknown>)[key];
  return typeof v === "string" ? v : undefined;
}

/** Props of ApprovalDetail. */
export interface ApprovalDetailProps {
  toolName: string;
  input: unknown;
  /** The request's Markdown, shown for tools without a view of their own. */
  summary: string;
}

/** What the call would do: bash's full command, edit_file's diff, write_file's content as added lines. */
export function ApprovalDetail({ toolName, input, summary }: ApprovalDetailProps) {
  const command = field(input, "command");
  const path = field(input, "path");
  const [old, next, content] = [field(input, "old"), field(input, "new"), field(input, "content")];
  if (toolName === "bash" && command !== undefined) {
    return (
      <pre className="approval-command">
        <code>{command}</code>
      </pre>
    );
  }
  if (toolName === "edit_file" && path !== undefined && old !== undefined && next !== undefined) return <DiffView path={path} old={old} text={next} />;
  if (toolName === "write_file" && path !== undefined && content !== undefined) return <DiffView path={path} text={content} />;
  if (summary) return <MarkdownView className="approval-summary" text={summary} />;
  return <pre className="tool-json">{JSON.stringify(input, null, 2)}</pre>;
}

/** Answers a prompt (allowGitWrites: this call may write .git); resolves true once the hub took the answer (false: it failed and the prompt stays). */
export type AnswerApproval = (answer: ApprovalAnswer, message: string, allowGitWrites?: boolean) => Promise<boolean>;

/** Props of ApprovalPrompt. */
export interface ApprovalPromptProps {
  /** A card whose approval is pending. */
  card: ToolCardState;
  /** The oldest prompt of the session: the keyboard shortcuts answer it. */
  active: boolean;
  onAnswer?: AnswerApproval;
}

const LABELS: Record<ApprovalAnswer, string> = { once: "Approve once", always: "Always", deny: "Deny" };
const TITLES: Record<ApprovalAnswer, string> = {
  once: "Run this call",
  always: "Run it and allow calls like it in this workspace from now on",
  deny: "Refuse it; the message, if any, goes to the model",
};

/** The prompt of a pending call. */
export function ApprovalPrompt({ card, active, onAnswer }: ApprovalPromptProps) {
  const request = card.approval?.request;
  const [message, setMessage] = useState("");
  const [gitWrites, setGitWrites] = useState(false);
  const [sent, setSent] = useState(false);
  const answer = async (a: ApprovalAnswer) => {
    if (!onAnswer || sent) return;
    setSent(true);
    const ok = a !== "deny" && gitWrites ? await onAnswer(a, message.trim(), true) : await onAnswer(a, message.trim());
    if (!ok) setSent(false);
  };
  const latest = useRef(answer);
  latest.current = answer;
  const shortcuts = active && onAnswer !== undefined;
  useEffect(() => {
    if (!shortcuts) return undefined;
    const onKey = (e: KeyboardEvent) => {
      const a = shortcutAnswer(e);
      if (!a) return;
      e.preventDefault();
      void latest.current(a);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [shortcuts]);
  if (!request) return null;
  return (
    <div className="approval-prompt" role="group" aria-label={`Approve ${card.toolName}?`} data-active={active ? "true" : undefined}>
      <p className="approval-why">
        <span className={`approval-risk risk-${request.risk}`}>{request.risk} risk</span>
        <span className="approval-reason">{request.reason}</span>
      </p>
      <ApprovalDetail toolName={card.toolName} input={card.input} summary={request.summary} />
      {request.git_writes_offer && (
        <label className="check approval-git" title="Off: the sandbox keeps .git read-only, so git commit and the like fail">
          <input type="checkbox" data-testid="approval-git-writes" checked={gitWrites} disabled={sent} onChange={(e) => setGitWrites(e.target.checked)} />
          Allow this command to write .git
        </label>
      )}
      <div className="approval-actions">
        <input
          type="text"
          className="approval-message"
          aria-label="Message to the model (optional)"
          placeholder="Optional message — Enter denies with it, Esc leaves the field"
          value={message}
          disabled={sent}
          onChange={(e) => setMessage(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void answer("deny");
            } else if (e.key === "Escape") {
              e.preventDefault();
              e.stopPropagation();
              e.currentTarget.blur();
            }
          }}
        />
        {(["once", "always", "deny"] as const).map((a) => (
          <button key={a} type="button" className={`btn btn-xs approval-${a}`} title={TITLES[a]} disabled={sent || !onAnswer} onClick={() => void answer(a)}>
            {LABELS[a]}
            {shortcuts && <kbd aria-label={`shortcut ${SHORTCUT_KEYS[a]}`}>{SHORTCUT_KEYS[a]}</kbd>}
          </button>
        ))}
      </div>
    </div>
  );
}
