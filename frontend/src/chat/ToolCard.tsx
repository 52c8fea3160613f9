// One tool call: status (a multi-line command's header says how many lines
// follow its first; hidden characters show as escapes with a warning,
// Reveal.tsx), input (raw while streaming, parsed after), its
// output once (the tail while it runs or when short; the whole of it in the
// full-output panel), the head line of its markdown summary, file edits as a
// coloured numbered diff, error and cancelled states, and its approval: the
// prompt while it waits, who answered after.

import { useCallback, useEffect, useMemo, useState } from "react";
import { isPending, type ToolCardState } from "../state";
import { ApprovalPrompt, approvalOutcome, type AnswerApproval } from "./ApprovalPrompt";
import { DiffView, FileSpotContext } from "./DiffView";
import { MarkdownView } from "./Markdown";
import { OutputPanel, type ReadOutput } from "./OutputPanel";
import { useOptionalChatSession } from "./session";
import { moreLinesLabel, revealText } from "./visible";
import { waitingStatus } from "./waiting";
import { HiddenBadge, Revealed } from "./Reveal";

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

/**
 * The head of a tool summary: its first paragraph. The rest repeats the
 * output (a code block of its tail) or the edit, which the card shows
 * itself — once — and names a server path a dashboard cannot open.
 */
export function summaryHead(summary: string): string {
  const cut = summary.indexOf("\n\n");
  const head = (cut === -1 ? summary : summary.slice(0, cut)).trim();
  // A summary that is a code block (an MCP result's text) is the output: shown once, below.
  return head.startsWith("```") || head.startsWith("~~~") ? "" : head;
}

/** Whether a tool is an MCP server's (named server__tool; no built-in tool's name has "__"). */
export function isMcpTool(name: string): boolean {
  return name.includes("__");
}

/** The line an edit started at, from edit_file's result ("… at line 12."). */
export function editLine(output: string | null): number {
  const m = output ? /at line (\d+)/.exec(output) : null;
  return m ? Number(m[1]) : 1;
}

function str(input: unknown, key: string): string | undefined {
  const v = input !== null && typeof input === "object" ? (input as Record<string, unknown>)[key] : undefined;
  return typeof v === "string" ? v : undefined;
}

/** The diff a finished file tool shows: edit_file's old → new, write_file's content. */
function FileDiff({ card }: { card: ToolCardState }) {
  const path = str(card.input, "path");
  if (path === undefined || card.status !== "done") return null;
  if (card.toolName === "edit_file") {
    const [old, next] = [str(card.input, "old"), str(card.input, "new")];
    if (old === undefined || next === undefined) return null;
    return <DiffView path={path} old={old} text={next} startLine={editLine(card.output)} />;
  }
  const content = str(card.input, "content");
  if (card.toolName === "write_file" && content !== undefined) return <DiffView path={path} text={content} />;
  return null;
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
  const session = useOptionalChatSession();
  const readToolOutput = session?.readToolOutput;
  const [expanded, setExpanded] = useState(false);
  const [panel, setPanel] = useState<{ query: string } | null>(null);
  // A search hit in this call's output opens the panel at the match, until it is closed (a card
  // mounted again meanwhile — the snapshot of the session just opened — opens it again).
  useEffect(() => {
    if (!session || !readToolOutput) return undefined;
    const { store, sessionId } = session;
    const check = () => {
      const f = store.getState().ui.focus;
      if (f?.sessionId === sessionId && f.toolUseId === card.toolUseId) setPanel((p) => p ?? { query: f.query ?? "" });
    };
    check();
    return store.subscribe(check);
  }, [session, readToolOutput, card.toolUseId]);
  const closePanel = useCallback(() => {
    setPanel(null);
    if (!session) return;
    const f = session.store.getState().ui.focus;
    if (f?.toolUseId === card.toolUseId) session.store.getState().dispatch({ type: "focusMessage", focus: { sessionId: f.sessionId, messageId: f.messageId } });
  }, [session, card.toolUseId]);
  const output = card.output ?? card.liveOutput;
  const limit = expanded ? MAX_RENDERED_LINES : COLLAPSED_TAIL_LINES;
  const view = useMemo(() => tailLines(output, limit), [output, limit]);
  const long = view.total > COLLAPSED_TAIL_LINES;
  const pending = isPending(card);
  const resolution = card.approval?.resolution ?? null;
  const busy = !pending && (card.status === "running" || card.status === "streaming-input");
  const finished = card.status === "done" || card.status === "error" || card.status === "cancelled";
  const fileTool = card.toolName === "edit_file" || card.toolName === "write_file";
  const inputText = card.status === "streaming-input" ? card.rawInput : JSON.stringify(card.input, null, 2);
  const baseStatus = card.statusText && card.statusText !== STATUS_LABEL[card.status] ? card.statusText : card.status === "streaming-input" ? "" : inputPreview(card.input);
  const statusText = pending ? waitingStatus(baseStatus) : baseStatus;
  const mcp = isMcpTool(card.toolName);
  // A running MCP call shows what it was called with (its summary whole: the arguments), its progress apart.
  const head = card.summary ? (mcp && busy ? card.summary : summaryHead(card.summary)) : "";
  const progress = mcp && busy && output !== "";
  // The header names the first line only: say how many follow ("(+60 lines)"), so nothing hides below it.
  const command = str(card.input, "command");
  const more = command !== undefined ? moreLinesLabel(command) : "";
  // More than the card shows exists: the panel reads all of it from the hub.
  const fuller = view.hidden > 0 || card.liveOutputDropped > 0 || card.truncated || (expanded && view.total > MAX_RENDERED_LINES);
  const read = useCallback<ReadOutput>((offset, length) => readToolOutput!(card.toolUseId, offset, length), [readToolOutput, card.toolUseId]);
  return (
    <section className={`tool-card tool-${card.status}`} aria-label={`Tool ${card.toolName}`} data-status={card.status} data-approval={pending ? "pending" : resolution?.decision}>
      <header className="tool-head">
        <span className={busy ? "tool-spinner" : pending ? "tool-dot tool-wait" : "tool-dot"} aria-hidden="true" />
        <span className="tool-name">{card.toolName || "tool"}</span>
        <span className="tool-status-text" title={revealText(statusText, { newlines: "escape" })}>
          <Revealed text={statusText} newlines="escape" />
        </span>
        {more && (
          <span className="tool-more-lines" data-testid="tool-more-lines" title="The command has more lines than its first">
            {more}
          </span>
        )}
        <HiddenBadge paths={[statusText]} texts={[inputText]} />
        <span className="tool-badge">{pending ? "waiting for approval" : STATUS_LABEL[card.status]}</span>
      </header>
      {pending && (
        <FileSpotContext.Provider value={card.approval?.request?.editContext ?? null}>
          <ApprovalPrompt card={card} active={active} {...(onAnswer ? { onAnswer } : {})} />
        </FileSpotContext.Provider>
      )}
      {resolution && <p className={`approval-outcome outcome-${resolution.decision}`}>{approvalOutcome(resolution)}</p>}
      <details className="tool-input">
        <summary>Input</summary>
        <pre className={card.status === "streaming-input" ? "tool-raw" : "tool-json"}>
          <Revealed text={inputText} />
        </pre>
      </details>
      {head && !pending && <MarkdownView className="tool-summary" text={revealText(head)} />}
      {!pending && <FileDiff card={card} />}
      {card.errorMessage && card.status === "error" && (
        <p className="tool-error" role="alert">
          {card.errorClass ? `${card.errorClass}: ` : ""}
          <Revealed text={card.errorMessage} />
        </p>
      )}
      {output !== "" && !(fileTool && card.status === "done") && (
        <div className={progress ? "tool-output tool-progress" : "tool-output"}>
          {progress && <p className="tool-output-label">Progress</p>}
          {view.hidden > 0 && (
            <p className="tool-output-hidden">
              {view.hidden.toLocaleString("en-US")} earlier line{view.hidden === 1 ? "" : "s"} not shown
            </p>
          )}
          <pre className="tool-output-text" data-testid="tool-output">
            <Revealed text={view.tail} />
          </pre>
          <div className="tool-output-actions">
            {long && view.total > COLLAPSED_TAIL_LINES && (
              <button type="button" className="btn btn-xs" aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
                {expanded ? "Show less" : `Show more (last ${Math.min(view.total, MAX_RENDERED_LINES)} lines)`}
              </button>
            )}
            {finished && readToolOutput && (fuller || long) && (
              <button type="button" className="btn btn-xs" data-testid="full-output" onClick={() => setPanel({ query: "" })}>
                Full output…
              </button>
            )}
          </div>
        </div>
      )}
      {panel && <OutputPanel title={`${card.toolName}: ${revealText(statusText, { newlines: "escape" })}`} read={read} initialQuery={panel.query} onClose={closePanel} />}
    </section>
  );
}
