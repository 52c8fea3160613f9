// The dashboard WebSocket transport (DESIGN.md §3, seed 001 §3): attach over
// HTTP with the bearer token, subscribe with the cursor, answer pings, resync
// with a snapshot on cursor_expired / replay_too_large, reconnect with
// exponential backoff after any unrequested close (including 1008 client_too_slow).

import { decodeServerFrame, type AttachResponse, type ClientFrame, type EventFilter, type FilterPreset } from "../protocol";
import { PendingRequests } from "./pending";
import { DEFAULT_REQUEST_TIMEOUT_MS, type ConnectionState, type Transport, type TransportHandlers } from "./types";

/** The subset of the browser WebSocket this transport uses (tests supply a fake). */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

/** Constructor of a WebSocketLike. */
export type WebSocketCtor = new (url: string) => WebSocketLike;

/** Options of the WebSocket transport. */
export interface WsTransportOptions {
  /** Dashboard origin, e.g. "http://127.0.0.1:8421" ("" for same origin). */
  baseUrl: string;
  /** Bearer token; null to rely on the dashboard cookie. */
  token: string | null;
  /** Subscribe filter (default "preset:chat"). */
  filter?: EventFilter | FilterPreset;
  fetch?: typeof fetch;
  WebSocket?: WebSocketCtor;
  /** Reconnect backoff: initialMs · 2^attempt, capped at maxMs, scaled by jitter in [0.5, 1). */
  backoff?: { initialMs: number; maxMs: number };
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  /** Diagnostics (default console.debug). */
  log?: (msg: string, detail?: unknown) => void;
}

const OPEN = 1;

/** Attach failures that retrying cannot fix. */
class FatalAttachError extends Error {}

/** WebSocket implementation of Transport. */
export class WsTransport implements Transport {
  private readonly opts: Required<Omit<WsTransportOptions, "token">> & { token: string | null };
  private sessionId = "";
  private cursor: string | null = null;
  private handlers: TransportHandlers | null = null;
  private ws: WebSocketLike | null = null;
  private generation = 0;
  private attempt = 0;
  private stopped = true;
  private snapshotRequested = false;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly pending = new PendingRequests("req", (m, d) => this.opts.log(m, d));

  /** Creates a transport; nothing happens until connect. */
  constructor(opts: WsTransportOptions) {
    this.opts = {
      filter: "preset:chat",
      fetch: (...args: Parameters<typeof fetch>) => globalThis.fetch(...args),
      WebSocket: globalThis.WebSocket as unknown as WebSocketCtor,
      backoff: { initialMs: 500, maxMs: 30_000 },
      random: Math.random,
      log: (msg, detail) => console.debug(`[ws] ${msg}`, detail ?? ""),
      ...opts,
    };
  }

  /** See Transport.connect. */
  connect(sessionId: string, cursor: string | null, handlers: TransportHandlers): void {
    this.teardown();
    this.sessionId = sessionId;
    this.cursor = cursor;
    this.handlers = handlers;
    this.stopped = false;
    this.attempt = 0;
    void this.open("connecting");
  }

  /** See Transport.send. */
  send(frame: ClientFrame): boolean {
    if (!this.ws || this.ws.readyState !== OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** See Transport.request. */
  request<T = unknown>(method: string, params?: unknown, timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): Promise<T> {
    return this.pending.start<T>(method, timeoutMs, (requestId) =>
      this.send({ type: "request", requestId, method, ...(params === undefined ? {} : { params }) }),
    );
  }


  /** See Transport.close. */
  close(): void {
    const wasRunning = !this.stopped;
    this.teardown();
    if (wasRunning) this.handlers?.state("disconnected");
  }

  /** The cursor the next reconnect will resume from (for tests and diagnostics). */
  get currentCursor(): string | null {
    return this.cursor;
  }

  private teardown(): void {
    this.stopped = true;
    this.generation++;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onerror = null;
      ws.onclose = null;
      ws.close(1000, "client closed");
    }
    this.pending.rejectAll("DISCONNECTED", "connection closed");
  }


  private async attach(): Promise<string> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.opts.token) headers.Authorization = `Bearer ${this.opts.token}`;
    const url = `${this.opts.baseUrl}/sessions/${encodeURIComponent(this.sessionId)}`;
    const res = await this.opts.fetch(url, { headers, credentials: "same-origin" });
    if (res.status === 401 || res.status === 403 || res.status === 404) {
      throw new FatalAttachError(`attach ${this.sessionId}: HTTP ${res.status}`);
    }
    if (!res.ok) throw new Error(`attach ${this.sessionId}: HTTP ${res.status}`);
    const body = (await res.json()) as Partial<AttachResponse>;
    if (typeof body.ws_url !== "string" || body.ws_url === "") throw new Error(`attach ${this.sessionId}: response has no ws_url`);
    return body.ws_url;
  }

  private async open(state: ConnectionState): Promise<void> {
    const gen = ++this.generation;
    this.handlers?.state(state);
    let wsUrl: string;
    try {
      wsUrl = await this.attach();
    } catch (err) {
      if (gen !== this.generation) return;
      this.opts.log("attach failed", err);
      if (err instanceof FatalAttachError) {
        this.stopped = true;
        this.handlers?.frame({ type: "error", code: "attach_failed", message: err.message });
        this.handlers?.state("disconnected");
        return;
      }
      this.scheduleReconnect();
      return;
    }
    if (gen !== this.generation) return;
    const ws = new this.opts.WebSocket(wsUrl);
    this.ws = ws;
    ws.onopen = () => {
      this.snapshotRequested = this.cursor === null;
      this.send({ type: "subscribe", filter: this.opts.filter, since: this.cursor, snapshot: this.snapshotRequested });
    };
    ws.onmessage = (ev) => {
      if (gen === this.generation) this.onMessage(ev.data);
    };
    ws.onerror = (ev) => this.opts.log("socket error", ev);
    ws.onclose = (ev) => {
      if (gen !== this.generation) return;
      this.ws = null;
      this.pending.rejectAll("DISCONNECTED", `connection closed (${ev.code}${ev.reason ? ` ${ev.reason}` : ""})`);
      this.opts.log("socket closed", ev);
      if (!this.stopped) this.scheduleReconnect();
    };
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const { initialMs, maxMs } = this.opts.backoff;
    const delay = Math.min(maxMs, initialMs * 2 ** this.attempt) * (0.5 + this.opts.random() / 2);
    this.attempt++;
    this.handlers?.state("reconnecting");
    const gen = ++this.generation;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (gen === this.generation && !this.stopped) void this.open("reconnecting");
    }, delay);
  }

  /** Drops the socket and resubscribes from scratch with a snapshot. */
  private resync(): void {
    this.cursor = null;
    const ws = this.ws;
    this.ws = null;
    this.generation++;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onerror = ws.onclose = null;
      ws.close(1000, "resynchronising");
    }
    this.pending.rejectAll("DISCONNECTED", "resynchronising");
    void this.open("resynchronising");
  }

  private onMessage(data: unknown): void {
    const f = decodeServerFrame(data);
    const h = this.handlers;
    switch (f.type) {
      case "unknown":
        this.opts.log("ignoring frame", f.reason);
        return;
      case "ping":
        this.send({ type: "pong", nonce: f.nonce });
        return;
      case "pong":
        return;
      case "response":
        this.pending.settle(f);
        return;
      case "subscribe_ack":
        this.attempt = 0;
        h?.frame(f);
        if (!this.snapshotRequested) h?.state("connected");
        return;
      case "subscribe_error":
        if (f.code === "cursor_expired" || f.code === "replay_too_large") {
          this.opts.log("cursor unusable; resynchronising with a snapshot", f);
          this.resync();
          return;
        }
        h?.frame(f);
        this.teardown();
        h?.state("disconnected");
        return;
      case "snapshot":
        this.cursor = f.snapshot_at_event_id;
        h?.frame(f);
        h?.state("connected");
        return;
      case "event":
        if (this.cursor === null || f.event.id > this.cursor) this.cursor = f.event.id;
        h?.frame(f);
        return;
      case "error":
        h?.frame(f);
        return;
    }
  }
}
