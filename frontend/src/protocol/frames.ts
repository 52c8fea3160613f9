// WebSocket frames (seed 001 §4, DESIGN.md §3) and RPC frames (seed 003).

import type { AgentEvent } from "./events";
import type { Message, Session } from "./records";

/** Subscribe filter presets. */
export type FilterPreset = "preset:chat" | "preset:full";

/** An explicit subscribe filter. */
export interface EventFilter {
  event_types: string[] | null;
  actors: string[] | null;
  include_worker_sessions: boolean;
}

// ---- server → client ----

/** Acknowledges a subscribe; epoch is this project's additive field. */
export interface SubscribeAckFrame {
  type: "subscribe_ack";
  resolved_filter: EventFilter;
  since: string | null;
  snapshot: boolean;
  replay_event_count: number;
  epoch?: string;
}

/** Subscribe error codes. */
export type SubscribeErrorCode = "session_not_found" | "cursor_expired" | "replay_too_large" | "invalid_filter";

/** A failed subscribe. */
export interface SubscribeErrorFrame {
  type: "subscribe_error";
  code: SubscribeErrorCode | string;
  message: string;
}

/**
 * Full session state as of snapshot_at_event_id. messages may end with the
 * partial assistant message (status "streaming") when one is in flight.
 */
export interface SnapshotFrame {
  type: "snapshot";
  session: Session;
  messages: Message[];
  snapshot_at_event_id: string;
  epoch?: string;
}

/** One event (either family). */
export interface EventFrame {
  type: "event";
  event: AgentEvent;
}

/** Heartbeat (either direction). */
export interface PingFrame {
  type: "ping";
  nonce: string;
}

/** Heartbeat answer (either direction). */
export interface PongFrame {
  type: "pong";
  nonce: string;
}

/** Frame-level error codes (DESIGN.md §3). */
export type FrameErrorCode = "invalid_frame" | "unknown_frame_type" | "frame_too_large";

/** A frame-level error from the server. */
export interface ErrorFrame {
  type: "error";
  code: FrameErrorCode | string;
  message: string;
}

/** RPC error codes (seed 003). */
export type RpcErrorCode = "METHOD_NOT_FOUND" | "INVALID_PARAMS" | "AGENT_NOT_FOUND" | "RPC_ERROR";

/** Successful RPC response. */
export interface ResponseOkFrame {
  type: "response";
  requestId: string;
  ok: true;
  payload: unknown;
}

/** Failed RPC response. */
export interface ResponseErrorFrame {
  type: "response";
  requestId: string;
  ok: false;
  error: { code: RpcErrorCode | string; message: string };
}

/** An RPC response. */
export type ResponseFrame = ResponseOkFrame | ResponseErrorFrame;

/** A frame this client does not understand; raw is the decoded JSON (or the text, if not JSON). */
export interface UnknownFrame {
  type: "unknown";
  raw: unknown;
  reason: string;
}

/** Every server → client frame. */
export type ServerFrame =
  | SubscribeAckFrame
  | SubscribeErrorFrame
  | SnapshotFrame
  | EventFrame
  | PingFrame
  | PongFrame
  | ErrorFrame
  | ResponseFrame;

// ---- client → server ----

/** First frame after connecting. snapshot must be true when since is null. */
export interface SubscribeFrame {
  type: "subscribe";
  filter: EventFilter | FilterPreset;
  since: string | null;
  snapshot: boolean;
}

/** Cancels an in-flight turn. */
export interface CancelFrame {
  type: "cancel";
  turn_id: string;
  reason?: string;
}

/** An RPC request; requestId is unique per connection. */
export interface RequestFrame {
  type: "request";
  requestId: string;
  method: string;
  params?: unknown;
}

/** Every client → server frame. */
export type ClientFrame = SubscribeFrame | CancelFrame | PingFrame | PongFrame | RequestFrame;

// ---- RPC methods ----

/** Params of getAgentMessages (seed 003; agentId is the session id). */
export interface GetAgentMessagesParams {
  agentId: string;
  offset?: number;
  limit?: number;
  before?: string;
}

/**
 * A history message as served by getAgentMessages / GET messages: a stored
 * message, except content may be a plain string (seed 000 normalisation).
 */
export type HistoryMessage = Omit<Message, "content" | "session_id" | "offset" | "created_at"> & {
  content: Message["content"] | string;
  session_id?: string;
  offset?: number;
  created_at?: string;
};

/** Result of getAgentMessages / GET /sessions/{id}/messages (either shape's paging fields). */
export interface GetAgentMessagesResult {
  messages: HistoryMessage[];
  has_more?: boolean;
  total?: number;
  offset?: number;
  limit?: number;
}
