// Client state shapes. Everything here is immutable data produced by the
// pure reducer (reducer.ts) in one store (store.ts); components read it
// through selectors (selectors.ts).

import type { AbandonedTurn, ContentBlock, EditContext, HistoryMessage, MCPServerStatus, MessageStatus, ModelInfo, PermissionRule, Retries, Role, ServerFrame, Session, ToolApprovalRequested, TurnOutcome, Usage } from "../protocol";
import type { ConnectionState } from "../transport/types";
import type { ChunkList } from "./chunks";

export type { ConnectionState, ChunkList };

/** A text block of a message still streaming: its deltas so far (chunks.ts). */
export interface StreamingTextBlock {
  type: "streamingText";
  chunks: ChunkList;
}

/** A thinking block of a message still streaming; the final delta may carry the signature. */
export interface StreamingThinkingBlock {
  type: "streamingThinking";
  chunks: ChunkList;
  signature?: string;
}

/**
 * A block of a message in client state. While a message streams, its text
 * and thinking blocks are chunk lists (appending a delta is O(1)); every
 * other message holds plain content blocks.
 */
export type MessageBlock = ContentBlock | StreamingTextBlock | StreamingThinkingBlock;

/** Lifecycle of one tool call card. */
export type ToolStatus = "streaming-input" | "running" | "done" | "error" | "cancelled";

/** Seed 000 toolStatus of a toolResult message. */
export type ToolResultStatus = "running" | "success" | "error" | "interrupted";

/** Annotation appended to a message that did not finish normally. */
export type Annotation = "(cancelled)" | "(interrupted)";

/** One rendered message. Tool result fields are set only for role "toolResult". */
export interface ChatMessage {
  id: string;
  role: Role;
  content: MessageBlock[];
  status: MessageStatus;
  stopReason: string | null;
  usage: Usage | null;
  model: string | null;
  turnId: string | null;
  offset: number | null;
  createdAt: string | null;
  annotation: Annotation | null;
  toolCallId?: string;
  toolName?: string;
  toolArgs?: Record<string, unknown>;
  toolStatus?: ToolResultStatus;
  isError?: boolean;
  /** How a toolResult's call was approved, when it asked (stored). */
  approval?: ApprovalResolution;
  /** Stored seed 004 result layer of a toolResult message. */
  statusText?: string;
  summary?: string;
  /** On a user message that started a turn: how that turn went (history, then live events). */
  turnOutcome?: TurnOutcome;
  /** At a branch point of the current path: the alternatives' ids, oldest first (‹ n/m ›). */
  siblings?: string[];
  /** When the model thought (event times of the first thinking delta and of what followed it); live messages only. */
  thinkingTime?: { startedAt: string; endedAt: string | null };
  /** On the answer of a retried LLM call: how often and why its earlier attempts failed ("retried N×"). */
  retries?: Retries;
}

/** What a tool.approval_requested asked (or a listPendingApprovals answer said). */
export interface ApprovalRequest {
  /** low | medium | high */
  risk: string;
  /** Why the call asks ("bash asks by default"). */
  reason: string;
  /** The request's Markdown detail (the full command, the edit). */
  summary: string;
  /** The rule "Always" stores (editable in the prompt); absent when "Always" is not available. */
  alwaysRule?: PermissionRule;
  /** The answer may allow this call to write .git (a sandboxed bash call in a repository). */
  git_writes_offer?: boolean;
  /** An edit_file call placed in its file (real line numbers and the lines around it), when the hub could. */
  editContext?: EditContext;
  /**
   * Orders the prompts oldest first: the request event's id, or for a request
   * known from a listing "!" and its place there (before every event id: it
   * was asked before the snapshot).
   */
  order: string;
}

/** How an approval ended (tool.approval_resolved). */
export interface ApprovalResolution {
  /** once | always | deny | cancelled */
  decision: string;
  /** window | dashboard | cancel | restart */
  by: string;
  message: string | null;
  /** The rule an "always" answer stored. */
  rule?: PermissionRule;
}

/**
 * The approval of a call the hub asked about: pending while request is set
 * and resolution is not. request is null when only the resolution is known
 * (the request came before the snapshot this state started from).
 */
export interface ApprovalState {
  request: ApprovalRequest | null;
  resolution: ApprovalResolution | null;
}

/** One tool call (keyed by tool_use_id). */
export interface ToolCardState {
  toolUseId: string;
  toolName: string;
  messageId: string | null;
  turnId: string | null;
  status: ToolStatus;
  /** Accumulated partial JSON while the model streams the input. */
  rawInput: string;
  /** Parsed final input (tool.use_end / tool.called / stored toolCall arguments); null until known. */
  input: unknown;
  statusText: string;
  /** Markdown detail (seed 004). */
  summary: string;
  /** Live output (tool.output_delta stdout/stderr), capped to its last LIVE_OUTPUT_CAP characters. */
  liveOutput: string;
  /** Characters of live output dropped from the front by the cap. */
  liveOutputDropped: number;
  /** Final output as the model saw it (tool.completed or the stored toolResult), null until done. */
  output: string | null;
  truncated: boolean;
  outputBytes: number | null;
  outputPath: string | null;
  durationMs: number | null;
  errorClass: string | null;
  errorMessage: string | null;
  /** The call's approval; null when it ran without asking (or nothing about it is known). */
  approval: ApprovalState | null;
  /**
   * Set on a delegated worker's call shown in an ancestor session (its copy of
   * the approval request): the worker's session id. Such a card belongs to no
   * message of this session.
   */
  workerSessionId: string | null;
}

/** Lifecycle of a delegation card. */
export type DelegationStatus = "running" | "done" | "failed" | "cancelled";

/** One delegate tool call and its worker session. */
export interface DelegationCardState {
  toolUseId: string;
  workerSessionId: string | null;
  task: string;
  depth: number;
  status: DelegationStatus;
  /** The worker's streamed text (tool.output_delta stream "worker"), capped like tool output. */
  workerOutput: string;
  workerOutputDropped: number;
  result: string | null;
  success: boolean | null;
  failureMode: string | null;
  failureMessage: string | null;
  statusText: string;
  summary: string;
}

/** Stats of the last completed compaction (seed 000). */
export interface CompactionStats {
  removed: number;
  kept: number;
  tokensRemoved: number;
  tokensKept: number;
  reason: string;
  contextStartOffset: number;
  /** Why the summary call failed, when it did. */
  error: string | null;
}

/** Compaction progress and the last result. */
export interface CompactionState {
  inProgress: boolean;
  trigger: string | null;
  estimatedTokens: number | null;
  contextWindow: number | null;
  last: CompactionStats | null;
}

/** A submission waiting for the running turn to end. */
export interface QueuedTurn {
  turnId: string;
  content: string;
  /**
   * False while only this client's submit answer knows it (the session record
   * has not listed it yet); true once a server record (snapshot or
   * session.updated queued_turns) did. Server lists replace confirmed entries.
   */
  confirmed: boolean;
}

/** The turn in flight and those queued behind it. */
export interface TurnState {
  currentTurnId: string | null;
  running: boolean;
  queued: QueuedTurn[];
}

/** The last error worth showing (a failed LLM call, failed turn, or protocol error). */
export interface ErrorInfo {
  source: "llm" | "turn" | "subscribe" | "frame";
  errorClass: string;
  message: string;
  eventId: string | null;
  willRetry: boolean;
  /** The attempt of the LLM call that failed (llm.call_failed), null for other sources. */
  attempt: number | null;
  /** The wait before the next attempt, when willRetry. */
  retryInMs: number | null;
  /** How many attempts the call gets in all, when known. */
  maxAttempts?: number | null;
  /** The next attempt (attempt + 1) has started: no wait is left. */
  inFlight?: boolean;
}

/** An LLM call whose stream has delivered nothing for a while (llm.call_stalled). */
export interface StallInfo {
  callId: string;
  idleMs: number;
  /** The id of the llm.call_stalled event (a clock-free "since"). */
  eventId: string;
}

/** The state of one session as this client knows it. */
export interface SessionState {
  sessionId: string;
  /** A session.updated said the session was deleted. */
  deleted: boolean;
  /** Message ids in display order (oldest first). */
  order: string[];
  messages: Record<string, ChatMessage>;
  /** Ids of messages still streaming. */
  streamingIds: string[];
  tools: Record<string, ToolCardState>;
  delegations: Record<string, DelegationCardState>;
  compaction: CompactionState;
  turn: TurnState;
  /** Summed usage of the session (from the session record, plus calls completed since). */
  sessionUsage: Usage;
  /** Tokens in the model's context after the last call (input + cache + output), null until known. */
  contextTokens: number | null;
  contextWindow: number | null;
  activeModel: string | null;
  lastError: ErrorInfo | null;
  /** Set while the current LLM call's stream is silent; cleared by its next data or its end. */
  stall: StallInfo | null;
  lastWarning: string | null;
  /** The last mcp.server_status seen in this session, by server name. */
  mcpServers: Record<string, MCPServerStatus>;
  /** Turns of the branch last left behind whose file changes are still in place (session.branched), until undone or kept. */
  abandoned: AbandonedTurn[];
  /** turn.completed events applied (a finished turn, seen live or replayed), for the "turn finished" badge. */
  turnsEnded: number;
  /** The cursor: the highest event id applied (ULIDs order lexicographically). */
  lastEventId: string | null;
  connection: ConnectionState;
  /** Whether older history may exist before the first message. */
  hasMoreHistory: boolean;
}

/** The session list: records as the hub reports them, from list answers and from session events. */
export interface SessionList {
  /** Newest first (created_at). */
  records: Session[];
  /** A list answer (or its failure) has arrived. */
  loaded: boolean;
  /** Bumped whenever an event changes, adds or removes a record. */
  version: number;
  /**
   * For each id an event changed: the version it was changed at. A list
   * answer asked for before that version is older than the record for that
   * id and does not overwrite it (or bring back a deleted session).
   */
  changedAt: Record<string, number>;
  /** The request number of the last list answer applied (older answers arriving late are dropped). */
  lastRequest: number;
  /** Workers known only from their delegate.started, listed until a list answer includes them. */
  placeholders: Record<string, Session>;
}

/**
 * A search hit to show: the message to scroll to and highlight; for a hit in
 * a tool's output, the call whose output panel opens searching query.
 */
export interface Focus {
  sessionId: string;
  messageId: string;
  toolUseId?: string;
  query?: string;
}

/** What the window shows besides sessions: the open session, models, a notice. */
export interface UiState {
  selectedId: string | null;
  models: ModelInfo[];
  /** A failed user action, shown as a dismissible notice. */
  notice: string | null;
  loadingOlder: boolean;
  /** The new-session view is open: the session is created by its first message. */
  draft: boolean;
  /** A message to scroll to and highlight (a search hit), until the list shows it. */
  focus: Focus | null;
}

/** The client's whole state: one store, three slices. */
export interface AppState {
  sessions: SessionList;
  /** Per-session chat state, by session id (every session this page has streamed). */
  chat: Record<string, SessionState>;
  ui: UiState;
}

/** Inputs of the chat slice. */
export type ChatAction =
  | { type: "frame"; sessionId: string; frame: ServerFrame }
  | { type: "history"; sessionId: string; messages: HistoryMessage[]; hasMore: boolean }
  | { type: "connection"; sessionId: string; state: ConnectionState }
  | { type: "turnSubmitted"; sessionId: string; turnId: string; content: string; queued?: boolean }
  | { type: "clearError"; sessionId: string }
  /** The session's path changed (session.branched): forget its messages and cursor; a fresh snapshot follows. */
  | { type: "resync"; sessionId: string }
  /** The offer to undo a left branch's file changes was answered. */
  | { type: "abandonedAnswered"; sessionId: string }
  /** The approvals waiting as of the answer (listPendingApprovals, asked after a snapshot whose record counts some). */
  | { type: "approvalsListed"; sessionId: string; approvals: ToolApprovalRequested[] };

/** Inputs of the session list and the ui slice. */
export type AppAction =
  /** A list answer: request numbers this client's requests in order; askedAt is sessions.version when it was asked. */
  | { type: "sessionsListed"; sessions: Session[]; request: number; askedAt: number }
  | { type: "sessionsFailed"; notice: string }
  | { type: "selected"; sessionId: string | null }
  | { type: "modelsLoaded"; models: ModelInfo[] }
  | { type: "notice"; text: string | null }
  | { type: "loadingOlder"; loading: boolean }
  /** Opens the new-session view (nothing selected). */
  | { type: "draft" }
  | { type: "focusMessage"; focus: Focus | null };

/** Reducer inputs. */
export type Action = ChatAction | AppAction;
