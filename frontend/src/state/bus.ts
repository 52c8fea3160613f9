// Reducer cases of the bus family (turns, LLM calls, tools, delegation,
// compaction, sessions, warnings). Pure functions of (state, event).

import type { AttachedFile, ContentBlock, EnvelopeBase, PayloadMap, TurnOutcome } from "../protocol";
import { addSessionUsage, withServerQueue } from "./history";
import { newDelegation, putDelegation, putTool, settleBlocks, toolCard } from "./stream";
import type { DelegationCardState, SessionState } from "./types";

type Ev<K extends keyof PayloadMap> = EnvelopeBase<K, PayloadMap[K]>;

/**
 * The head of an attached file's block (app/mention's format) for a file
 * known from turn.started: the UI shows it as an attachment; the content
 * itself is in the stored message, which a reload reads.
 */
export function fileBlockHead(a: AttachedFile): string {
  return `<file ${a.kind === "file" ? "name" : "path"}=${JSON.stringify(a.path)} bytes="${a.bytes}"${a.cut ? ' cut="true"' : ""}>`;
}

/** The content block turn.started's attachment stands for: an image block naming the upload, or a file block's head. */
export function attachedBlock(a: AttachedFile): ContentBlock {
  if (a.kind === "image" && a.id) {
    return {
      type: "image",
      source: {
        type: "attachment",
        media_type: a.media_type ?? "",
        data: "",
        attachment: a.id,
        name: a.path,
        bytes: a.bytes,
        ...(a.width ? { width: a.width } : {}),
        ...(a.height ? { height: a.height } : {}),
      },
    };
  }
  return { type: "text", text: fileBlockHead(a) };
}

/** Applies turn.started: the turn runs, leaves the queue, and its user message appears. */
export function onTurnStarted(s: SessionState, e: Ev<"turn.started">): SessionState {
  const p = e.payload;
  const next: SessionState = {
    ...s,
    turn: { currentTurnId: e.turn_id, running: true, queued: s.turn.queued.filter((q) => q.turnId !== e.turn_id) },
    lastError: null,
  };
  if (!p.user_message_id || next.messages[p.user_message_id]) return next;
  return {
    ...next,
    order: [...next.order, p.user_message_id],
    messages: {
      ...next.messages,
      [p.user_message_id]: {
        id: p.user_message_id,
        role: "user",
        content: [...(p.input !== "" || !p.attachments?.length ? [{ type: "text" as const, text: p.input }] : []), ...(p.attachments ?? []).map(attachedBlock)],
        status: "complete",
        stopReason: null,
        usage: null,
        model: null,
        turnId: e.turn_id,
        offset: null,
        createdAt: e.ts,
        annotation: null,
        turnOutcome: { id: e.turn_id ?? "", status: "running" },
      },
    },
  };
}

/** Applies turn.undone: the turn's outcome says its file changes were undone. */
export function onTurnUndone(s: SessionState, e: Ev<"turn.undone">): SessionState {
  if (e.turn_id === null) return s;
  for (const id of s.order) {
    const m = s.messages[id];
    if (m?.role === "user" && m.turnId === e.turn_id && m.turnOutcome) {
      return { ...s, messages: { ...s.messages, [id]: { ...m, turnOutcome: { ...m.turnOutcome, files_undone: true } } } };
    }
  }
  return s;
}

/** Sets the outcome of the turn on the user message that started it (if this client has it). */
function withTurnOutcome(s: SessionState, turnId: string | null, outcome: TurnOutcome): SessionState {
  if (turnId === null) return s;
  for (const id of s.order) {
    const m = s.messages[id];
    if (m?.role === "user" && m.turnId === turnId) return { ...s, messages: { ...s.messages, [id]: { ...m, turnOutcome: outcome } } };
  }
  return s;
}

/** Applies llm.call_completed: per-message usage, the session total and the context size. */
export function onLLMCallCompleted(s: SessionState, e: Ev<"llm.call_completed">): SessionState {
  if (e.payload.purpose === "title") return s; // the session.updated that follows carries the new totals
  const u = e.payload.usage;
  let next = addSessionUsage(s, u);
  const m = next.messages[e.payload.message_id];
  if (m) next = { ...next, messages: { ...next.messages, [m.id]: { ...m, usage: u, model: m.model ?? e.payload.model } } };
  const ctx = u.input_tokens + (u.cache_read_tokens ?? 0) + (u.cache_write_tokens ?? 0) + u.output_tokens;
  return { ...next, contextTokens: ctx };
}

/** Applies llm.call_failed: a visible error unless it is the cancellation itself. */
export function onLLMCallFailed(s: SessionState, e: Ev<"llm.call_failed">): SessionState {
  const p = e.payload;
  if (p.error_class === "cancelled" || p.purpose === "title") return s; // a failed title call falls back quietly
  return {
    ...s,
    lastError: {
      source: "llm",
      errorClass: p.error_class,
      message: p.message,
      eventId: e.id,
      willRetry: p.will_retry,
      attempt: p.attempt,
      retryInMs: p.retry_in_ms ?? null,
      maxAttempts: p.max_attempts ?? null,
    },
  };
}

/** Applies tool.called: the tool is dispatched with its parsed input. */
export function onToolCalled(s: SessionState, e: Ev<"tool.called">): SessionState {
  const p = e.payload;
  const card = toolCard(s, p.tool_use_id, p.tool_name, e.turn_id);
  if (card.status === "done" || card.status === "error" || card.status === "cancelled") return s;
  return putTool(s, {
    ...card,
    toolName: p.tool_name,
    messageId: card.messageId ?? p.message_id,
    input: p.input,
    status: "running",
    statusText: p.status_text,
    summary: p.summary,
  });
}

/** Applies tool.completed. */
export function onToolCompleted(s: SessionState, e: Ev<"tool.completed">): SessionState {
  const p = e.payload;
  const card = toolCard(s, p.tool_use_id, p.tool_name, e.turn_id);
  return putTool(s, {
    ...card,
    toolName: p.tool_name,
    status: p.is_error ? "error" : "done",
    statusText: p.status_text,
    summary: p.summary,
    output: p.output,
    truncated: p.truncated === true,
    outputBytes: p.output_bytes,
    outputPath: p.output_path ?? null,
    durationMs: p.duration_ms,
  });
}

/** Applies tool.failed: cancelled tools render struck through, others as errors. */
export function onToolFailed(s: SessionState, e: Ev<"tool.failed">): SessionState {
  const p = e.payload;
  const card = toolCard(s, p.tool_use_id, p.tool_name, e.turn_id);
  return putTool(s, {
    ...card,
    toolName: p.tool_name,
    status: p.error_class === "cancelled" ? "cancelled" : "error",
    statusText: p.status_text,
    summary: p.summary,
    errorClass: p.error_class,
    errorMessage: p.message,
  });
}

function endTurn(s: SessionState, turnId: string | null): SessionState {
  if (s.turn.currentTurnId !== null && turnId !== null && s.turn.currentTurnId !== turnId) return s;
  return { ...s, turn: { ...s.turn, currentTurnId: null, running: false } };
}

/** Applies turn.completed; a failed turn leaves a visible error. */
export function onTurnCompleted(s: SessionState, e: Ev<"turn.completed">): SessionState {
  const p = e.payload;
  const next = { ...endTurn(s, e.turn_id), turnsEnded: s.turnsEnded + 1 };
  const files = p.files_changed ? { files_changed: p.files_changed } : {};
  if (p.status !== "failed") return withTurnOutcome(next, e.turn_id, { id: e.turn_id ?? "", status: "completed", ...files });
  const err = next.lastError ?? {
    source: "turn" as const,
    errorClass: p.error_class ?? "error",
    message: p.error ?? "turn failed",
    eventId: e.id,
    willRetry: false,
    attempt: null,
    retryInMs: null,
  };
  const outcome: TurnOutcome = {
    id: e.turn_id ?? "",
    status: "failed",
    error: { class: p.error_class ?? err.errorClass, message: p.error ?? err.message, attempts: err.attempt ?? 0 },
    ...files,
  };
  const shown = withTurnOutcome(next, e.turn_id, outcome);
  // The failure shows once: inline under its user message when that is loaded, else as the error line.
  return { ...shown, lastError: shown !== next ? null : { ...err, willRetry: false, inFlight: false } };
}

/** Applies llm.call_started: a retry's attempt is under way, so the error line stops counting down to it. */
export function onLLMCallStarted(s: SessionState, e: Ev<"llm.call_started">): SessionState {
  const err = s.lastError;
  if (!err?.willRetry || e.payload.attempt <= 1) return s;
  return { ...s, lastError: { ...err, attempt: e.payload.attempt - 1, retryInMs: null, inFlight: true } };
}

/**
 * Applies turn.cancelled: the partial message is annotated "(cancelled)",
 * and every tool and delegation of the turn still in flight is cancelled.
 */
export function onTurnCancelled(s: SessionState, e: Ev<"turn.cancelled">): SessionState {
  const p = e.payload;
  if (e.turn_id !== null && e.turn_id !== s.turn.currentTurnId && s.turn.queued.some((q) => q.turnId === e.turn_id)) {
    // A queued turn was cancelled before it started: it only leaves the queue.
    return { ...s, turn: { ...s.turn, queued: s.turn.queued.filter((q) => q.turnId !== e.turn_id) } };
  }
  let next = withTurnOutcome(endTurn(s, e.turn_id), e.turn_id, {
    id: e.turn_id ?? "",
    status: p.reason === "interrupted" ? "interrupted" : "cancelled",
    ...(p.files_changed ? { files_changed: p.files_changed } : {}),
  });
  const pm = p.partial_message_id ? next.messages[p.partial_message_id] : undefined;
  if (pm?.status === "streaming") {
    next = {
      ...next,
      messages: { ...next.messages, [pm.id]: { ...pm, content: settleBlocks(pm.content), status: "cancelled", annotation: "(cancelled)" } },
      streamingIds: next.streamingIds.filter((x) => x !== pm.id),
    };
  }
  const named = new Set(p.cancelled_tools ?? []);
  const tools = { ...next.tools };
  for (const [id, t] of Object.entries(tools)) {
    const inFlight = t.status === "running" || t.status === "streaming-input";
    const ofTurn = e.turn_id === null || t.turnId === null || t.turnId === e.turn_id;
    if (inFlight && (named.has(id) || ofTurn)) tools[id] = { ...t, status: "cancelled" };
  }
  const delegations = { ...next.delegations };
  for (const [id, d] of Object.entries(delegations)) {
    if (d.status === "running" && (tools[id]?.status === "cancelled" || named.has(id))) delegations[id] = { ...d, status: "cancelled" };
  }
  return { ...next, tools, delegations };
}

/** Sets the card of delegate call toolUseId (a new one if none) to what change says. */
function updateDelegation(s: SessionState, toolUseId: string, change: (d: DelegationCardState) => Partial<DelegationCardState>): SessionState {
  const d = s.delegations[toolUseId] ?? newDelegation(toolUseId);
  return putDelegation(s, { ...d, ...change(d) });
}

/** Applies delegate.started. */
export function onDelegateStarted(s: SessionState, e: Ev<"delegate.started">): SessionState {
  const p = e.payload;
  return updateDelegation(s, p.tool_use_id, () => ({
    workerSessionId: p.worker_session_id,
    task: p.task,
    depth: p.depth,
    statusText: p.status_text,
    summary: p.summary,
  }));
}

/** Applies delegate.completed. */
export function onDelegateCompleted(s: SessionState, e: Ev<"delegate.completed">): SessionState {
  const p = e.payload;
  return updateDelegation(s, p.tool_use_id, () => ({
    workerSessionId: p.worker_session_id,
    status: p.success ? "done" : "failed",
    success: p.success,
    result: p.result,
    statusText: p.status_text,
    summary: p.summary,
  }));
}

/** Applies delegate.failed; cancelled_by_user shows as cancelled. */
export function onDelegateFailed(s: SessionState, e: Ev<"delegate.failed">): SessionState {
  const p = e.payload;
  return updateDelegation(s, p.tool_use_id, (d) => ({
    workerSessionId: p.worker_session_id ?? d.workerSessionId,
    status: p.failure_mode === "cancelled_by_user" ? "cancelled" : "failed",
    success: false,
    failureMode: p.failure_mode,
    failureMessage: p.message,
    statusText: p.status_text,
    summary: p.summary,
  }));
}

/** Applies compaction.started. */
export function onCompactionStarted(s: SessionState, e: Ev<"compaction.started">): SessionState {
  const p = e.payload;
  return {
    ...s,
    compaction: { ...s.compaction, inProgress: true, trigger: p.trigger, estimatedTokens: p.estimated_tokens, contextWindow: p.context_window },
    contextWindow: p.context_window,
  };
}

/** Applies compaction.completed: stats, and the session's new context start. */
export function onCompactionCompleted(s: SessionState, e: Ev<"compaction.completed">): SessionState {
  const p = e.payload;
  return {
    ...s,
    compaction: {
      ...s.compaction,
      inProgress: false,
      last: {
        removed: p.removed,
        kept: p.kept,
        tokensRemoved: p.tokensRemoved,
        tokensKept: p.tokensKept,
        reason: p.reason,
        contextStartOffset: p.context_start_offset,
        error: p.error ?? null,
      },
    },
    contextTokens: p.tokensKept,
  };
}

/**
 * Applies session.created / session.updated for this session: the record is
 * authoritative for the totals, model and queue (the record itself lives in
 * the session list, sessions.ts).
 */
export function onSessionChanged(s: SessionState, e: Ev<"session.created"> | Ev<"session.updated">): SessionState {
  const p = e.payload;
  if (p.session.session_id !== s.sessionId) return s;
  return withServerQueue(
    {
      ...s,
      deleted: p.deleted === true,
      sessionUsage: p.session.usage ?? s.sessionUsage,
      activeModel: p.session.active_model || s.activeModel,
    },
    p.session.queued_turns,
  );
}
