// One message: user or assistant content blocks (text as Markdown, thinking
// collapsible, tool calls as cards), annotations and a usage + cost line.

import type { Usage } from "../protocol";
import { firstPendingId, isPending, type ChatMessage } from "../state";
import { DelegationCard } from "./DelegationCard";
import { LiveText, MarkdownView } from "./Markdown";
import { useChatSession, useSessionSelector } from "./session";
import { ToolCard } from "./ToolCard";
import { TurnOutcomeView } from "./TurnOutcome";

/** Formats a dollar cost like the usage lines: four decimals under $1 ("$0.0087"), two from $1 ("$12.40"). */
export function formatCost(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** Formats a usage record as "1,200 in · 340 out · 800 cached · $0.0114". */
export function formatUsage(u: Usage): string {
  const parts = [`${u.input_tokens.toLocaleString("en-US")} in`, `${u.output_tokens.toLocaleString("en-US")} out`];
  const cached = (u.cache_read_tokens ?? 0) + (u.cache_write_tokens ?? 0);
  if (cached > 0) parts.push(`${cached.toLocaleString("en-US")} cached`);
  parts.push(formatCost(u.cost_usd));
  return parts.join(" · ");
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
  return <ToolCard card={tool} active={active} {...(onAnswer ? { onAnswer: (a, m) => onAnswer(toolUseId, a, m) } : {})} />;
}

/** Props of MessageView. */
export interface MessageViewProps {
  message: ChatMessage;
}

/** Renders one message. */
export function MessageView({ message: m }: MessageViewProps) {
  const streaming = m.status === "streaming";
  return (
    <article className={`msg msg-${m.role}${streaming ? " msg-streaming" : ""}`} data-status={m.status} aria-busy={streaming}>
      {m.content.map((b, i) => {
        switch (b.type) {
          case "text":
            return m.role === "user" ? (
              <p key={i} className="msg-user-text">
                {b.text}
              </p>
            ) : (
              <MarkdownView key={i} text={b.text} live={streaming} />
            );
          case "streamingText":
            return <MarkdownView key={i} text={b.chunks} live />;
          case "thinking":
          case "streamingThinking":
            return (
              <details key={i} className="msg-thinking">
                <summary>Thinking</summary>
                {b.type === "thinking" ? <p className="msg-thinking-text">{b.thinking}</p> : <LiveText className="msg-thinking-text" text={b.chunks} />}
              </details>
            );
          case "toolCall":
            return <ToolCallView key={i} toolUseId={b.id} />;
          case "image":
            return <img key={i} className="msg-image" alt="attached" src={`data:${b.source.media_type};base64,${b.source.data}`} />;
        }
      })}
      {m.role === "toolResult" && <pre className="tool-output-text">{m.content.map((b) => (b.type === "text" ? b.text : "")).join("")}</pre>}
      {m.role === "user" && m.turnOutcome && (
        <TurnOutcomeView outcome={m.turnOutcome} text={m.content.map((b) => (b.type === "text" ? b.text : "")).join("")} />
      )}
      {(m.annotation || m.usage) && (
        <footer className="msg-meta">
          {m.annotation && <span className="msg-annotation">{m.annotation}</span>}
          {m.usage && <span className="msg-usage">{formatUsage(m.usage)}</span>}
        </footer>
      )}
    </article>
  );
}
