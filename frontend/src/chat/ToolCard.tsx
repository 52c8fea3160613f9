// One tool call: status, input (raw while streaming, parsed after), live
// output (tail window only), markdown summary, error and cancelled states,
// and its approval: the prompt while it waits, who answered after.

import { useMemo, useState } from "react";
import { isPending, type ToolCardState } from "../state";
import { ApprovalPrompt, approvalOutcome, type AnswerApproval } from "./ApprovalPrompt";
import { MarkdownView } from "./Markdown";

/** Lines shown while the output is collapsed. */
export const COLLAPSED_TAIL_LINES = 12;
/** Most lines ever put in the DOM for one output (the tail window). */
export const MAX_RENDERED_LINES = 400;

/** The last maxLines lines of text and how many lines were left out. */
export function tailLines(text: string, maxLines: number): { tail: string; hidden: number; total: number } {
  let idx = text.length;
  if (text.endsWith("\n")) idx--;
  let count = 0;
  while (idx > 0 && count < maxLines) {
    const nl = text.lastIndexOf("\n", idx - 1);
    count++;
    idx = nl === -1 ? 0 : nl;
    if (nl === -1) break;
  }
  const start = idx === 0 ? 0 : idx + 1;
  const before = text.slice(0, start);
  let hidden = 0;
  for (let i = 0; i < before.length; i++) if (before.charCodeAt(i) === 10) hidden++;
  return { tail: text.slice(start), hidden, total: hidden + count };
}

const STATUS_LABEL: Record<ToolCardState["status"], string> = {
  "streaming-input": "preparing",
  running: "running",
  done: "done",
  error: "error",
  cancelled: "cancelled",
};

const PREVIEW_KEYS = ["command", "path", "file_path", "pattern", "query", "url", "task"];

/**
 * A one-line preview of a tool's input (its command, path, pattern, …) for
 * cards without a status text: cards rebuilt from stored messages after a
 * reload, since status texts travel only in events.
 */
export function inputPreview(input: unknown): string {
  if (input === null || typeof input !== "object") return "";
  const rec = input as Record<string, unknown>;
  const key = PREVIEW_KEYS.find((k) => typeof rec[k] === "string" && rec[k] !== "") ?? Object.keys(rec).find((k) => typeof rec[k] === "string" && rec[k] !== "");
  if (key === undefined) return "";
  const line = (rec[key] as string).split("\n")[0]!.trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** Props of ToolCard. */
export interface ToolCardProps {
  card: ToolCardState;
  /** Answers the card's approval prompt (absent: the prompt shows without working buttons). */
  onAnswer?: AnswerApproval;
  /** The card holds the session's oldest prompt: the keyboard shortcuts answer it. */
  active?: boolean;
}

/** A tool call card. */
export function ToolCard({ card, onAnswer, active = false }: ToolCardProps) {
  const [expanded, setExpanded] = useState(false);
  const output = card.output ?? card.liveOutput;
  const limit = expanded ? MAX_RENDERED_LINES : COLLAPSED_TAIL_LINES;
  const view = useMemo(() => tailLines(output, limit), [output, limit]);
  const long = view.total > COLLAPSED_TAIL_LINES;
  const pending = isPending(card);
  const resolution = card.approval?.resolution ?? null;
  const busy = !pending && (card.status === "running" || card.status === "streaming-input");
  const inputText = card.status === "streaming-input" ? card.rawInput : JSON.stringify(card.input, null, 2);
  const statusText = card.statusText && card.statusText !== STATUS_LABEL[card.status] ? card.statusText : card.status === "streaming-input" ? "" : inputPreview(card.input);
  return (
    <section className={`tool-card tool-${card.status}`} aria-label={`Tool ${card.toolName}`} data-status={card.status} data-approval={pending ? "pending" : resolution?.decision}>
      <header className="tool-head">
        <span className={busy ? "tool-spinner" : pending ? "tool-dot tool-wait" : "tool-dot"} aria-hidden="true" />
        <span className="tool-name">{card.toolName || "tool"}</span>
        <span className="tool-status-text" title={statusText}>
          {statusText}
        </span>
        <span className="tool-badge">{pending ? "waiting for approval" : STATUS_LABEL[card.status]}</span>
      </header>
      {pending && <ApprovalPrompt card={card} active={active} {...(onAnswer ? { onAnswer } : {})} />}
      {resolution && <p className={`approval-outcome outcome-${resolution.decision}`}>{approvalOutcome(resolution)}</p>}
      <details className="tool-input">
        <summary>Input</summary>
        <pre className={card.status === "streaming-input" ? "tool-raw" : "tool-json"}>{inputText}</pre>
      </details>
      {card.summary && !pending && <MarkdownView className="tool-summary" text={card.summary} />}
      {card.errorMessage && card.status === "error" && (
        <p className="tool-error" role="alert">
          {card.errorClass ? `${card.errorClass}: ` : ""}
          {card.errorMessage}
        </p>
      )}
      {output !== "" && (
        <div className="tool-output">
          {(view.hidden > 0 || card.liveOutputDropped > 0) && (
            <p className="tool-output-hidden">
              {view.hidden} earlier line{view.hidden === 1 ? "" : "s"} not shown
              {card.outputPath ? ` — full output in ${card.outputPath}` : ""}
            </p>
          )}
          <pre className="tool-output-text">{view.tail}</pre>
          {long && (
            <button type="button" className="tool-toggle" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
              {expanded ? "Show less" : `Show more (${view.total} lines)`}
            </button>
          )}
        </div>
      )}
    </section>
  );
}
