// Stored messages → client state: history normalisation (seed 000), snapshot
// replacement and history-page merging. Pure functions.

import { addUsage, zeroUsage, type HistoryMessage, type Message, type SnapshotFrame, type ToolCallBlock } from "../protocol";
import { normaliseBlocks } from "../protocol";
import type { Session } from "../protocol";
import { chunkList } from "./chunks";
import type { ChatMessage, DelegationCardState, MessageBlock, QueuedTurn, SessionState, ToolCardState } from "./types";

/** Returns the annotation of a message status. */
export function annotationFor(status: string): ChatMessage["annotation"] {
  if (status === "cancelled") return "(cancelled)";
  if (status === "interrupted") return "(interrupted)";
  return null;
}

/** A fresh, empty session state. */
export function emptySession(sessionId: string): SessionState {
  return {
    sessionId,
    deleted: false,
    order: [],
    messages: {},
    streamingIds: [],
    tools: {},
    delegations: {},
    compaction: { inProgress: false, trigger: null, estimatedTokens: null, contextWindow: null, last: null },
    turn: { currentTurnId: null, running: false, queued: [] },
    sessionUsage: zeroUsage(),
    contextTokens: null,
    contextWindow: null,
    activeModel: null,
    lastError: null,
    stall: null,
    lastWarning: null,
    mcpServers: {},
    abandoned: [],
    lastEventId: null,
    turnsEnded: 0,
    connection: "connecting",
    hasMoreHistory: false,
  };
}

/** A new tool card in its initial state. */
export function newToolCard(toolUseId: string, toolName: string, messageId: string | null, turnId: string | null): ToolCardState {
  return {
    toolUseId,
    toolName,
    messageId,
    turnId,
    status: "streaming-input",
    rawInput: "",
    input: null,
    statusText: "",
    summary: "",
    liveOutput: "",
    liveOutputDropped: 0,
    output: null,
    truncated: false,
    outputBytes: null,
    outputPath: null,
    durationMs: null,
    errorClass: null,
    errorMessage: null,
    approval: null,
    workerSessionId: null,
  };
}

/** A block of a message still streaming, as the reducer appends to it: text and thinking as chunk lists. */
function streamingBlock(b: MessageBlock): MessageBlock {
  if (b.type === "text") return { type: "streamingText", chunks: chunkList(b.text) };
  if (b.type === "thinking") return b.signature ? { type: "streamingThinking", chunks: chunkList(b.thinking), signature: b.signature } : { type: "streamingThinking", chunks: chunkList(b.thinking) };
  return b;
}

/**
 * Normalises one stored or history message (string content → text block;
 * toolStatus from is_error). A snapshot's partial message (status
 * "streaming") gets chunk-list blocks, like one built from deltas.
 */
export function toChatMessage(m: Message | HistoryMessage): ChatMessage {
  const blocks: MessageBlock[] = normaliseBlocks(m.content);
  const cm: ChatMessage = {
    id: m.id,
    role: m.role,
    content: m.status === "streaming" ? blocks.map(streamingBlock) : blocks,
    status: m.status ?? "complete",
    stopReason: m.stop_reason ?? null,
    usage: m.usage ?? null,
    model: m.model ?? null,
    turnId: m.turn_id ?? null,
    offset: typeof m.offset === "number" ? m.offset : null,
    createdAt: m.created_at ?? null,
    annotation: annotationFor(m.status ?? "complete"),
  };
  if (m.turn) cm.turnOutcome = m.turn;
  if (m.siblings && m.siblings.length > 1) cm.siblings = m.siblings;
  if (m.retries) cm.retries = m.retries;
  if (m.role === "toolResult") {
    cm.toolCallId = m.tool_call_id ?? "";
    cm.toolName = m.tool_name ?? "";
    cm.isError = m.is_error === true;
    if (m.status_text) cm.statusText = m.status_text;
    if (m.summary) cm.summary = m.summary;
    if (m.approval) cm.approval = { decision: m.approval.decision, by: m.approval.by, message: m.approval.message ?? null };
    cm.toolStatus = m.status === "interrupted" ? "interrupted" : m.is_error ? "error" : "success";
  }
  return cm;
}

function textOf(m: ChatMessage): string {
  return m.content.map((b) => (b.type === "text" ? b.text : "")).join(""); // a toolResult message: never streaming
}

/**
 * Rebuilds derived data over all messages: toolArgs of toolResult messages
 * (from assistant toolCall blocks) and tool cards for stored tool calls that
 * have no live card yet. turnRunning decides how a call without a result shows.
 */
export function deriveTools(s: SessionState, turnRunning: boolean): SessionState {
  const calls = new Map<string, { block: ToolCallBlock; msg: ChatMessage }>();
  for (const id of s.order) {
    const m = s.messages[id];
    if (m?.role !== "assistant") continue;
    for (const b of m.content) if (b.type === "toolCall") calls.set(b.id, { block: b, msg: m });
  }
  const messages = { ...s.messages };
  const tools = { ...s.tools };
  const results = new Map<string, ChatMessage>();
  for (const id of s.order) {
    const m = messages[id];
    if (m?.role !== "toolResult" || !m.toolCallId) continue;
    results.set(m.toolCallId, m);
    const call = calls.get(m.toolCallId);
    if (call && !m.toolArgs) messages[id] = { ...m, toolArgs: call.block.arguments };
  }
  for (const [toolUseId, { block, msg }] of calls) {
    const existing = tools[toolUseId];
    const res = results.get(toolUseId);
    if (existing && (existing.status !== "streaming-input" || !res)) continue;
    const card = existing ?? newToolCard(toolUseId, block.name, msg.id, msg.turnId);
    let status: ToolCardState["status"];
    if (res) status = res.status === "cancelled" || res.status === "interrupted" ? "cancelled" : res.isError ? "error" : "done";
    else if (msg.status === "streaming") status = card.status;
    else if (msg.status === "cancelled" || msg.status === "interrupted" || !turnRunning) status = "cancelled";
    else status = "running";
    tools[toolUseId] = {
      ...card,
      input: block.arguments,
      status,
      output: res ? textOf(res) : card.output,
      statusText: res?.statusText || card.statusText,
      summary: res?.summary || card.summary,
      // Who answered its prompt stays in the history (a live card already knows).
      ...(res?.approval && !card.approval?.resolution ? { approval: { request: card.approval?.request ?? null, resolution: res.approval } } : {}),
    };
  }
  return { ...s, messages, tools, delegations: deriveDelegations(s.delegations, calls, results, tools) };
}

/**
 * Delegation cards for stored delegate calls that have none (a reload or a
 * snapshot after the delegate.* events): the task from the call's input, the
 * result from its toolResult. The worker's id and streamed text are known only
 * from live events.
 */
function deriveDelegations(
  have: SessionState["delegations"],
  calls: Map<string, { block: ToolCallBlock; msg: ChatMessage }>,
  results: Map<string, ChatMessage>,
  tools: SessionState["tools"],
): SessionState["delegations"] {
  let out = have;
  for (const [id, { block }] of calls) {
    if (block.name !== "delegate" || have[id]) continue;
    const res = results.get(id);
    const tool = tools[id];
    const task = typeof block.arguments.task === "string" ? block.arguments.task : "";
    const status: DelegationCardState["status"] =
      tool?.status === "cancelled" ? "cancelled" : res ? (res.isError ? "failed" : "done") : tool?.status === "error" ? "failed" : "running";
    const text = res ? textOf(res) : null;
    if (out === have) out = { ...have };
    out[id] = {
      toolUseId: id,
      workerSessionId: null,
      task,
      depth: 0,
      status,
      workerOutput: "",
      workerOutputDropped: 0,
      result: status === "done" ? text : null,
      success: status === "done" ? true : status === "running" ? null : false,
      failureMode: status === "failed" ? "error" : null,
      failureMessage: status === "failed" ? text : null,
      statusText: "",
      summary: "",
    };
  }
  return out;
}

/** Whether a message of turnId is known (the turn has started). */
function turnStarted(s: SessionState, turnId: string): boolean {
  for (const id of s.order) if (s.messages[id]?.turnId === turnId) return true;
  return false;
}

/**
 * Sets the queue from the session record's queued_turns (the server's state,
 * so the queue survives reloads and restarts). Entries of this client's own
 * submissions the record does not list yet stay until it does, or until their
 * turn starts or is cancelled; turns already started are never re-added.
 */
export function withServerQueue(s: SessionState, server: Session["queued_turns"]): SessionState {
  const listed = server ?? [];
  const ids = new Set(listed.map((q) => q.turn_id));
  const next: QueuedTurn[] = [];
  for (const q of listed) {
    if (q.turn_id === s.turn.currentTurnId || turnStarted(s, q.turn_id)) continue;
    next.push({ turnId: q.turn_id, content: q.content, confirmed: true });
  }
  for (const q of s.turn.queued) if (!q.confirmed && !ids.has(q.turnId)) next.push(q);
  const same = next.length === s.turn.queued.length && next.every((q, i) => {
    const p = s.turn.queued[i]!;
    return p.turnId === q.turnId && p.content === q.content && p.confirmed === q.confirmed;
  });
  return same ? s : { ...s, turn: { ...s.turn, queued: next } };
}

/** Replaces a session's state with a snapshot (keeping connection, queue and history paging). */
export function applySnapshot(prev: SessionState, f: SnapshotFrame): SessionState {
  const base = emptySession(prev.sessionId);
  const sorted = [...f.messages].sort((a, b) => a.offset - b.offset);
  const messages: Record<string, ChatMessage> = {};
  for (const m of sorted) messages[m.id] = toChatMessage(m);
  const current = f.session.current_turn_id ?? null;
  const s: SessionState = {
    ...base,
    order: sorted.map((m) => m.id),
    messages,
    streamingIds: sorted.filter((m) => m.status === "streaming").map((m) => m.id),
    turn: { currentTurnId: current, running: current !== null, queued: prev.turn.queued.filter((q) => !q.confirmed && q.turnId !== current) },
    sessionUsage: f.session.usage ?? zeroUsage(),
    activeModel: f.session.active_model || null,
    lastEventId: f.snapshot_at_event_id,
    connection: prev.connection,
    hasMoreHistory: sorted.length > 0 && (sorted[0]?.offset ?? 0) > 0,
    compaction: { ...base.compaction, last: prev.compaction.last },
  };
  return deriveTools(withServerQueue(s, f.session.queued_turns), current !== null);
}

/**
 * Merges a history page into the state without duplicates. Messages already
 * present (by id) keep their live state. Ordered by offset when every message
 * has one, otherwise the page (older) goes first.
 */
export function mergeHistory(prev: SessionState, page: HistoryMessage[], hasMore: boolean): SessionState {
  const messages = { ...prev.messages };
  const added: string[] = [];
  for (const hm of page) {
    if (messages[hm.id]) continue;
    messages[hm.id] = toChatMessage(hm);
    added.push(hm.id);
  }
  let order = [...added, ...prev.order];
  if (order.every((id) => messages[id]?.offset !== null)) {
    order = order
      .map((id, i) => ({ id, i, off: messages[id]?.offset ?? 0 }))
      .sort((a, b) => a.off - b.off || a.i - b.i)
      .map((x) => x.id);
  }
  return deriveTools({ ...prev, messages, order, hasMoreHistory: hasMore }, prev.turn.running);
}

/** Adds usage to the session total. */
export function addSessionUsage(s: SessionState, u: Parameters<typeof addUsage>[1]): SessionState {
  return { ...s, sessionUsage: addUsage(s.sessionUsage, u) };
}
