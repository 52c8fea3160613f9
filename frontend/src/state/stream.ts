// Reducer cases of the streaming family (message.*, text/thinking deltas,
// tool.use_*, tool.output_delta). Pure functions of (state, event).

import type { ContentBlock, EnvelopeBase, PayloadMap } from "../protocol";
import { appendChunks, chunkList, chunkText, type ChunkList } from "./chunks";
import { annotationFor, newToolCard } from "./history";
import type { ChatMessage, DelegationCardState, MessageBlock, SessionState, ToolCardState } from "./types";

/** Live output kept per tool card / delegation card; older text is dropped from the front. */
export const LIVE_OUTPUT_CAP = 512 * 1024;

type Ev<K extends keyof PayloadMap> = EnvelopeBase<K, PayloadMap[K]>;

/** Logger for reducer diagnostics; replace with setReducerLogger. */
let debugLog: (msg: string, detail?: unknown) => void = (msg, detail) => console.debug(`[chat] ${msg}`, detail ?? "");

/** Replaces the reducer's debug logger (tests pass a spy; production keeps console.debug). */
export function setReducerLogger(fn: (msg: string, detail?: unknown) => void): void {
  debugLog = fn;
}

/** Logs a reducer diagnostic at debug level. */
export function logDebug(msg: string, detail?: unknown): void {
  debugLog(msg, detail);
}

/** Appends text to a capped buffer, returning the new buffer and the total dropped count. */
export function appendCapped(buf: string, dropped: number, text: string): [string, number] {
  const next = buf + text;
  if (next.length <= LIVE_OUTPUT_CAP) return [next, dropped];
  const cut = next.length - LIVE_OUTPUT_CAP;
  return [next.slice(cut), dropped + cut];
}

function newAssistant(id: string, model: string | null, turnId: string | null): ChatMessage {
  return {
    id,
    role: "assistant",
    content: [],
    status: "streaming",
    stopReason: null,
    usage: null,
    model,
    turnId,
    offset: null,
    createdAt: null,
    annotation: null,
  };
}

function putMessage(s: SessionState, m: ChatMessage): SessionState {
  const known = s.messages[m.id] !== undefined;
  return {
    ...s,
    messages: { ...s.messages, [m.id]: m },
    order: known ? s.order : [...s.order, m.id],
    streamingIds: m.status === "streaming" ? (s.streamingIds.includes(m.id) ? s.streamingIds : [...s.streamingIds, m.id]) : s.streamingIds.filter((x) => x !== m.id),
  };
}

/**
 * The message's thinking time once something other than thinking arrived at
 * ts: the open span closed, or — for a message whose thinking came in a
 * snapshot — a span from the message's creation. Unchanged otherwise.
 */
function thinkingEnded(m: ChatMessage, ts: string): ChatMessage["thinkingTime"] {
  if (m.thinkingTime) return m.thinkingTime.endedAt === null ? { ...m.thinkingTime, endedAt: ts } : m.thinkingTime;
  const thought = m.content.some((b) => b.type === "thinking" || b.type === "streamingThinking");
  return thought && m.createdAt ? { startedAt: m.createdAt, endedAt: ts } : undefined;
}

/** Returns the streaming message, creating it if a delta arrives first. */
function streamingMessage(s: SessionState, id: string, turnId: string | null): ChatMessage {
  return s.messages[id] ?? newAssistant(id, null, turnId);
}

/** Sets content[index] via fn, filling any gap with empty text blocks. */
function withBlock(content: MessageBlock[], index: number, fn: (b: MessageBlock | undefined) => MessageBlock): MessageBlock[] {
  const next = content.slice();
  while (next.length < index) next.push({ type: "text", text: "" });
  next[index] = fn(content[index]);
  return next;
}

/** The text of a block as plain content: a streaming block's chunks joined (once, when it settles). */
export function settleBlock(b: MessageBlock): ContentBlock {
  if (b.type === "streamingText") return { type: "text", text: chunkText(b.chunks) };
  if (b.type === "streamingThinking") {
    const t: ContentBlock = { type: "thinking", thinking: chunkText(b.chunks) };
    return b.signature ? { ...t, signature: b.signature } : t;
  }
  return b;
}

/** Plain content blocks of a message (streaming blocks joined): for a message that stopped streaming, exports and tests. */
export function settleBlocks(content: readonly MessageBlock[]): ContentBlock[] {
  return content.map(settleBlock);
}

/** Characters of text and thinking in a message's blocks (streaming ones counted without joining them). */
function textLength(content: readonly MessageBlock[]): number {
  let n = 0;
  for (const b of content) {
    if (b.type === "text") n += b.text.length;
    else if (b.type === "thinking") n += b.thinking.length;
    else if (b.type === "streamingText" || b.type === "streamingThinking") n += b.chunks.length;
  }
  return n;
}

/** The chunks a delta appends to: the block's own, a stored text's (a snapshot's partial message), or none (a new block). */
function chunksOfBlock(b: MessageBlock | undefined, kind: "text" | "thinking"): ChunkList {
  if (kind === "text") {
    if (b?.type === "streamingText") return b.chunks;
    if (b?.type === "text") return chunkList(b.text);
  } else {
    if (b?.type === "streamingThinking") return b.chunks;
    if (b?.type === "thinking") return chunkList(b.thinking);
  }
  return chunkList();
}

/** A run of text or thinking deltas to the same block of the same message, oldest first. */
export type DeltaRun = Ev<"text.delta">[] | Ev<"thinking.delta">[];

/**
 * Applies a run of deltas to one block in one step: their texts are appended
 * to the block's chunk list, the message is replaced once. A single delta is
 * a run of one.
 */
export function onDeltaRun(s: SessionState, run: DeltaRun): SessionState {
  const first = run[0];
  if (!first) return s;
  const p = first.payload;
  const m = streamingMessage(s, p.message_id, first.turn_id);
  if (m.status !== "streaming") return s;
  const texts = run.map((e) => e.payload.text);
  let content: MessageBlock[];
  if (first.type === "text.delta") {
    content = withBlock(m.content, p.content_block_index, (b) => ({ type: "streamingText", chunks: appendChunks(chunksOfBlock(b, "text"), ...texts) }));
    const thinkingTime = thinkingEnded(m, first.ts);
    if (thinkingTime !== m.thinkingTime) return putMessage(s, thinkingTime ? { ...m, content, thinkingTime } : { ...m, content });
  } else {
    let signature: string | undefined;
    for (const e of run as Ev<"thinking.delta">[]) if (e.payload.signature) signature = e.payload.signature;
    content = withBlock(m.content, p.content_block_index, (b) => {
      signature ??= b?.type === "streamingThinking" || b?.type === "thinking" ? b.signature : undefined;
      const chunks = appendChunks(chunksOfBlock(b, "thinking"), ...texts);
      return signature ? { type: "streamingThinking", chunks, signature } : { type: "streamingThinking", chunks };
    });
    if (!m.thinkingTime) return putMessage(s, { ...m, content, thinkingTime: { startedAt: first.ts, endedAt: null } });
  }
  return putMessage(s, { ...m, content });
}

/** s with the tool card set. */
export function putTool(s: SessionState, card: ToolCardState): SessionState {
  return { ...s, tools: { ...s.tools, [card.toolUseId]: card } };
}

/** s with the delegation card set. */
export function putDelegation(s: SessionState, d: DelegationCardState): SessionState {
  return { ...s, delegations: { ...s.delegations, [d.toolUseId]: d } };
}

/** A new delegation card in its initial state. */
export function newDelegation(toolUseId: string): DelegationCardState {
  return {
    toolUseId,
    workerSessionId: null,
    task: "",
    depth: 0,
    status: "running",
    workerOutput: "",
    workerOutputDropped: 0,
    result: null,
    success: null,
    failureMode: null,
    failureMessage: null,
    statusText: "",
    summary: "",
  };
}

/** Returns the tool card for id, creating one if events arrive out of the usual order. */
export function toolCard(s: SessionState, id: string, name: string, turnId: string | null): ToolCardState {
  return s.tools[id] ?? newToolCard(id, name, null, turnId);
}

/** Applies message.start. */
export function onMessageStart(s: SessionState, e: Ev<"message.start">): SessionState {
  const existing = s.messages[e.payload.message_id];
  if (existing && existing.status !== "streaming") return s;
  return putMessage(s, existing ?? newAssistant(e.payload.message_id, e.payload.model || null, e.turn_id));
}

/**
 * Applies message.reset: a retried call streams the message again, so its
 * content so far and the tool cards of its void tool calls are dropped
 * (nothing of the failed attempt stays on screen) and the retry is noted.
 */
export function onMessageReset(s: SessionState, e: Ev<"message.reset">): SessionState {
  const p = e.payload;
  const m = streamingMessage(s, p.message_id, e.turn_id);
  if (m.status !== "streaming") return s;
  const { thinkingTime: _void, ...rest } = m;
  const next = putMessage(s, { ...rest, content: [], retries: { count: p.attempt - 1, error_class: p.error_class, error: p.error } });
  const stale = Object.values(next.tools).filter((c) => c.messageId === p.message_id);
  if (stale.length === 0) return next;
  const tools = { ...next.tools };
  for (const c of stale) delete tools[c.toolUseId];
  return { ...next, tools };
}

/** Applies text.delta: appends the chunk to its text block. */
export function onTextDelta(s: SessionState, e: Ev<"text.delta">): SessionState {
  return onDeltaRun(s, [e]);
}

/** Applies thinking.delta: appends to its thinking block; the final delta carries the signature. */
export function onThinkingDelta(s: SessionState, e: Ev<"thinking.delta">): SessionState {
  return onDeltaRun(s, [e]);
}

/** Applies tool.use_start: a toolCall block and a tool card streaming its input. */
export function onToolUseStart(s: SessionState, e: Ev<"tool.use_start">): SessionState {
  const p = e.payload;
  const m = streamingMessage(s, p.message_id, e.turn_id);
  let next = s;
  if (m.status === "streaming") {
    const content = withBlock(m.content, p.content_block_index, () => ({ type: "toolCall", id: p.tool_use_id, name: p.tool_name, arguments: {} }));
    const thinkingTime = thinkingEnded(m, e.ts);
    next = putMessage(s, thinkingTime ? { ...m, content, thinkingTime } : { ...m, content });
  }
  const card = next.tools[p.tool_use_id];
  if (card) return next;
  return putTool(next, newToolCard(p.tool_use_id, p.tool_name, p.message_id, e.turn_id));
}

/** Applies tool.use_input_delta: accumulates the raw partial JSON. */
export function onToolUseInputDelta(s: SessionState, e: Ev<"tool.use_input_delta">): SessionState {
  const p = e.payload;
  const card = toolCard(s, p.tool_use_id, "", e.turn_id);
  if (card.status !== "streaming-input") return s;
  return putTool(s, { ...card, messageId: card.messageId ?? p.message_id, rawInput: card.rawInput + p.partial_json });
}

/** Applies tool.use_end: final_input is authoritative. */
export function onToolUseEnd(s: SessionState, e: Ev<"tool.use_end">): SessionState {
  const p = e.payload;
  const args = isRecord(p.final_input) ? p.final_input : {};
  const m = s.messages[p.message_id];
  let next = s;
  if (m?.status === "streaming") {
    const content = withBlock(m.content, p.content_block_index, (b) =>
      b?.type === "toolCall" ? { ...b, arguments: args } : { type: "toolCall", id: p.tool_use_id, name: "", arguments: args },
    );
    next = putMessage(s, { ...m, content });
  }
  const card = toolCard(next, p.tool_use_id, "", e.turn_id);
  const status = card.status === "streaming-input" ? "running" : card.status;
  return putTool(next, { ...card, messageId: card.messageId ?? p.message_id, input: p.final_input, status });
}

/** Applies tool.output_delta: live tool output, or a worker's text for a delegate call. */
export function onToolOutputDelta(s: SessionState, e: Ev<"tool.output_delta">): SessionState {
  const p = e.payload;
  if (p.stream === "worker" || s.delegations[p.tool_use_id]) {
    const d = s.delegations[p.tool_use_id] ?? newDelegation(p.tool_use_id);
    // reset: the worker's model call is retried; what it streamed so far is void.
    const [workerOutput, workerOutputDropped] = p.reset ? [p.text, 0] : appendCapped(d.workerOutput, d.workerOutputDropped, p.text);
    return putDelegation(s, { ...d, workerOutput, workerOutputDropped });
  }
  const card = toolCard(s, p.tool_use_id, "", e.turn_id);
  const [liveOutput, liveOutputDropped] = appendCapped(card.liveOutput, card.liveOutputDropped, p.text);
  return putTool(s, { ...card, liveOutput, liveOutputDropped });
}

/** Applies message.complete: final_content replaces the reconstructed content. */
export function onMessageComplete(s: SessionState, e: Ev<"message.complete">): SessionState {
  const p = e.payload;
  const m = streamingMessage(s, p.message_id, e.turn_id);
  if (m.content.length > 0 && textLength(m.content) !== textLength(p.final_content)) {
    logDebug("message.complete differs from the reconstructed content; re-rendering from final_content", p.message_id);
  }
  const status = p.stop_reason === "cancelled" ? "cancelled" : p.stop_reason === "error" ? "error" : "complete";
  let next = putMessage(s, {
    ...m,
    content: p.final_content,
    status,
    stopReason: p.stop_reason,
    usage: p.usage,
    annotation: annotationFor(status),
    ...(p.retries ? { retries: p.retries } : {}),
    ...(thinkingEnded(m, e.ts) ? { thinkingTime: thinkingEnded(m, e.ts)! } : {}),
  });
  for (const b of p.final_content) {
    if (b.type !== "toolCall") continue;
    const card = next.tools[b.id] ?? newToolCard(b.id, b.name, p.message_id, e.turn_id);
    const st = card.status === "streaming-input" ? (status === "complete" ? "running" : "cancelled") : card.status;
    next = putTool(next, { ...card, toolName: card.toolName || b.name, input: b.arguments, status: st });
  }
  return next;
}

/** Reports whether v is a JSON object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
