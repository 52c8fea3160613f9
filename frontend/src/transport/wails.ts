// The Wails IPC transport: frames arrive as the `localChat:event` Wails event
// in batches ({subscription_id, first_event_id, last_event_id, frames} or a
// chunk of one large frame) coalesced by ipc/wailsipc; calls go to the bound
// Go methods window.go.wailsipc.Bridge.*. Listeners die on reload while Go
// state survives, so the page announces itself (Hello) once per load and
// resubscribes with its cursor; the server replays the gap from the log.
//
// Never call EventsOff("localChat:event"): it removes the Go-side listeners
// too (DESIGN.md §4). The function EventsOn returns is kept and called instead.

import { decodeServerFrame, type EventFilter, type FilterPreset } from "../protocol";
import { SessionStream } from "./stream";
import type { ConnectionState } from "./types";

/** The Wails event carrying server frames. */
export const WAILS_EVENT = "localChat:event";

/** The subset of window.runtime this transport uses. */
export interface WailsRuntimeLike {
  /** Registers a listener; returns the function that removes exactly it. */
  EventsOn(name: string, cb: (...data: unknown[]) => void): () => void;
}

/** The bound Go methods of wailsipc.Bridge (window.go.wailsipc.Bridge) the stream uses; RPC uses Request (rpc.ts). */
export interface WailsBridgeLike {
  Hello(pageId: string): Promise<void>;
  Subscribe(sessionId: string, filter: string, since: string | null, snapshot: boolean, dialect: string): Promise<unknown>;
  Unsubscribe(subscriptionId: string): Promise<void>;
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
export class WailsTransport extends SessionStream {
  private readonly runtime: WailsRuntimeLike;
  private readonly bridge: WailsBridgeLike;
  private readonly filter: EventFilter | FilterPreset;
  private readonly pageId: string;
  private readonly resubscribeDelayMs: number;

  private off: (() => void) | null = null;
  private subId: string | null = null;
  private subscribing = false;
  private early: WailsBatch[] = [];
  private chunks: string[] = [];

  /** Creates a transport; throws when not inside the Wails window and no runtime/bridge is given. */
  constructor(opts: WailsTransportOptions = {}) {
    super(opts.log ?? ((msg, detail) => console.debug(`[wails] ${msg}`, detail ?? "")));
    const g = globalThis as unknown as WailsGlobals;
    const runtime = opts.runtime ?? g.runtime;
    const bridge = opts.bridge ?? g.go?.wailsipc?.Bridge;
    if (!runtime || !bridge) throw new Error("WailsTransport: window.runtime / window.go.wailsipc.Bridge not available");
    this.runtime = runtime;
    this.bridge = bridge;
    this.filter = opts.filter ?? "preset:chat";
    this.pageId = opts.pageId ?? PAGE_ID;
    this.resubscribeDelayMs = opts.resubscribeDelayMs ?? 250;
  }

  protected override begin(): void {
    this.off = this.runtime.EventsOn(WAILS_EVENT, (...data: unknown[]) => {
      for (const d of data) this.onBatch(d);
    });
    void this.subscribeNow("connecting");
  }

  protected override subscribe(state: ConnectionState): void {
    void this.subscribeNow(state);
  }

  protected override release(): void {
    this.off?.();
    this.off = null;
    this.dropSubscription();
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

  private async subscribeNow(state: ConnectionState): Promise<void> {
    const gen = ++this.generation;
    this.handlers?.state(state);
    this.dropSubscription();
    this.subscribing = true;
    const filter = typeof this.filter === "string" ? this.filter : JSON.stringify(this.filter);
    let res: unknown;
    try {
      await this.hello();
      const { since, snapshot } = this.resumePoint();
      res = await this.bridge.Subscribe(this.sessionId, filter, since, snapshot, "canonical");
    } catch (e) {
      if (gen !== this.generation) return;
      this.subscribing = false;
      this.log("subscribe failed", e);
      this.retryAfter(this.resubscribeDelayMs);
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
    if (f.type === "subscribe_error") {
      this.early = [];
      this.deliver(f);
      return;
    }
    if (f.type !== "subscribe_ack" || !isObj(res) || typeof res.subscription_id !== "string") {
      this.log("unexpected subscribe result", res);
      this.retryAfter(this.resubscribeDelayMs);
      return;
    }
    this.subId = res.subscription_id;
    this.deliver(f);
    const early = this.early;
    this.early = [];
    for (const b of early) if (b.subscription_id === this.subId) this.applyBatch(b);
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
        this.retryAfter(this.resubscribeDelayMs);
        return;
      }
      this.chunks.push(data);
      if (this.chunks.length === count) {
        const text = this.chunks.join("");
        this.chunks = [];
        this.deliver(decodeServerFrame(text));
      }
    }
    for (const raw of b.frames) {
      if (this.stopped || this.subId !== b.subscription_id) return;
      this.deliver(decodeServerFrame(raw));
    }
    if (b.closed && this.subId === b.subscription_id) {
      // The server ended this subscription (e.g. client_too_slow): resume from the cursor.
      this.subId = null;
      this.retryAfter(this.resubscribeDelayMs);
    }
  }
}
