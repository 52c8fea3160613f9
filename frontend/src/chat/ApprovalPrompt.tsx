// The approval prompt inline on a tool card (docs/permissions.md): what the
// call would do (the full command with its line count and hidden characters
// shown, Reveal.tsx; a coloured diff of the edit), why it asks and how risky
// it is, the rule "Always" would store (editable for bash, or why "Always" is
// not available), Approve once / Always / Deny with an optional message, and
// keyboard shortcuts (y / a / n) for the oldest prompt while focus is not in a
// text field. After the answer the card says who answered and how.

import { useEffect, useRef, useState } from "react";
import type { ApprovalAnswer, PermissionRule } from "../protocol";
import type { ApprovalResolution, ToolCardState } from "../state";
import { DiffView } from "./DiffView";
import { MarkdownView } from "./Markdown";
import { modalOpen } from "./modals";
import { revealText } from "./visible";
import { CommandView, Revealed } from "./Reveal";
import { COMPOSER_ID } from "./Composer";

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

/**
 * Whether el is the message composer with nothing typed in it: a waiting
 * prompt takes y / a / n from there (the composer has focus right after a
 * message is sent, which is when prompts appear), but never from a user
 * who is writing. Model output cannot pose as it: rendered Markdown has no
 * forms and no ids.
 */
export function isIdleComposer(el: EventTarget | null): boolean {
  if (typeof HTMLTextAreaElement === "undefined" || !(el instanceof HTMLTextAreaElement)) return false;
  return el.id === COMPOSER_ID && el.value === "";
}

/** What shortcutAnswer reads of a key press. */
export type ShortcutKey = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "repeat" | "target">;

/**
 * The answer a key press gives: y, a or n without modifiers, outside text
 * fields (the empty composer excepted: isIdleComposer) and while none of
 * the app's dialogs is open (modals.ts: the app's own state, never the DOM,
 * which model output can write into); otherwise null.
 */
export function shortcutAnswer(e: ShortcutKey, dialogOpen: boolean = modalOpen()): ApprovalAnswer | null {
  if (e.ctrlKey || e.metaKey || e.altKey || e.repeat) return null;
  if (isTextField(e.target) && !isIdleComposer(e.target)) return null;
  if (dialogOpen) return null;
  const key = e.key.toLowerCase();
  const hit = (Object.keys(SHORTCUT_KEYS) as ApprovalAnswer[]).find((a) => SHORTCUT_KEYS[a] === key);
  return hit ?? null;
}

/** What an allow rule covers, in words: "bash: commands starting with git status", "bash: exactly python3 build.py", "write_file: every call". */
export function alwaysRuleText(r: PermissionRule): string {
  if (r.command) return `${r.tool}: exactly ${r.command}`;
  if (r.prefix) return `${r.tool}: commands starting with ${r.prefix}`;
  return `${r.tool}: every call`;
}

/** One line on who answered and how: "approved by dashboard", "denied by window: not now", "cancelled (restart)". */
export function approvalOutcome(r: ApprovalResolution): string {
  const msg = r.message ? `: ${r.message}` : "";
  switch (r.decision) {
    case "once":
      return `approved by ${r.by}${msg}`;
    case "always":
      return `always allowed by ${r.by}${r.rule ? ` (${alwaysRuleText(r.rule)})` : ""}${msg}`;
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
    return <CommandView command={command} />;
  }
  if (toolName === "edit_file" && path !== undefined && old !== undefined && next !== undefined) return <DiffView path={path} old={old} text={next} />;
  if (toolName === "write_file" && path !== undefined && content !== undefined) return <DiffView path={path} text={content} />;
  if (summary) return <MarkdownView className="approval-summary" text={revealText(summary)} />;
  return (
    <pre className="tool-json">
      <Revealed text={JSON.stringify(input, null, 2)} />
    </pre>
  );
}

/** Answers a prompt (rule: for "always", the rule to store; allowGitWrites: this call may write .git); resolves true once the hub took the answer (false: it failed and the prompt stays). */
export type AnswerApproval = (answer: ApprovalAnswer, message: string, rule?: PermissionRule, allowGitWrites?: boolean) => Promise<boolean>;

/** Props of AlwaysRule. */
export interface AlwaysRuleProps {
  rule: PermissionRule | undefined;
  disabled: boolean;
  onChange: (rule: PermissionRule) => void;
}

/** The rule "Always" stores, editable for bash (starts with / exactly, and the words); or why "Always" is not available. */
export function AlwaysRule({ rule, disabled, onChange }: AlwaysRuleProps) {
  const [editing, setEditing] = useState(false);
  if (!rule) {
    return (
      <p className="approval-rule approval-rule-none" data-testid="always-rule">
        “Always” is not available for this call: no rule covers it safely (several different commands, a write to a file, a computed word, or a protected path).
      </p>
    );
  }
  const exact = rule.command !== undefined;
  const words = rule.command ?? rule.prefix ?? "";
  const set = (kind: "prefix" | "command", text: string) => onChange({ tool: rule.tool, action: rule.action, [kind]: text });
  return (
    <div className="approval-rule" data-testid="always-rule">
      <span>“Always” stores </span>
      {editing && rule.tool === "bash" ? (
        <span role="group" aria-label="Rule to store">
          <select aria-label="Rule kind" value={exact ? "command" : "prefix"} disabled={disabled} onChange={(e) => set(e.target.value === "command" ? "command" : "prefix", words)}>
            <option value="prefix">commands starting with</option>
            <option value="command">exactly the command</option>
          </select>
          <input type="text" aria-label="Rule words" value={words} disabled={disabled} onChange={(e) => set(exact ? "command" : "prefix", e.target.value)} />
        </span>
      ) : (
        <code className="approval-rule-text">{alwaysRuleText(rule)}</code>
      )}
      {rule.tool === "bash" && !editing && (
        <button type="button" className="btn btn-xs" disabled={disabled} onClick={() => setEditing(true)}>
          Edit
        </button>
      )}
    </div>
  );
}

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
  always: "Run it and store the rule shown, for this workspace, from now on",
  deny: "Refuse it; the message, if any, goes to the model",
};

/** The prompt of a pending call. */
export function ApprovalPrompt({ card, active, onAnswer }: ApprovalPromptProps) {
  const request = card.approval?.request;
  const [message, setMessage] = useState("");
  const [gitWrites, setGitWrites] = useState(false);
  const [sent, setSent] = useState(false);
  const [rule, setRule] = useState<PermissionRule | undefined>(request?.alwaysRule);
  const answer = async (a: ApprovalAnswer) => {
    if (!onAnswer || sent || (a === "always" && !rule)) return;
    setSent(true);
    const git = a !== "deny" && gitWrites;
    const r = a === "always" ? rule : undefined;
    const ok = git ? await onAnswer(a, message.trim(), r, true) : r ? await onAnswer(a, message.trim(), r) : await onAnswer(a, message.trim());
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
      <AlwaysRule rule={rule} disabled={sent} onChange={setRule} />
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
          <button
            key={a}
            type="button"
            className={`btn btn-xs approval-${a}`}
            title={a === "always" && !rule ? "Not available: no rule covers this call safely" : TITLES[a]}
            disabled={sent || !onAnswer || (a === "always" && !rule)}
            onClick={() => void answer(a)}
          >
            {LABELS[a]}
            {shortcuts && <kbd aria-label={`shortcut ${SHORTCUT_KEYS[a]}`}>{SHORTCUT_KEYS[a]}</kbd>}
          </button>
        ))}
      </div>
    </div>
  );
}
