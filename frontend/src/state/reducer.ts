// The pure reducer: (AppState, Action) → AppState, the only way the store
// changes. Chat actions go to the session they concern (and, for records,
// to the session list); the rest set the list or the ui slice. No I/O
// besides debug logs.

import { STREAMING_TYPES, isKnownEvent, type AgentEvent, type KnownEvent } from "../protocol";
import { onApprovalRequested, onApprovalResolved, onApprovalsListed } from "./approvals";
import * as bus from "./bus";
import { applySnapshot, emptySession, mergeHistory } from "./history";
import { applyListAnswer, applyStreamFrame, emptySessionList } from "./sessions";
import * as stream from "./stream";
import type { Action, AppState, ChatAction, SessionState } from "./types";

/** The initial state: nothing loaded, nothing open. */
export function initialState(): AppState {
  return {
    sessions: emptySessionList(),
    chat: {},
    ui: { selectedId: null, models: [], notice: null, loadingOlder: false, draft: false, focus: null },
  };
}

/** Events that end a stall: the stream delivered, or the call or turn ended. */
const STALL_ENDERS: ReadonlySet<string> = new Set([
  ...STREAMING_TYPES,
  "llm.call_started",
  "llm.call_completed",
  "llm.call_failed",
  "turn.completed",
  "turn.cancelled",
]);

/** Applies one known event to a session (no dedup; see applyEvent). */
function applyKnown(s: SessionState, e: KnownEvent): SessionState {
  if (s.stall !== null && STALL_ENDERS.has(e.type)) s = { ...s, stall: null };
  switch (e.type) {
    case "message.start":
      return stream.onMessageStart(s, e);
    case "message.reset":
      return stream.onMessageReset(s, e);
    case "text.delta":
      return stream.onTextDelta(s, e);
    case "thinking.delta":
      return stream.onThinkingDelta(s, e);
    case "tool.use_start":
      return stream.onToolUseStart(s, e);
    case "tool.use_input_delta":
      return stream.onToolUseInputDelta(s, e);
    case "tool.use_end":
      return stream.onToolUseEnd(s, e);
    case "tool.output_delta":
      return stream.onToolOutputDelta(s, e);
    case "message.complete":
      return stream.onMessageComplete(s, e);
    case "turn.started":
      return bus.onTurnStarted(s, e);
    case "route.decided":
      return { ...s, activeModel: e.payload.model };
    case "llm.call_started":
      return bus.onLLMCallStarted(s, e);
    case "llm.call_completed":
      return bus.onLLMCallCompleted(s.lastError?.willRetry ? { ...s, lastError: null } : s, e); // a retry succeeded: drop "retrying…"
    case "llm.call_failed":
      return bus.onLLMCallFailed(s, e);
    case "llm.call_stalled":
      return { ...s, stall: { callId: e.payload.call_id, idleMs: e.payload.idle_ms, eventId: e.id } };
    case "tool.called":
      return bus.onToolCalled(s, e);
    case "tool.completed":
      return bus.onToolCompleted(s, e);
    case "tool.failed":
      return bus.onToolFailed(s, e);
    case "tool.approval_requested":
      return onApprovalRequested(s, e);
    case "tool.approval_resolved":
      return onApprovalResolved(s, e);
    case "turn.completed":
      return bus.onTurnCompleted(s, e);
    case "turn.cancelled":
      return bus.onTurnCancelled(s, e);
    case "delegate.started":
      return bus.onDelegateStarted(s, e);
    case "delegate.completed":
      return bus.onDelegateCompleted(s, e);
    case "delegate.failed":
      return bus.onDelegateFailed(s, e);
    case "compaction.started":
      return bus.onCompactionStarted(s, e);
    case "compaction.completed":
      return bus.onCompactionCompleted(s, e);
    case "session.created":
    case "session.updated":
      return bus.onSessionChanged(s, e);
    case "bus.handler_warning":
      return { ...s, lastWarning: `${e.payload.code}: ${e.payload.message}` };
    case "mcp.server_status":
      return { ...s, mcpServers: { ...s.mcpServers, [e.payload.server]: e.payload } };
    case "turn.undone":
      return bus.onTurnUndone(s, e);
    case "session.branched":
      return { ...s, abandoned: e.payload.abandoned_turns ?? [] }; // the controller reads the new path (resync)
    case "session.forked":
      return s; // the controller lists the fork
  }
}

/**
 * Applies one event to a session. Events with an id at or below the cursor
 * are duplicates and ignored (ULIDs order lexicographically); unknown types
 * advance the cursor and are otherwise skipped with a debug log.
 */
export function applyEvent(s: SessionState, e: AgentEvent): SessionState {
  if (s.lastEventId !== null && e.id <= s.lastEventId) return s;
  if (!isKnownEvent(e)) {
    stream.logDebug(`skipping unknown event ${e.type}`, e.id);
    return { ...s, lastEventId: e.id };
  }
  return { ...applyKnown(s, e), lastEventId: e.id };
}

function reduceSession(s: SessionState, a: ChatAction): SessionState {
  switch (a.type) {
    case "connection":
      return s.connection === a.state ? s : { ...s, connection: a.state };
    case "history":
      return mergeHistory(s, a.messages, a.hasMore);
    case "clearError":
      return s.lastError === null ? s : { ...s, lastError: null };
    case "resync":
      return { ...emptySession(s.sessionId), connection: s.connection, mcpServers: s.mcpServers, abandoned: s.abandoned };
    case "abandonedAnswered":
      return { ...s, abandoned: [] };
    case "approvalsListed":
      return onApprovalsListed(s, a.approvals);
    case "turnSubmitted":
      if (s.turn.currentTurnId === a.turnId || s.turn.queued.some((q) => q.turnId === a.turnId)) return s;
      // Already started (its user message arrived before the submit answer).
      if (s.order.some((id) => s.messages[id]?.turnId === a.turnId)) return s;
      // queued (the server's answer) wins; without it, queue only behind a running turn.
      if (a.queued === false || (a.queued === undefined && !s.turn.running)) return s;
      return { ...s, turn: { ...s.turn, queued: [...s.turn.queued, { turnId: a.turnId, content: a.content, confirmed: false }] } };
    case "frame": {
      const f = a.frame;
      switch (f.type) {
        case "snapshot":
          return applySnapshot(s, f);
        case "event":
          return applyEvent(s, f.event);
        case "subscribe_error":
          return { ...s, lastError: { source: "subscribe", errorClass: f.code, message: f.message, eventId: null, willRetry: false, attempt: null, retryInMs: null } };
        case "error":
          return { ...s, lastError: { source: "frame", errorClass: f.code, message: f.message, eventId: null, willRetry: false, attempt: null, retryInMs: null } };
        default:
          return s;
      }
    }
  }
}

/** The session a chat action concerns: an event's own session (worker events, when subscribed, land in the worker's state). */
function targetOf(a: ChatAction): string {
  return a.type === "frame" && a.frame.type === "event" ? a.frame.event.session_id || a.sessionId : a.sessionId;
}

/** Applies a chat action to its session, and what an accepted frame says about records to the session list. */
function reduceChat(state: AppState, a: ChatAction): AppState {
  const sessionId = targetOf(a);
  const prev = state.chat[sessionId];
  const next = reduceSession(prev ?? emptySession(sessionId), a);
  if (next === prev) return state;
  const chat = { ...state.chat, [sessionId]: next };
  // Records follow snapshots and events the chat slice accepted (a replayed duplicate changes nothing).
  const accepted = a.type === "frame" && (a.frame.type === "snapshot" || (a.frame.type === "event" && next.lastEventId !== (prev?.lastEventId ?? null)));
  const sessions = accepted ? applyStreamFrame(state.sessions, a.frame) : state.sessions;
  return { ...state, chat, sessions };
}

/** The root reducer. */
export function reduce(state: AppState, a: Action): AppState {
  switch (a.type) {
    case "frame":
    case "history":
    case "connection":
    case "turnSubmitted":
    case "clearError":
    case "resync":
    case "abandonedAnswered":
    case "approvalsListed":
      return reduceChat(state, a);
    case "sessionsListed":
      return { ...state, sessions: applyListAnswer(state.sessions, a.sessions, a.request, a.askedAt) };
    case "sessionsFailed":
      return { ...state, sessions: { ...state.sessions, loaded: true }, ui: { ...state.ui, notice: a.notice } };
    case "selected":
      return state.ui.selectedId === a.sessionId && !state.ui.draft
        ? state
        : { ...state, ui: { ...state.ui, selectedId: a.sessionId, draft: false, focus: state.ui.focus?.sessionId === a.sessionId ? state.ui.focus : null } };
    case "draft":
      return state.ui.draft ? state : { ...state, ui: { ...state.ui, selectedId: null, draft: true } };
    case "focusMessage":
      return { ...state, ui: { ...state.ui, focus: a.focus } };
    case "modelsLoaded":
      return { ...state, ui: { ...state.ui, models: a.models } };
    case "notice":
      return state.ui.notice === a.text ? state : { ...state, ui: { ...state.ui, notice: a.text } };
    case "loadingOlder":
      return state.ui.loadingOlder === a.loading ? state : { ...state, ui: { ...state.ui, loadingOlder: a.loading } };
  }
}

type DeltaEvent = Extract<KnownEvent, { type: "text.delta" | "thinking.delta" }>;

/** The delta event of a's frame, if it is one. */
function deltaOf(a: Action): DeltaEvent | null {
  if (a.type !== "frame" || a.frame.type !== "event") return null;
  const e = a.frame.event;
  return isKnownEvent(e) && (e.type === "text.delta" || e.type === "thinking.delta") ? e : null;
}

/** Whether b continues a's run: the same kind of delta to the same block of the same message, later in the log. */
function sameBlock(a: DeltaEvent, b: DeltaEvent): boolean {
  return (
    a.type === b.type &&
    a.session_id === b.session_id &&
    a.payload.message_id === b.payload.message_id &&
    a.payload.content_block_index === b.payload.content_block_index &&
    b.id > a.id
  );
}

/**
 * Applies actions in order: the same result as reducing them one by one,
 * but a run of deltas to the same block (what a frame of a streamed answer
 * mostly is) costs one step — their texts are appended to the block's chunk
 * list together and the message is replaced once.
 */
export function reduceAll(state: AppState, actions: readonly Action[]): AppState {
  let st = state;
  for (let i = 0; i < actions.length; ) {
    const a = actions[i]!;
    const first = deltaOf(a);
    let j = i + 1;
    for (let last = first; last && j < actions.length; j++) {
      const d = deltaOf(actions[j]!);
      if (!d || !sameBlock(last, d)) break;
      last = d;
    }
    if (j - i < 2) {
      st = reduce(st, a);
      i++;
      continue;
    }
    st = applyDeltaRun(st, actions.slice(i, j).map((x) => deltaOf(x)!), (a as ChatAction).sessionId);
    i = j;
  }
  return st;
}

/** Applies a run of same-block deltas (ascending ids) past the session's cursor. */
function applyDeltaRun(state: AppState, run: DeltaEvent[], fallbackId: string): AppState {
  const sessionId = run[0]!.session_id || fallbackId;
  const prev = state.chat[sessionId] ?? emptySession(sessionId);
  const fresh = prev.lastEventId === null ? run : run.filter((e) => e.id > prev.lastEventId!);
  if (fresh.length === 0) return state; // every one a replayed duplicate
  const applied = stream.onDeltaRun(prev, fresh as stream.DeltaRun);
  const next = { ...applied, lastEventId: fresh[fresh.length - 1]!.id };
  return { ...state, chat: { ...state.chat, [sessionId]: next } };
}
