// The pure reducer: (ChatState, Action) → ChatState. No I/O besides debug logs.

import { isKnownEvent, type AgentEvent, type KnownEvent } from "../protocol";
import * as bus from "./bus";
import { applySnapshot, emptySession, mergeHistory } from "./history";
import * as stream from "./stream";
import type { Action, ChatState, SessionState } from "./types";

/** The initial root state. */
export function initialChatState(): ChatState {
  return { sessions: {} };
}

/** Applies one known event to a session (no dedup; see applyEvent). */
function applyKnown(s: SessionState, e: KnownEvent): SessionState {
  switch (e.type) {
    case "message.start":
      return stream.onMessageStart(s, e);
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
      return s;
    case "llm.call_completed":
      return bus.onLLMCallCompleted(s.lastError?.willRetry ? { ...s, lastError: null } : s, e); // a retry succeeded: drop "retrying…"
    case "llm.call_failed":
      return bus.onLLMCallFailed(s, e);
    case "tool.called":
      return bus.onToolCalled(s, e);
    case "tool.completed":
      return bus.onToolCompleted(s, e);
    case "tool.failed":
      return bus.onToolFailed(s, e);
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

function reduceSession(s: SessionState, a: Action): SessionState {
  switch (a.type) {
    case "connection":
      return s.connection === a.state ? s : { ...s, connection: a.state };
    case "history":
      return mergeHistory(s, a.messages, a.hasMore);
    case "clearError":
      return s.lastError === null ? s : { ...s, lastError: null };
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
          return { ...s, lastError: { source: "subscribe", errorClass: f.code, message: f.message, eventId: null, willRetry: false } };
        case "error":
          return { ...s, lastError: { source: "frame", errorClass: f.code, message: f.message, eventId: null, willRetry: false } };
        default:
          return s;
      }
    }
  }
}

/**
 * The root reducer. Events are routed to the session named in their envelope
 * (so worker events, when subscribed, land in the worker's own state).
 */
export function reduce(state: ChatState, a: Action): ChatState {
  let sessionId = a.sessionId;
  if (a.type === "frame" && a.frame.type === "event") sessionId = a.frame.event.session_id || a.sessionId;
  const prev = state.sessions[sessionId] ?? emptySession(sessionId);
  const next = reduceSession(prev, a);
  if (next === prev && state.sessions[sessionId]) return state;
  return { ...state, sessions: { ...state.sessions, [sessionId]: next } };
}
