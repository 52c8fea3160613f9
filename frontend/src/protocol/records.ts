// Domain records as they appear on the wire. These mirror store/model.go
// field for field (snake_case JSON names); keys.ts lists the keys at runtime
// and protocol.test.ts checks them against wire-fixture.json.

/** Message roles (store.RoleUser, RoleAssistant, RoleToolResult). */
export type Role = "user" | "assistant" | "toolResult";

/**
 * Message statuses of stored messages (store.Status*), plus "streaming" for
 * the partial message a snapshot carries while an assistant message is in flight.
 */
export type MessageStatus = "complete" | "cancelled" | "interrupted" | "error" | "streaming";

/** Token accounting of one LLM call or a sum of calls (store.Usage). Optional fields are omitempty in Go. */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
  cost_usd: number;
  /** output_tokens is (or includes) an estimate from the streamed text: the provider sent no usage for a reply cut short. */
  output_estimated?: boolean;
}

/**
 * An image of a user message (store.ImageSource): inline ("base64", data) or
 * a stored attachment ("attachment": data is "", the bytes are served at
 * attachments/{attachment}).
 */
export interface ImageSource {
  type: "base64" | "attachment";
  media_type: string;
  data: string;
  /** The attachment id (SHA-256 hex of the stored bytes). */
  attachment?: string;
  /** The file name it was attached under. */
  name?: string;
  width?: number;
  height?: number;
  bytes?: number;
}

/** A text content block. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** A thinking content block; signature is the provider's opaque signature (omitted when empty). */
export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature?: string;
}

/** A tool call content block of an assistant message; arguments is a JSON object. */
export interface ToolCallBlock {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** The provider's own id when the app gave the call another (missing, malformed or repeated). */
  provider_id?: string;
}

/** An image content block of a user message. */
export interface ImageBlock {
  type: "image";
  source: ImageSource;
}

/** One element of a message's content (store.ContentBlock, a flattened tagged union). */
export type ContentBlock = TextBlock | ThinkingBlock | ToolCallBlock | ImageBlock;

/** One stored message (store.Message). Optional fields are omitempty in Go. */
export interface Message {
  id: string;
  session_id: string;
  offset: number;
  turn_id?: string;
  role: Role;
  content: ContentBlock[];
  status: MessageStatus;
  stop_reason?: string;
  usage?: Usage;
  model?: string;
  tool_call_id?: string;
  tool_name?: string;
  is_error?: boolean;
  /** Seed 004's result layer of a toolResult message (status text, Markdown summary). */
  status_text?: string;
  summary?: string;
  /** On a toolResult message whose call asked first: how its prompt was answered, and by whom. */
  approval?: ToolApproval;
  created_at: string;
  /** On a user message that started a turn: that turn's current outcome. */
  turn?: TurnOutcome;
  /** The message before it on its branch when that is not the one stored before it ("-": none). */
  parent_id?: string;
  /** On a branch point of the current path: the ids of the alternatives, oldest first (‹ n/m ›). */
  siblings?: string[];
  /** On the answer of a retried LLM call: how often and why its earlier attempts failed. */
  retries?: Retries;
}

/** An LLM call's retries (store.Retries): count failed attempts before the last, the last of them with its class and message. */
export interface Retries {
  count: number;
  error_class: string;
  error: string;
}

/** The answer to a call's approval prompt (store.ToolApproval): once | always | deny | cancelled, by window | dashboard | … */
export interface ToolApproval {
  decision: string;
  by: string;
  message?: string;
}

/** Why a turn failed (store.TurnError); attempts is 0 when no LLM call was made. */
export interface TurnError {
  class: string;
  message: string;
  attempts: number;
}

/** A turn's outcome as its user message carries it (store.TurnOutcome). */
export interface TurnOutcome {
  id: string;
  status: "running" | "completed" | "failed" | "cancelled" | "interrupted" | string;
  error?: TurnError;
  /** How many workspace files the turn changed; files_undone once they were undone. */
  files_changed?: number;
  files_undone?: boolean;
}

/** A session (store.Session). Optional fields are omitempty in Go. */
export interface Session {
  session_id: string;
  title: string;
  /** Who named the session: "user" (never retitled), "auto" (after its first completed turn); absent: not named yet. */
  title_source?: string;
  workspace_path: string;
  active_model: string;
  parent_session_id: string;
  created_at: string;
  turn_count: number;
  cost_so_far_usd: number;
  usage: Usage;
  current_turn_id?: string;
  streaming_message_id?: string;
  context_start_offset: number;
  context_summary?: string;
  /** Set once the session has branches; reads follow the current path (docs/branching.md). */
  branched?: boolean;
  /** The current path's last message when it is not the newest stored one. */
  head_id?: string;
  depth: number;
  /** Submissions waiting behind the running turn, oldest first (their user messages are stored when each starts). */
  queued_turns?: QueuedTurnRecord[];
  /** The session's approval mode (docs/permissions.md); absent on sessions older than approvals (the default applies). */
  approval_mode?: ApprovalMode | string;
  /** Tool calls of the session (and its workers) waiting for approval. */
  pending_approvals?: number;
  /** The session's bash sandbox options. */
  sandbox_read_workspace_only?: boolean;
  sandbox_no_network?: boolean;
  /** The AG-UI threadId the session was created for (POST /ag-ui). */
  agui_thread_id?: string;
}

/**
 * A file attached to a user message (ipc.AttachedFile): an @-mentioned file
 * of the session's folder (no kind; path is its path), an uploaded text file
 * (kind "file") or an image (kind "image"); for uploads path is the name.
 */
export interface AttachedFile {
  path: string;
  bytes: number;
  /** Only part of it was attached. */
  cut?: boolean;
  kind?: "file" | "image";
  /** An image's attachment id (attachments/{id}). */
  id?: string;
  media_type?: string;
  width?: number;
  height?: number;
}

/** A stored upload (ipc.AttachmentInfo): the answer to uploading a pasted or dropped file. */
export interface AttachmentInfo {
  id: string;
  name?: string;
  kind: "image" | "text";
  media_type: string;
  bytes: number;
  width?: number;
  height?: number;
  /** The image was scaled down to the providers' limits. */
  resized?: boolean;
}

/** One file a turn changed (ipc.FileChange); before/after are absent when not text, too large or not kept. */
export interface FileChange {
  path: string;
  tool: string;
  status: "created" | "modified" | "deleted";
  before?: string;
  after?: string;
  /** Why undo cannot restore it. */
  unrestorable?: string;
}

/** The files a turn changed (ipc.TurnChanges, RPC getTurnChanges). */
export interface TurnChanges {
  turn_id: string;
  workspace: string;
  changes: FileChange[];
  /** The undo, once made. */
  undone?: { restored: string[]; skipped: { path: string; reason: string }[] };
}

/** An upload named in a turn submission (ipc.AttachmentRef). */
export interface AttachmentRef {
  id: string;
  name?: string;
}

/** A submission waiting in a session's queue (store.QueuedTurn). */
export interface QueuedTurnRecord {
  turn_id: string;
  /** The user's text. */
  content: string;
}

/** A session's approval mode: ask, auto-approve edits, auto-approve all (docs/permissions.md). */
export type ApprovalMode = "ask" | "auto-edits" | "auto-all";

/** Every approval mode, in the order the UI offers them. */
export const APPROVAL_MODES: readonly ApprovalMode[] = ["ask", "auto-edits", "auto-all"];

/** What a workspace rule does with a matching call. */
export type PermissionAction = "allow" | "ask" | "deny";

/**
 * One workspace rule (ipc.PermissionRule): a tool (or "*"), for bash an
 * optional command prefix (the commands starting with these words) or an
 * exact command (that simple command only), and the action.
 */
export interface PermissionRule {
  tool: string;
  prefix?: string;
  command?: string;
  action: PermissionAction | string;
}

/** The answer of getPermissionRules / setPermissionRules (rpc.RulesResult). */
export interface PermissionRules {
  workspace: string;
  rules: PermissionRule[];
}

/** Turn statuses (store.Turn*). */
export type TurnStatus = "queued" | "running" | "completed" | "failed" | "cancelled";

/** A selectable model (ipc.ModelInfo, RPC listModels). */
export interface ModelInfo {
  id: string;
  provider: string;
  context_window: number;
  configured: boolean;
}

/** Attach response of GET /sessions/{id} (DESIGN.md §3). */
export interface AttachResponse {
  session_id: string;
  active_model: string;
  attach_token: string;
  ws_url: string;
}

/** A zero usage record. */
export function zeroUsage(): Usage {
  return { input_tokens: 0, output_tokens: 0, cost_usd: 0 };
}

/** Returns the element-wise sum of a and b (mirrors store.Usage.Add). */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_read_tokens: (a.cache_read_tokens ?? 0) + (b.cache_read_tokens ?? 0),
    cache_write_tokens: (a.cache_write_tokens ?? 0) + (b.cache_write_tokens ?? 0),
    reasoning_tokens: (a.reasoning_tokens ?? 0) + (b.reasoning_tokens ?? 0),
    cost_usd: a.cost_usd + b.cost_usd,
    ...(a.output_estimated || b.output_estimated ? { output_estimated: true } : {}),
  };
}
