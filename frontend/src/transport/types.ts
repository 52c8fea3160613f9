// The transport seam between the client state and the hub: one session's
// event stream over the dashboard WebSocket (ws.ts) or the Wails IPC
// (wails.ts). RPC is separate (rpc.ts).

import type { ServerFrame } from "../protocol";

/** Connection state of one session's stream. */
export type ConnectionState = "connecting" | "connected" | "reconnecting" | "resynchronising" | "disconnected";

/** Callbacks a transport drives. */
export interface TransportHandlers {
  /** Every decoded stream frame (acks, snapshots, events, errors), in arrival order. */
  frame(f: ServerFrame): void;
  /** Connection state changes. */
  state(s: ConnectionState): void;
  /**
   * The cursor: the id of the newest event the client has applied (null: none
   * yet, ask for a snapshot). Read at every (re)subscribe; the transport keeps
   * no cursor of its own.
   */
  cursor(): string | null;
}

/** A connection to one session's event stream. */
export interface Transport {
  /**
   * Starts streaming sessionId from handlers.cursor(), and resumes from it
   * after every reconnect. Calling connect again replaces the previous session.
   */
  connect(sessionId: string, handlers: TransportHandlers): void;
  /** Stops streaming for good: no reconnect. */
  close(): void;
}

/** A failed RPC: a server error code (seed 003) or a client-side TIMEOUT / NOT_CONNECTED / DISCONNECTED / TRANSPORT. */
export class RpcError extends Error {
  /** Machine-readable code. */
  readonly code: string;
  /** The message without the code. */
  readonly reason: string;
  constructor(code: string, reason: string) {
    super(`${code}: ${reason}`);
    this.name = "RpcError";
    this.code = code;
    this.reason = reason;
  }
}

/** Default RPC timeout (seed 003). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
