// The Wails IPC transport: frames arrive as the `localChat:event` Wails event
// in batches ({subscription_id, first_event_id, last_event_id, frames} or a
// chunk of one large frame) coalesced by ipc/wailsipc; calls go to the bound
// Go methods window.go.wailsipc.Bridge.*. Listeners die on reload while Go
// state survives, so the page announces itself (Hello) once per load and
// resubscribes with its cursor; the server replays the gap from the log.
//
// Never call EventsOff("localChat:event"): it removes the Go-side listeners
// too (DESIGN.md §4). The function EventsOn returns is kept and called instead.

import { decodeServerFrame, type ClientFrame, type EventFilter, type FilterPreset } from "../protocol";
import { PendingRequests } from "./pending";
import { DEFAULT_REQUEST_TIMEOUT_MS, RpcError, type ConnectionState, type Transport, type TransportHandlers } from "./types";

/** The Wails event carrying server frames. */
export const WAILS_EVENT = "localChat:event";

/** The subset of window.runtime this transport uses. */
export interface WailsRuntimeLike {
  /** Registers a listener; returns the function that removes exactly it. */
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void;
}

/** The bound Go methods of wailsipc.Bridge (window.go.wailsipc.Bridge). */
export interface WailsBridgeLike {
  Hello(pageId: string): Promise<void>;
  Subscribe(sessionId: string, filter: string, since: string | null, snapshot: boolean): Promise<unknown>;
  Unsubscribe(subscriptionId: string): Promise<void>;
  Cancel(sessionId: string, turnId: string, reason: string): Promise<void>;
  Ping(nonce: string): Promise<unknown>;
  Request(frame: string): Promise<unknown>;
  SubmitTurn(sessionId: string, content: string): Promise<{ turn_id: string; queued: boolean }>;
}

/** One `localChat:event` payload (see ipc/wailsipc Batch). */
export interface WailsBatch {
  subscription_id: string;
  first_event_id: string | null;
  last_event_id: string | null;
  frames: unknown[];
  chunk?: { index: number; count: number; data: string };
  closed?: boolean;
}

/** Options of the Wails transport; runtime and bridge default to the window's. */
export interface WailsTransportOptions {
  runtime?: WailsRuntimeLike;
  bridge?: WailsBridgeLike;
  /** Subscribe filter (default "preset:chat"). */
  filter?: EventFilter | FilterPreset;
  /** This page load's id (default: one random id per module load, shared by every instance). */
  pageId?: string;
  /** Delay before resubscribing after the server closed a subscription (default 250 ms). */
  resubscribeDelayMs?: number;
  /** Diagnostics (default console.debug). */
  log?: (msg: string, detail?: unknown) => void;
}

interface WailsGlobals {
  runtime?: WailsRuntimeLike;
  go?: { wailsipc?: { Bridge?: WailsBridgeLike } };
}

/** True when running inside the Wails window with the bridge bound. */
export function isWailsAvailable(): boolean {
  const g = globalThis as unknown as WailsGlobals;
  return typeof g.runtime?.EventsOn === "function" && g.go?.wailsipc?.Bridge !== undefined;
}

function randomId(): string {
  const c = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (c?.randomUUID) return c.randomUUID();
  return `page-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
}

/** One id per page load: every transport instance of this page shares it. */
const PAGE_ID = randomId();
const helloSent = new Map<string, Promise<void>>();

/** Batches buffered while a Subscribe call is in flight (its id is not known yet). */
const MAX_EARLY_BATCHES = 10_000;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asBatch(v: unknown): WailsBatch | null {
  if (typeof v === "string") {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return null;
    }
  }
  if (!isObj(v) || typeof v.subscription_id !== "string") return null;
  if (!Array.isArray(v.frames) && !isObj(v.chunk)) return null;
  return {
    subscription_id: v.subscription_id,
    first_event_id: typeof v.first_event_id === "string" ? v.first_event_id : null,
    last_event_id: typeof v.last_event_id === "string" ? v.last_event_id : null,
    frames: Array.isArray(v.frames) ? v.frames : [],
    ...(isObj(v.chunk) ? { chunk: v.chunk as WailsBatch["chunk"] } : {}),
    ...(v.closed === true ? { closed: true } : {}),
  };
}

/** Wails IPC implementation of Transport. */
export class WailsTransport implements Transport {
  private readonly runtime: WailsRuntimeLike;
  private readonly bridge: WailsBridgeLike;
  private readonly filter: EventFilter | FilterPreset;
  private readonly pageId: string;
  private readonly resubscribeDelayMs: number;
  private readonly log: (msg: string, detail?: unknown) => void;

  private off: (() => void) | null = null;
  private sessionId = "";
  private cursor: string | null = null;
  private handlers: TransportHandlers | null = null;
  private subId: string | null = null;
  private subscribing = false;
  private early: WailsBatch[] = [];
  private chunks: string[] = [];
  private generation = 0;
  private stopped = true;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly pending = new PendingRequests("wreq", (m, d) => this.log(m, d));

  /** Creates a transport; throws when not inside the Wails window and no runtime/bridge is given. */
  constructor(opts: WailsTransportOptions = {}) {
    const g = globalThis as unknown as WailsGlobals;
    const runtime = opts.runtime ?? g.runtime;
    const bridge = opts.bridge ?? g.go?.wailsipc?.Bridge;
    if (!runtime || !bridge) throw new Error("WailsTransport: window.runtime / window.go.wailsipc.Bridge not available");
    this.runtime = runtime;
    this.bridge = bridge;
    this.filter = opts.filter ?? "preset:chat";
    this.pageId = opts.pageId ?? PAGE_ID;
    this.resubscribeDelayMs = opts.resubscribeDelayMs ?? 250;
    this.log = opts.log ?? ((msg, detail) => console.debug(`[wails] ${msg}`, detail ?? ""));
  }

  /** See Transport.connect. */
  connect(sessionId: string, cursor: string | null, handlers: TransportHandlers): void {
    this.teardown();
    this.sessionId = sessionId;
    this.cursor = cursor;
    this.handlers = handlers;
    this.stopped = false;
    this.off = this.runtime.EventsOn(WAILS_EVENT, (...data: unknown[]) => {
      for (const d of data) this.onBatch(d);
    });
    void this.subscribe("connecting");
  }

  /** See Transport.send: cancel, ping and request frames map to bridge calls. */
  send(frame: ClientFrame): boolean {
    if (this.stopped) return false;
    switch (frame.type) {
      case "cancel":
        this.bridge.Cancel(this.sessionId, frame.turn_id, frame.reason ?? "user_cancel").catch((e: unknown) => this.log("cancel failed", e));
        return true;
      case "ping":
        this.bridge
          .Ping(frame.nonce)
          .then((pong) => {
            const f = decodeServerFrame(pong);
            if (f.type === "pong") this.handlers?.frame(f);
          })
          .catch((e: unknown) => this.log("ping failed", e));
        return true;
      case "pong":
        return true;
      case "request":
        this.bridge
          .Request(JSON.stringify(frame))
          .then((r) => {
            const f = decodeServerFrame(r);
            if (f.type === "response") this.pending.settle(f);
          })
          .catch((e: unknown) => this.log("request failed", e));
        return true;
      case "subscribe":
        // The transport owns its subscription; resubscribe through connect.
        return false;
    }
  }

  /** See Transport.request. */
  request<T = unknown>(method: string, params?: unknown, timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS): Promise<T> {
    return this.pending.start<T>(method, timeoutMs, (requestId) =>
      this.send({ type: "request", requestId, method, ...(params === undefined ? {} : { params }) }),
    );
  }


  /** Submits a turn through the bridge (the desktop's equivalent of POST /sessions/{id}/turns). */
  submitTurn(content: string): Promise<{ turn_id: string; queued: boolean }> {
    if (this.stopped) return Promise.reject(new RpcError("NOT_CONNECTED", "submitTurn: not connected"));
    return this.bridge.SubmitTurn(this.sessionId, content);
  }

  /** See Transport.close. */
  close(): void {
    const wasRunning = !this.stopped;
    this.teardown();
    if (wasRunning) this.handlers?.state("disconnected");
  }

  /** The cursor the next resubscribe will resume from. */
  get currentCursor(): string | null {
    return this.cursor;
  }

  private teardown(): void {
    this.stopped = true;
    this.generation++;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.off?.();
    this.off = null;
    this.dropSubscription();
    this.pending.rejectAll("DISCONNECTED", "transport closed");
  }

  private dropSubscription(): void {
    const id = this.subId;
    this.subId = null;
    this.subscribing = false;
    this.early = [];
    this.chunks = [];
    if (id !== null) this.bridge.Unsubscribe(id).catch((e: unknown) => this.log("unsubscribe failed", e));
  }


  private hello(): Promise<void> {
    let p = helloSent.get(this.pageId);
    if (!p) {
      p = this.bridge.Hello(this.pageId);
      helloSent.set(this.pageId, p);
      p.catch(() => helloSent.delete(this.pageId));
    }
    return p;
  }

  private async subscribe(state: ConnectionState): Promise<void> {
    const gen = ++this.generation;
    this.handlers?.state(state);
    this.dropSubscription();
    this.subscribing = true;
    const snapshot = this.cursor === null;
    const filter = typeof this.filter === "string" ? this.filter : JSON.stringify(this.filter);
    let res: unknown;
    try {
      await this.hello();
      res = await this.bridge.Subscribe(this.sessionId, filter, this.cursor, snapshot);
    } catch (e) {
      if (gen !== this.generation) return;
      this.subscribing = false;
      this.log("subscribe failed", e);
      this.retry();
      return;
    }
    if (gen !== this.generation) {
      // Superseded while in flight: release what we got.
      if (isObj(res) && typeof res.subscription_id === "string") {
        this.bridge.Unsubscribe(res.subscription_id).catch(() => undefined);
      }
      return;
    }
    this.subscribing = false;
    const f = decodeServerFrame(res);
    const h = this.handlers;
    if (f.type === "subscribe_error") {
      this.early = [];
      if (f.code === "cursor_expired" || f.code === "replay_too_large") {
        this.log("cursor unusable; resynchronising with a snapshot", f);
        this.cursor = null;
        void this.subscribe("resynchronising");
        return;
      }
      h?.frame(f);
      this.stopped = true;
      this.off?.();
      this.off = null;
      h?.state("disconnected");
      return;
    }
    if (f.type !== "subscribe_ack" || !isObj(res) || typeof res.subscription_id !== "string") {
      this.log("unexpected subscribe result", res);
      this.retry();
      return;
    }
    this.subId = res.subscription_id;
    h?.frame(f);
    if (!snapshot) h?.state("connected");
    const early = this.early;
    this.early = [];
    for (const b of early) if (b.subscription_id === this.subId) this.applyBatch(b);
  }

  private retry(): void {
    if (this.stopped) return;
    this.handlers?.state("reconnecting");
    const gen = ++this.generation;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (gen === this.generation && !this.stopped) void this.subscribe("reconnecting");
    }, this.resubscribeDelayMs);
  }

  private onBatch(data: unknown): void {
    if (this.stopped) return;
    const b = asBatch(data);
    if (!b) {
      this.log("ignoring malformed batch", data);
      return;
    }
    if (this.subId !== null && b.subscription_id === this.subId) {
      this.applyBatch(b);
    } else if (this.subscribing && this.early.length < MAX_EARLY_BATCHES) {
      this.early.push(b);
    }
  }

  private applyBatch(b: WailsBatch): void {
    if (b.chunk) {
      const { index, count, data } = b.chunk;
      if (index !== this.chunks.length) {
        this.log("chunk out of sequence; resubscribing", b.chunk);
        this.chunks = [];
        this.retry();
        return;
      }
      this.chunks.push(data);
      if (this.chunks.length === count) {
        const text = this.chunks.join("");
        this.chunks = [];
        this.onFrame(text);
      }
    }
    for (const raw of b.frames) {
      if (this.stopped || this.subId !== b.subscription_id) return;
      this.onFrame(raw);
    }
    if (b.closed && this.subId === b.subscription_id) {
      // The server ended this subscription (e.g. client_too_slow): resume from the cursor.
      this.subId = null;
      this.retry();
    }
  }

  private onFrame(raw: unknown): void {
    const f = decodeServerFrame(raw);
    const h = this.handlers;
    switch (f.type) {
      case "unknown":
        this.log("ignoring frame", f.reason);
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
      case "response":
        this.pending.settle(f);
        return;
      case "ping":
      case "pong":
        return; // heartbeats are a WebSocket concern; the IPC is in-process
      default:
        h?.frame(f);
    }
  }
}
