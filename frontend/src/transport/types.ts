// The transport seam between the client state and a server: the dashboard
// WebSocket (ws.ts) or, later, Wails IPC. Kept small so both fit.

import type { ClientFrame, ServerFrame } from "../protocol";

/** Connection state of one session's stream. */
export type ConnectionState = "connecting" | "connected" | "reconnecting" | "resynchronising" | "disconnected";

/** Callbacks a transport drives. */
export interface TransportHandlers {
  /** Every decoded server frame except RPC responses (which settle request promises), in arrival order. */
  frame(f: ServerFrame): void;
  /** Connection state changes. */
  state(s: ConnectionState): void;
}

/** A connection to one session's event stream plus RPC. */
export interface Transport {
  /**
   * Starts streaming sessionId. cursor is the last event id applied (null →
   * ask for a snapshot). The transport keeps its own cursor from the frames it
   * delivers and resumes from it after every reconnect. Calling connect again
   * replaces the previous session.
   */
  connect(sessionId: string, cursor: string | null, handlers: TransportHandlers): void;
  /** Sends a client frame; returns false when not connected (the frame is dropped). */
  send(frame: ClientFrame): boolean;
  /**
   * Calls an RPC method. Resolves with the response payload; rejects with an
   * RpcError on an error response, after timeoutMs (code TIMEOUT), when not
   * connected (NOT_CONNECTED) or when the connection drops first (DISCONNECTED).
   */
  request<T = unknown>(method: string, params?: unknown, timeoutMs?: number): Promise<T>;
  /** Stops streaming for good: no reconnect; pending requests are rejected. */
  close(): void;
}

/** A failed RPC: a server error code (seed 003) or a client-side TIMEOUT / NOT_CONNECTED / DISCONNECTED. */
export class RpcError extends Error {
  /** Machine-readable code. */
  readonly code: string;
  constructor(code: string, message: string) {
    super(`${code}: ${message}`);
    this.name = "RpcError";
    this.code = code;
  }
}

/** Default RPC timeout (seed 003). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
