// The dashboard WebSocket transport (DESIGN.md §3, seed 001 §3): attach over
// HTTP with the bearer token, subscribe with the cursor, answer pings, resync
// with a snapshot on cursor_expired / replay_too_large, reconnect with
// exponential backoff after any unrequested close (including 1008 client_too_slow).

import { decodeServerFrame, type AttachResponse, type ClientFrame, type EventFilter, type FilterPreset } from "../protocol";
import { SessionStream } from "./stream";
import type { ConnectionState } from "./types";

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
  /** The dashboard token (sent as Authorization: Bearer to attach; the WebSocket itself carries only the single-use attach token). */
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
export class WsTransport extends SessionStream {
  private readonly opts: Required<Omit<WsTransportOptions, "token">> & { token: string | null };
  private ws: WebSocketLike | null = null;
  private attempt = 0;

  /** Creates a transport; nothing happens until connect. */
  constructor(opts: WsTransportOptions) {
    const log = opts.log ?? ((msg: string, detail?: unknown) => console.debug(`[ws] ${msg}`, detail ?? ""));
    super(log);
    this.opts = {
      filter: "preset:chat",
      fetch: (...args: Parameters<typeof fetch>) => globalThis.fetch(...args),
      WebSocket: globalThis.WebSocket as unknown as WebSocketCtor,
      backoff: { initialMs: 500, maxMs: 30_000 },
      random: Math.random,
      ...opts,
      log,
    };
  }

  protected override begin(): void {
    this.attempt = 0;
    void this.open("connecting");
  }

  protected override subscribe(state: ConnectionState): void {
    void this.open(state);
  }

  protected override release(): void {
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onerror = ws.onclose = null;
      ws.close(1000, "client closed");
    }
  }

  protected override onPing(nonce: string): void {
    this.send({ type: "pong", nonce });
  }

  private send(frame: ClientFrame): void {
    if (this.ws?.readyState === OPEN) this.ws.send(JSON.stringify(frame));
  }

  private async attach(): Promise<string> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.opts.token) headers.Authorization = `Bearer ${this.opts.token}`;
    const url = `${this.opts.baseUrl}/sessions/${encodeURIComponent(this.sessionId)}`;
    const res = await this.opts.fetch(url, { headers, credentials: "omit" });
    if (res.status === 401 || res.status === 403 || res.status === 404) {
      throw new FatalAttachError(`attach ${this.sessionId}: HTTP ${res.status}`);
    }
    if (!res.ok) throw new Error(`attach ${this.sessionId}: HTTP ${res.status}`);
    const body = (await res.json()) as Partial<AttachResponse>;
    if (typeof body.ws_url !== "string" || body.ws_url === "") throw new Error(`attach ${this.sessionId}: response has no ws_url`);
    return body.ws_url;
  }

  /** Attaches (a fresh single-use ws_url) and subscribes on a new socket, replacing any open one. */
  private async open(state: ConnectionState): Promise<void> {
    this.release();
    const gen = ++this.generation;
    this.handlers?.state(state);
    let wsUrl: string;
    try {
      wsUrl = await this.attach();
    } catch (err) {
      if (gen !== this.generation) return;
      this.log("attach failed", err);
      if (err instanceof FatalAttachError) {
        const h = this.handlers;
        this.teardown();
        h?.frame({ type: "error", code: "attach_failed", message: err.message });
        h?.state("disconnected");
        return;
      }
      this.reconnectLater();
      return;
    }
    if (gen !== this.generation) return;
    const ws = new this.opts.WebSocket(wsUrl);
    this.ws = ws;
    ws.onopen = () => this.send({ type: "subscribe", filter: this.opts.filter, ...this.resumePoint() });
    ws.onmessage = (ev) => {
      if (gen !== this.generation) return;
      const f = decodeServerFrame(ev.data);
      if (f.type === "subscribe_ack") this.attempt = 0;
      this.deliver(f);
    };
    ws.onerror = (ev) => this.log("socket error", ev);
    ws.onclose = (ev) => {
      if (gen !== this.generation) return;
      this.ws = null;
      this.log("socket closed", ev);
      this.reconnectLater();
    };
  }

  /** Reconnects after the backoff: initialMs · 2^attempt, capped at maxMs, scaled by jitter in [0.5, 1). */
  private reconnectLater(): void {
    const { initialMs, maxMs } = this.opts.backoff;
    const delay = Math.min(maxMs, initialMs * 2 ** this.attempt) * (0.5 + this.opts.random() / 2);
    this.attempt++;
    this.retryAfter(delay);
  }
}
