// One message: user or assistant content blocks (text as Markdown, thinking
// live while it streams then collapsed, tool calls as cards), annotations, a
// usage + cost line and a Copy button (the message as Markdown). Long user
// messages are collapsed behind "Show more".

import { useEffect, useState } from "react";
import type { Retries, Usage } from "../protocol";
import { blockText, firstPendingId, isPending, type ChatMessage, type MessageBlock } from "../state";
import { AttachedImage, FileChip, isFileBlock } from "./Attachments";
import { BranchActions, BranchNav, EditBox } from "./Branches";
import { DelegationCard } from "./DelegationCard";
import { LiveText, MarkdownView } from "./Markdown";
import { useChatSession, useSessionSelector } from "./session";
import { ToolCard } from "./ToolCard";
import { TurnFiles } from "./TurnFiles";
import { TurnOutcomeView } from "./TurnOutcome";

/** Formats a dollar cost like the usage lines: four decimals under $1 ("$0.0087"), two from $1 ("$12.40"). */
export function formatCost(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** Shown instead of a cost when tokens were used but no price is known for the model. */
export const UNKNOWN_PRICE = "—";
/** Says how to set a price the hub does not know. */
export const UNKNOWN_PRICE_HINT = "No price is known for this model: set one in Settings → Prices (USD per million tokens).";

/** The cost of a usage record: "—" when tokens were used at no known price. */
export function usageCost(u: Usage): string {
  return u.cost_usd === 0 && u.input_tokens + u.output_tokens > 0 ? UNKNOWN_PRICE : formatCost(u.cost_usd);
}

/**
 * Formats a usage record as "1,200 in · 340 out · 800 cached · $0.0114"
 * ("—" for an unknown price; "~75 out" when the output was estimated from
 * the streamed text because the provider sent no usage).
 */
export function formatUsage(u: Usage): string {
  const parts = [`${u.input_tokens.toLocaleString("en-US")} in`, `${u.output_estimated ? "~" : ""}${u.output_tokens.toLocaleString("en-US")} out`];
  const cached = (u.cache_read_tokens ?? 0) + (u.cache_write_tokens ?? 0);
  if (cached > 0) parts.push(`${cached.toLocaleString("en-US")} cached`);
  parts.push(usageCost(u));
  return parts.join(" · ");
}

/** Says what a usage line's marks mean: an estimated output, an unknown price. */
export const ESTIMATED_HINT = "~ estimated from the streamed text: the provider sent no usage for this reply (it was cut short).";

function usageTitle(u: Usage): string | undefined {
  const hints = [u.output_estimated ? ESTIMATED_HINT : "", usageCost(u) === UNKNOWN_PRICE ? UNKNOWN_PRICE_HINT : ""].filter(Boolean);
  return hints.length ? hints.join(" ") : undefined;
}

/** The message as Markdown: its text blocks (user text as typed), tool calls, thinking and attached files left out. */
export function messageMarkdown(m: ChatMessage): string {
  return m.content
    .filter((b) => !(b.type === "text" && isFileBlock(b.text)))
    .map((b) => blockText(b))
    .filter((t) => t !== "")
    .join("\n\n");
}

/** A user message longer than this many lines or characters is collapsed. */
export const COLLAPSE_LINES = 12;
export const COLLAPSE_CHARS = 1200;

/** Whether a user message's text is collapsed by default. */
export function isLongText(text: string): boolean {
  if (text.length > COLLAPSE_CHARS) return true;
  let lines = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10 && ++lines > COLLAPSE_LINES) return true;
  return false;
}

/** Copies the message's Markdown; the label says "Copied" for a moment. */
function CopyButton({ message }: { message: ChatMessage }) {
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return undefined;
    const t = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = () => {
    const text = messageMarkdown(message);
    const done = () => setCopied(true);
    const clip = globalThis.navigator?.clipboard;
    if (clip) void clip.writeText(text).then(done, () => fallbackCopy(text) && done());
    else if (fallbackCopy(text)) done();
  };
  return (
    <button type="button" className="msg-copy" data-testid="copy-message" aria-label={copied ? "Copied" : "Copy message as Markdown"} title="Copy as Markdown" onClick={copy}>
      {copied ? "Copied" : "Copy"}
    </button>
  );
}

/** Copies through a hidden textarea (pages without the async clipboard). */
function fallbackCopy(text: string): boolean {
  const ta = document.createElement("textarea");
  ta.value = text;
  ta.setAttribute("readonly", "");
  ta.style.position = "fixed";
  ta.style.opacity = "0";
  document.body.appendChild(ta);
  ta.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/** Whole seconds between two event times ("" when either is unknown). */
export function secondsBetween(from: string, to: string): number {
  return Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
}

/** A running "Thinking… N s" timer from the first thinking delta's time. */
function ThinkingTimer({ since }: { since: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  const s = Math.max(0, Math.round((now - Date.parse(since)) / 1000));
  return <span className="thinking-timer">{s} s</span>;
}

/**
 * A thinking block: the live text with a timer while the model thinks (the
 * last block of a streaming message), then collapsed to "Thought for N s".
 */
function ThinkingView({ block, time, live, since }: { block: Extract<MessageBlock, { type: "thinking" | "streamingThinking" }>; time: ChatMessage["thinkingTime"]; live: boolean; since: string | null }) {
  const text = block.type === "thinking" ? <p className="msg-thinking-text">{block.thinking}</p> : <LiveText className="msg-thinking-text" text={block.chunks} />;
  if (live) {
    return (
      <div className="msg-thinking is-live" data-testid="thinking-live" role="status" aria-live="off">
        <div className="msg-thinking-head">
          <span className="tool-spinner" aria-hidden="true" /> Thinking… {since && <ThinkingTimer since={since} />}
        </div>
        {text}
      </div>
    );
  }
  const took = time?.endedAt ? secondsBetween(time.startedAt, time.endedAt) : null;
  return (
    <details className="msg-thinking" data-testid="thinking">
      <summary>{took !== null ? `Thought for ${took} s` : "Thought"}</summary>
      {text}
    </details>
  );
}

/** A user message's text, collapsed behind "Show more" when long. */
function UserText({ text }: { text: string }) {
  const long = isLongText(text);
  const [open, setOpen] = useState(false);
  return (
    <div className={`msg-user-wrap${long && !open ? " is-collapsed" : ""}`}>
      <p className="msg-user-text">{text}</p>
      {long && (
        <button type="button" className="msg-more" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Show less" : "Show more"}
        </button>
      )}
    </div>
  );
}

/** A tool call of a message: its delegation card or tool card, selected by id (output deltas re-render the card alone). */
export function ToolCallView({ toolUseId }: { toolUseId: string }) {
  const { onOpenSession, onAnswer } = useChatSession();
  const delegation = useSessionSelector((s) => s?.delegations[toolUseId]);
  const tool = useSessionSelector((s) => s?.tools[toolUseId]);
  // Only a waiting card looks for the oldest prompt: the others select a constant.
  const active = useSessionSelector((s) => isPending(s?.tools[toolUseId]) && firstPendingId(s) === toolUseId);
  if (delegation && !isPending(tool)) return <DelegationCard card={delegation} approval={tool?.approval?.resolution ?? null} {...(onOpenSession ? { onOpenSession } : {})} />;
  if (!tool) return null;
  return <ToolCard card={tool} active={active} {...(onAnswer ? { onAnswer: (a, m, r, git) => onAnswer(toolUseId, a, m, r, git) } : {})} />;
}

/** Props of MessageView. */
export interface MessageViewProps {
  message: ChatMessage;
  /** The message a search hit jumped to: highlighted. */
  focused?: boolean;
}

/** "retried 2× (overloaded)": how often the message's LLM call was retried, and why the last failed attempt failed. */
export function retriesText(r: Retries): string {
  return `retried ${r.count}× (${r.error_class.replaceAll("_", " ") || "error"})`;
}

/** Renders one message. */
export function MessageView({ message: m, focused = false }: MessageViewProps) {
  const streaming = m.status === "streaming";
  const copyable = !streaming && m.role !== "toolResult" && m.content.some((b) => b.type === "text" && b.text !== "");
  const [editing, setEditing] = useState(false);
  const userText = m.role === "user" ? m.content.map((b) => (b.type === "text" && !isFileBlock(b.text) ? b.text : "")).join("") : "";
  const branchable = !streaming && m.role !== "toolResult";
  return (
    <article className={`msg msg-${m.role}${streaming ? " msg-streaming" : ""}${focused ? " is-focused" : ""}`} data-status={m.status} data-message-id={m.id} aria-busy={streaming}>
      {m.content.map((b, i) => {
        switch (b.type) {
          case "text":
            if (m.role === "user" && isFileBlock(b.text)) return <FileChip key={i} text={b.text} />;
            if (m.role === "user" && editing) return i === m.content.findIndex((x) => x.type === "text") ? <EditBox key={i} message={m} text={userText} onDone={() => setEditing(false)} /> : null;
            return m.role === "user" ? <UserText key={i} text={b.text} /> : <MarkdownView key={i} text={b.text} live={streaming} />;
          case "streamingText":
            return <MarkdownView key={i} text={b.chunks} live />;
          case "thinking":
          case "streamingThinking":
            return (
              <ThinkingView
                key={i}
                block={b}
                time={m.thinkingTime}
                live={streaming && i === m.content.length - 1 && !m.thinkingTime?.endedAt}
                since={m.thinkingTime?.startedAt ?? m.createdAt}
              />
            );
          case "toolCall":
            return <ToolCallView key={i} toolUseId={b.id} />;
          case "image":
            return <AttachedImage key={i} source={b.source} />;
        }
      })}
      {m.role === "toolResult" && <pre className="tool-output-text">{m.content.map((b) => (b.type === "text" ? b.text : "")).join("")}</pre>}
      {m.role === "user" && m.turnOutcome && <TurnOutcomeView outcome={m.turnOutcome} text={userText} messageId={m.id} />}
      {m.role === "user" && m.turnOutcome && <TurnFiles outcome={m.turnOutcome} />}
      {(m.annotation || m.usage || m.retries || copyable || branchable) && !editing && (
        <footer className="msg-meta">
          <BranchNav message={m} />
          {m.annotation && <span className="msg-annotation">{m.annotation}</span>}
          {m.retries && (
            <span className="msg-retries" data-testid="msg-retries" title={m.retries.error}>
              {retriesText(m.retries)}
            </span>
          )}
          {m.usage && (
            <span className="msg-usage" data-estimated={m.usage.output_estimated ? "true" : undefined} title={usageTitle(m.usage)}>
              {formatUsage(m.usage)}
            </span>
          )}
          {copyable && <CopyButton message={m} />}
          {branchable && <BranchActions message={m} {...(userText.trim() !== "" ? { onEdit: () => setEditing(true) } : {})} />}
        </footer>
      )}
    </article>
  );
}
