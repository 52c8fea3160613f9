// Runtime field lists of every wire type. The Spec<T> mapped type makes the
// compiler reject a list that misses a key of T, names a key T lacks, or gets
// a key's optionality wrong, so these lists cannot drift from the TS types;
// protocol.test.ts checks them against wire-fixture.json (Go's marshalled output).

import type { AbandonedTurn, EditContext, EventType, PayloadMap, SkippedFile } from "./events";
import type { AttachedFile, ImageSource, Message, PermissionRule, QueuedTurnRecord, Retries, Session, TextBlock, ThinkingBlock, ToolApproval, ToolCallBlock, ImageBlock, TurnError, TurnOutcome, Usage } from "./records";

/** The value kinds the decoder can check. */
export type Kind =
  | "string"
  | "number"
  | "boolean"
  | "json"
  | "nullable-string"
  | "string[]"
  | "usage"
  | "session"
  | "queued-turns"
  | "blocks"
  | "image-source"
  | "turn-outcome"
  | "turn-error"
  | "permission-rule"
  | "retries"
  | "tool-approval"
  | "edit-context"
  | "attachments"
  | "skipped-files"
  | "abandoned-turns";

/** A field spec: its kind, with a "?" suffix when the key is optional (omitempty in Go). */
export type FieldSpec = Kind | `${Kind}?`;

type IsOptional<T, K extends keyof T> = object extends Pick<T, K> ? true : false;

/** The spec of T: exactly T's keys, each with "?" iff the key is optional in T. */
export type Spec<T> = { [K in keyof T]-?: IsOptional<T, K> extends true ? `${Kind}?` : Kind };

/** Spec of store.Usage. */
export const USAGE_SPEC: Spec<Usage> = {
  input_tokens: "number",
  output_tokens: "number",
  cache_read_tokens: "number?",
  cache_write_tokens: "number?",
  reasoning_tokens: "number?",
  cost_usd: "number",
  output_estimated: "boolean?",
};

/** Spec of store.Session. */
export const SESSION_SPEC: Spec<Session> = {
  session_id: "string",
  title: "string",
  title_source: "string?",
  workspace_path: "string",
  active_model: "string",
  parent_session_id: "string",
  created_at: "string",
  turn_count: "number",
  cost_so_far_usd: "number",
  usage: "usage",
  current_turn_id: "string?",
  streaming_message_id: "string?",
  context_start_offset: "number",
  context_summary: "string?",
  branched: "boolean?",
  head_id: "string?",
  depth: "number",
  queued_turns: "queued-turns?",
  approval_mode: "string?",
  pending_approvals: "number?",
  sandbox_read_workspace_only: "boolean?",
  sandbox_no_network: "boolean?",
  agui_thread_id: "string?",
};

/** Spec of store.QueuedTurn. */
export const QUEUED_TURN_SPEC: Spec<QueuedTurnRecord> = { turn_id: "string", content: "string" };

/** Spec of ipc.AttachedFile. */
export const ATTACHED_FILE_SPEC: Spec<AttachedFile> = {
  path: "string",
  bytes: "number",
  cut: "boolean?",
  kind: "string?",
  id: "string?",
  media_type: "string?",
  width: "number?",
  height: "number?",
};

/** Spec of ipc.PermissionRule (getPermissionRules / setPermissionRules). */
export const PERMISSION_RULE_SPEC: Spec<PermissionRule> = { tool: "string", prefix: "string?", command: "string?", action: "string" };

/** Spec of store.Message. */
export const MESSAGE_SPEC: Spec<Message> = {
  id: "string",
  session_id: "string",
  offset: "number",
  turn_id: "string?",
  role: "string",
  content: "blocks",
  status: "string",
  stop_reason: "string?",
  usage: "usage?",
  model: "string?",
  tool_call_id: "string?",
  tool_name: "string?",
  is_error: "boolean?",
  status_text: "string?",
  summary: "string?",
  created_at: "string",
  approval: "tool-approval?",
  turn: "turn-outcome?",
  parent_id: "string?",
  siblings: "string[]?",
  retries: "retries?",
};

/** Spec of store.Retries. */
export const RETRIES_SPEC: Spec<Retries> = { count: "number", error_class: "string", error: "string" };

/** Spec of store.TurnOutcome. */
export const TURN_OUTCOME_SPEC: Spec<TurnOutcome> = { id: "string", status: "string", error: "turn-error?", files_changed: "number?", files_undone: "boolean?" };

/** Spec of ipc.SkippedFile. */
export const SKIPPED_FILE_SPEC: Spec<SkippedFile> = { path: "string", reason: "string" };

/** Spec of ipc.AbandonedTurn. */
export const ABANDONED_TURN_SPEC: Spec<AbandonedTurn> = { turn_id: "string", files_changed: "number" };

/** Spec of store.ToolApproval. */
export const TOOL_APPROVAL_SPEC: Spec<ToolApproval> = { decision: "string", by: "string", message: "string?" };

/** Spec of ipc.EditContext. */
export const EDIT_CONTEXT_SPEC: Spec<EditContext> = { start_line: "number", old: "string", new: "string", before: "string[]", after: "string[]" };

/** Spec of store.TurnError. */
export const TURN_ERROR_SPEC: Spec<TurnError> = { class: "string", message: "string", attempts: "number" };

/** Spec of store.ImageSource. */
export const IMAGE_SOURCE_SPEC: Spec<ImageSource> = {
  type: "string",
  media_type: "string",
  data: "string",
  attachment: "string?",
  name: "string?",
  width: "number?",
  height: "number?",
  bytes: "number?",
};

/** Specs of each content block variant, keyed by block type. */
export const BLOCK_SPECS: {
  text: Spec<TextBlock>;
  thinking: Spec<ThinkingBlock>;
  toolCall: Spec<ToolCallBlock>;
  image: Spec<ImageBlock>;
} = {
  text: { type: "string", text: "string" },
  thinking: { type: "string", thinking: "string", signature: "string?" },
  toolCall: { type: "string", id: "string", name: "string", arguments: "json", provider_id: "string?" },
  image: { type: "string", source: "image-source" },
};

/** Spec of the event envelope (ipc.Event) without its payload. */
export const ENVELOPE_SPEC = {
  id: "string",
  type: "string",
  session_id: "string",
  turn_id: "nullable-string",
  ts: "string",
  actor: "string",
  payload: "json",
} as const satisfies Record<string, FieldSpec>;

/** Payload spec of every known event type. */
export const PAYLOAD_SPECS: { [K in EventType]: Spec<PayloadMap[K]> } = {
  "turn.started": { user_message_id: "string", input: "string", attachments: "attachments?" },
  "route.decided": { model: "string", reason: "string", policy: "string", policy_version: "string" },
  "llm.call_started": { call_id: "string", model: "string", message_id: "string", attempt: "number", purpose: "string?" },
  "llm.call_completed": {
    call_id: "string",
    model: "string",
    message_id: "string",
    stop_reason: "string",
    usage: "usage",
    duration_ms: "number",
    purpose: "string?",
  },
  "llm.call_failed": {
    call_id: "string",
    model: "string",
    message_id: "string?",
    error_class: "string",
    message: "string",
    attempt: "number",
    will_retry: "boolean",
    retry_in_ms: "number?",
    max_attempts: "number?",
    purpose: "string?",
  },
  "llm.call_stalled": { call_id: "string", idle_ms: "number" },
  "tool.called": {
    tool_use_id: "string",
    tool_name: "string",
    input: "json",
    message_id: "string",
    status_text: "string",
    summary: "string",
  },
  "tool.completed": {
    tool_use_id: "string",
    tool_name: "string",
    status_text: "string",
    summary: "string",
    output: "string",
    is_error: "boolean",
    truncated: "boolean?",
    output_bytes: "number",
    output_path: "string?",
    duration_ms: "number",
  },
  "tool.failed": {
    tool_use_id: "string",
    tool_name: "string",
    error_class: "string",
    message: "string",
    status_text: "string",
    summary: "string",
  },
  "tool.approval_requested": {
    tool_use_id: "string",
    tool_name: "string",
    input: "json",
    status_text: "string",
    risk: "string",
    summary: "string",
    reason: "string",
    always_rule: "permission-rule?",
    worker_session_id: "string?",
    git_writes_offer: "boolean?",
    edit_context: "edit-context?",
  },
  "tool.approval_resolved": {
    tool_use_id: "string",
    decision: "string",
    by: "string",
    message: "string?",
    rule: "permission-rule?",
    worker_session_id: "string?",
  },
  "turn.completed": {
    status: "string",
    stop_reason: "string?",
    usage: "usage",
    error: "string?",
    error_class: "string?",
    files_changed: "number?",
  },
  "turn.cancelled": { reason: "string", partial_message_id: "string?", cancelled_tools: "string[]?", files_changed: "number?" },
  "delegate.started": {
    tool_use_id: "string",
    worker_session_id: "string",
    task: "string",
    depth: "number",
    status_text: "string",
    summary: "string",
  },
  "delegate.completed": {
    tool_use_id: "string",
    worker_session_id: "string",
    success: "boolean",
    result: "string",
    status_text: "string",
    summary: "string",
  },
  "delegate.failed": {
    tool_use_id: "string",
    worker_session_id: "string?",
    failure_mode: "string",
    message: "string",
    status_text: "string",
    summary: "string",
  },
  "compaction.started": { trigger: "string", estimated_tokens: "number", context_window: "number" },
  "compaction.completed": {
    removed: "number",
    kept: "number",
    tokensRemoved: "number",
    tokensKept: "number",
    reason: "string",
    context_start_offset: "number",
    error: "string?",
  },
  "session.created": { session: "session", deleted: "boolean?" },
  "session.updated": { session: "session", deleted: "boolean?" },
  "bus.handler_warning": { subscription_name: "string", code: "string", message: "string" },
  "mcp.server_status": {
    server: "string",
    transport: "string",
    workspace: "string?",
    status: "string",
    tools: "string[]",
    unsupported_tools: "string[]?",
    error: "string?",
    stderr_tail: "string?",
    restarts: "number",
    retry_in_ms: "number?",
  },
  "turn.undone": { restored: "string[]", skipped: "skipped-files" },
  "session.branched": { reason: "string", message_id: "string", head_id: "string", session: "session", abandoned_turns: "abandoned-turns?" },
  "session.forked": { new_session_id: "string", message_id: "string" },
  "message.start": { message_id: "string", role: "string", model: "string" },
  "text.delta": { message_id: "string", content_block_index: "number", text: "string" },
  "thinking.delta": {
    message_id: "string",
    content_block_index: "number",
    text: "string",
    signature: "nullable-string",
  },
  "tool.use_start": {
    message_id: "string",
    content_block_index: "number",
    tool_use_id: "string",
    tool_name: "string",
  },
  "tool.use_input_delta": {
    message_id: "string",
    content_block_index: "number",
    tool_use_id: "string",
    partial_json: "string",
  },
  "tool.use_end": {
    message_id: "string",
    content_block_index: "number",
    tool_use_id: "string",
    final_input: "json",
  },
  "tool.output_delta": { tool_use_id: "string", stream: "string", text: "string", reset: "boolean?" },
  "message.reset": { message_id: "string", attempt: "number", error_class: "string", error: "string" },
  "message.complete": { message_id: "string", stop_reason: "string", final_content: "blocks", usage: "usage", retries: "retries?" },
};

/** Splits a field spec into its kind and whether the key is optional. */
export function parseFieldSpec(spec: FieldSpec): { kind: Kind; optional: boolean } {
  return spec.endsWith("?") ? { kind: spec.slice(0, -1) as Kind, optional: true } : { kind: spec as Kind, optional: false };
}
