// Event envelope, catalog and payloads. Mirrors ipc/event.go, ipc/catalog.go
// and ipc/payload.go exactly (snake_case as on the wire).

import type { AttachedFile, ContentBlock, PermissionRule, Retries, Session, Usage } from "./records";

/** Bus-family event types (ipc.BusTypes), in catalog order. */
export const BUS_TYPES = [
  "turn.started",
  "route.decided",
  "llm.call_started",
  "llm.call_completed",
  "llm.call_failed",
  "llm.call_stalled",
  "tool.called",
  "tool.completed",
  "tool.failed",
  "tool.approval_requested",
  "tool.approval_resolved",
  "turn.completed",
  "turn.cancelled",
  "delegate.started",
  "delegate.completed",
  "delegate.failed",
  "compaction.started",
  "compaction.completed",
  "session.created",
  "session.updated",
  "bus.handler_warning",
  "mcp.server_status",
  "turn.undone",
  "session.branched",
  "session.forked",
] as const;

/** Streaming-family event types (ipc.StreamingTypes), in stream order. */
export const STREAMING_TYPES = [
  "message.start",
  "message.reset",
  "text.delta",
  "thinking.delta",
  "tool.use_start",
  "tool.use_input_delta",
  "tool.use_end",
  "tool.output_delta",
  "message.complete",
] as const;

/** Every event type this client knows. */
export const EVENT_TYPES = [...BUS_TYPES, ...STREAMING_TYPES] as const;

/** A known event type string. */
export type EventType = (typeof EVENT_TYPES)[number];

/** Actors (ipc.Actors): who caused an event. */
export type Actor = "user" | "agent" | "tool" | "system";

/** LLM error classes (llm.call_failed error_class). */
export type LLMErrorClass =
  | "auth"
  | "rate_limit"
  | "overloaded"
  | "server"
  | "network"
  | "timeout"
  | "invalid_request"
  | "context_overflow"
  | "cancelled"
  | "not_configured";

/** Tool error classes (tool.failed error_class). */
export type ToolErrorClass = "cancelled" | "invalid_input" | "denied" | "exec" | "timeout" | "unknown_tool";

/** Delegation failure modes (delegate.failed failure_mode). */
export type DelegationFailureMode = "cancelled_by_user" | "error" | "depth_exceeded" | "timeout";

/** Payload of turn.started. */
export interface TurnStarted {
  user_message_id: string;
  /** The user's text (attached files' content is not in it). */
  input: string;
  /** Files the message attached (@-mentions); their content is in the stored message. */
  attachments?: AttachedFile[];
}

/** Payload of route.decided. */
export interface RouteDecided {
  model: string;
  reason: string;
  policy: string;
  policy_version: string;
}

/** Payload of llm.call_started; attempt is 1 for the first try. */
export interface LLMCallStarted {
  call_id: string;
  model: string;
  message_id: string;
  attempt: number;
  /** "title" for the call that names a session (turn_id null); absent for a turn's calls. */
  purpose?: string;
}

/** Payload of llm.call_completed; usage is final for the call. */
export interface LLMCallCompleted {
  call_id: string;
  model: string;
  message_id: string;
  stop_reason: string;
  usage: Usage;
  duration_ms: number;
  /** "title" for the call that names a session (turn_id null); absent for a turn's calls. */
  purpose?: string;
}

/** Payload of llm.call_failed; will_retry means another attempt follows. */
export interface LLMCallFailed {
  call_id: string;
  model: string;
  message_id?: string;
  error_class: LLMErrorClass | string;
  message: string;
  attempt: number;
  will_retry: boolean;
  retry_in_ms?: number;
  /** How many attempts the call gets in all (absent from older hubs). */
  max_attempts?: number;
  /** "title" for the call that names a session (turn_id null); absent for a turn's calls. */
  purpose?: string;
}

/** Payload of llm.call_stalled: the call's stream has delivered nothing for idle_ms. */
export interface LLMCallStalled {
  call_id: string;
  idle_ms: number;
}

/** Payload of tool.called (seed 004 "call" layer); input is the parsed JSON input. */
export interface ToolCalled {
  tool_use_id: string;
  tool_name: string;
  input: unknown;
  message_id: string;
  status_text: string;
  summary: string;
}

/** Payload of tool.completed (seed 004 "result" layer). */
export interface ToolCompleted {
  tool_use_id: string;
  tool_name: string;
  status_text: string;
  summary: string;
  output: string;
  is_error: boolean;
  truncated?: boolean;
  output_bytes: number;
  output_path?: string;
  duration_ms: number;
}

/** Payload of tool.failed. */
export interface ToolFailed {
  tool_use_id: string;
  tool_name: string;
  error_class: ToolErrorClass | string;
  message: string;
  status_text: string;
  summary: string;
}

/** Risk of an asked tool call (docs/permissions.md). */
export type ApprovalRisk = "low" | "medium" | "high";

/** Payload of tool.approval_requested: a tool call waits for the user. */
export interface ToolApprovalRequested {
  tool_use_id: string;
  tool_name: string;
  input: unknown;
  status_text: string;
  risk: ApprovalRisk | string;
  summary: string;
  reason: string;
  /** The rule "Always" stores (shown, editable); absent when no rule covers the call safely: "Always" is not available. */
  always_rule?: PermissionRule;
  /** Set on the copy in an ancestor session of the worker that asked. */
  worker_session_id?: string;
  /** A sandboxed bash call in a git repository whose .git is read-only: the answer may allow git writes for this one call. */
  git_writes_offer?: boolean;
  /** An edit_file call placed in its file as the prompt was made (absent when the edit would fail). */
  edit_context?: EditContext;
}

/** Where an edit_file call is in its file (ipc.EditContext): its first changed line, the whole lines before/after it, three unchanged lines each side. */
export interface EditContext {
  start_line: number;
  old: string;
  new: string;
  before: string[];
  after: string[];
}

/** How an approval ended. */
export type ApprovalDecision = "once" | "always" | "deny" | "cancelled";

/** The user's answer (approveTool decision): every decision but "cancelled". */
export type ApprovalAnswer = Exclude<ApprovalDecision, "cancelled">;

/** Payload of tool.approval_resolved. */
export interface ToolApprovalResolved {
  tool_use_id: string;
  decision: ApprovalDecision | string;
  /** Who answered: window | dashboard | cancel (the turn was cancelled) | restart (the app stopped). */
  by: string;
  message?: string;
  /** The rule an "always" answer stored. */
  rule?: PermissionRule;
  worker_session_id?: string;
}

/** Payload of turn.completed. */
export interface TurnCompleted {
  status: "completed" | "failed";
  stop_reason?: string;
  usage: Usage;
  error?: string;
  error_class?: string;
  /** How many workspace files the turn changed (undoTurn restores them). */
  files_changed?: number;
}

/** Payload of turn.cancelled. */
export interface TurnCancelled {
  reason: string;
  partial_message_id?: string;
  cancelled_tools?: string[];
  /** How many workspace files the turn changed before it was cancelled. */
  files_changed?: number;
}

/** Payload of session.branched: why the current path changed; clients read the messages again. */
export interface SessionBranched {
  reason: "regenerate" | "edit" | "switch" | string;
  message_id: string;
  head_id: string;
  session: Session;
  /** Turns of the branch left behind, newest first, whose file changes are still in place. */
  abandoned_turns?: AbandonedTurn[];
}

/** A turn of a branch left behind that changed files (undoTurn restores them). */
export interface AbandonedTurn {
  turn_id: string;
  files_changed: number;
}

/** Payload of session.forked (in the source session). */
export interface SessionForked {
  new_session_id: string;
  message_id: string;
}

/** A file an undo left alone (ipc.SkippedFile). */
export interface SkippedFile {
  path: string;
  reason: string;
}

/** Payload of turn.undone (the envelope's turn_id is the undone turn). */
export interface TurnUndone {
  restored: string[];
  skipped: SkippedFile[];
}

/** Payload of delegate.started (seed 004 delegation_call). */
export interface DelegateStarted {
  tool_use_id: string;
  worker_session_id: string;
  task: string;
  depth: number;
  status_text: string;
  summary: string;
}

/** Payload of delegate.completed (seed 004 delegation_result). */
export interface DelegateCompleted {
  tool_use_id: string;
  worker_session_id: string;
  success: boolean;
  result: string;
  status_text: string;
  summary: string;
}

/** Payload of delegate.failed. */
export interface DelegateFailed {
  tool_use_id: string;
  worker_session_id?: string;
  failure_mode: DelegationFailureMode | string;
  message: string;
  status_text: string;
  summary: string;
}

/** Payload of compaction.started. */
export interface CompactionStarted {
  trigger: "threshold" | "request" | string;
  estimated_tokens: number;
  context_window: number;
}

/** Payload of compaction.completed (seed 000 stats; note the camelCase token fields). */
export interface CompactionCompleted {
  removed: number;
  kept: number;
  tokensRemoved: number;
  tokensKept: number;
  reason: string;
  context_start_offset: number;
  /** Why the summary call failed (reason "tokens" after one was tried). */
  error?: string;
}

/** Payload of session.created and session.updated. */
export interface SessionChanged {
  session: Session;
  deleted?: boolean;
}

/** Payload of bus.handler_warning. */
export interface HandlerWarning {
  subscription_name: string;
  code: string;
  message: string;
}

/** MCP server states (ipc.MCP*). */
export type MCPState = "starting" | "ready" | "failed" | "stopped";

/** Payload of mcp.server_status and an entry of listMcpServers. */
export interface MCPServerStatus {
  server: string;
  transport: string;
  workspace?: string;
  status: MCPState;
  tools: string[];
  /** Tools not offered: they must be called as MCP tasks (execution.taskSupport "required"). */
  unsupported_tools?: string[];
  error?: string;
  stderr_tail?: string;
  restarts: number;
  retry_in_ms?: number;
}

/** Payload of message.start. */
export interface MessageStart {
  message_id: string;
  role: string;
  model: string;
}

/** Payload of text.delta: the new chunk only. */
export interface TextDelta {
  message_id: string;
  content_block_index: number;
  text: string;
}

/** Payload of thinking.delta; signature is set only on the block's final delta. */
export interface ThinkingDelta {
  message_id: string;
  content_block_index: number;
  text: string;
  signature: string | null;
}

/** Payload of tool.use_start. */
export interface ToolUseStart {
  message_id: string;
  content_block_index: number;
  tool_use_id: string;
  tool_name: string;
}

/** Payload of tool.use_input_delta: a raw JSON fragment. */
export interface ToolUseInputDelta {
  message_id: string;
  content_block_index: number;
  tool_use_id: string;
  partial_json: string;
}

/** Payload of tool.use_end; final_input is authoritative. */
export interface ToolUseEnd {
  message_id: string;
  content_block_index: number;
  tool_use_id: string;
  final_input: unknown;
}

/** Payload of tool.output_delta: live tool output, or a worker's text (stream "worker"); reset: the worker text so far is void (a retried model call). */
export interface ToolOutputDelta {
  tool_use_id: string;
  stream: "stdout" | "stderr" | "worker" | string;
  text: string;
  reset?: boolean;
}

/**
 * Payload of message.reset: a retried LLM call streams message_id again
 * (attempt 2+); drop its content so far, the deltas that follow rebuild it.
 * error_class and error say why the attempt before failed.
 */
export interface MessageReset {
  message_id: string;
  attempt: number;
  error_class: string;
  error: string;
}

/** Payload of message.complete; final_content is authoritative; retries when the call was retried. */
export interface MessageComplete {
  message_id: string;
  stop_reason: string;
  final_content: ContentBlock[];
  usage: Usage;
  retries?: Retries;
}

/** Maps each event type to its payload type. */
export interface PayloadMap {
  "turn.started": TurnStarted;
  "route.decided": RouteDecided;
  "llm.call_started": LLMCallStarted;
  "llm.call_completed": LLMCallCompleted;
  "llm.call_failed": LLMCallFailed;
  "llm.call_stalled": LLMCallStalled;
  "tool.called": ToolCalled;
  "tool.completed": ToolCompleted;
  "tool.failed": ToolFailed;
  "tool.approval_requested": ToolApprovalRequested;
  "tool.approval_resolved": ToolApprovalResolved;
  "turn.completed": TurnCompleted;
  "turn.cancelled": TurnCancelled;
  "delegate.started": DelegateStarted;
  "delegate.completed": DelegateCompleted;
  "delegate.failed": DelegateFailed;
  "compaction.started": CompactionStarted;
  "compaction.completed": CompactionCompleted;
  "session.created": SessionChanged;
  "session.updated": SessionChanged;
  "bus.handler_warning": HandlerWarning;
  "mcp.server_status": MCPServerStatus;
  "turn.undone": TurnUndone;
  "session.branched": SessionBranched;
  "session.forked": SessionForked;
  "message.start": MessageStart;
  "message.reset": MessageReset;
  "text.delta": TextDelta;
  "thinking.delta": ThinkingDelta;
  "tool.use_start": ToolUseStart;
  "tool.use_input_delta": ToolUseInputDelta;
  "tool.use_end": ToolUseEnd;
  "tool.output_delta": ToolOutputDelta;
  "message.complete": MessageComplete;
}

/** The envelope shared by every event (ipc.Event); id is a bare ULID. */
export interface EnvelopeBase<T extends string, P> {
  id: string;
  type: T;
  session_id: string;
  turn_id: string | null;
  ts: string;
  actor: Actor | string;
  payload: P;
}

/** A known event: a discriminated union over type. */
export type KnownEvent = { [K in EventType]: EnvelopeBase<K, PayloadMap[K]> }[EventType];

/** An event whose type this client does not know; skipped by the reducer (seed 001 §9.2). */
export type UnknownEvent = EnvelopeBase<string, unknown> & { readonly unknown: true };

/** Any event as decoded from the wire. */
export type AgentEvent = KnownEvent | UnknownEvent;

/** Reports whether s is a known event type. */
export function isEventType(s: string): s is EventType {
  return (EVENT_TYPES as readonly string[]).includes(s);
}

/** Reports whether e is a known event (not an UnknownEvent). */
export function isKnownEvent(e: AgentEvent): e is KnownEvent {
  return !("unknown" in e);
}
