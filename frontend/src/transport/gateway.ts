// The gateway transport (docs/protocol.md §11): this page is a client
// device of an Agent Hub gateway (Socket.io at /ws, the seeds' device
// protocol). It registers with its own device id, verifies with one hub by
// the token the hub's user gave it, and then reaches that hub like the
// dashboard: RPC as seed 003 requests in RoutedMessages, and each session's
// stream as a subscription whose frames arrive as "stream" / "snapshot"
// messages. It re-verifies and resubscribes from the cursor whenever the
// gateway connection comes back or the hub says it is back (hub_online).

import { io } from "socket.io-client";
import { decodeServerFrame, type EventFilter, type FilterPreset } from "../protocol";
import type { RpcChannel } from "./rpc";
import { SessionStream } from "./stream";
import { RpcError, type ConnectionState } from "./types";
import { uuidv7 } from "./uuidv7";

/** A device on the gateway (the SDK's DeviceInfo). */
export interface DeviceInfo {
  deviceId: string;
  deviceType: "client" | "hub" | "agent";
}

/** A RoutedMessage (the SDK's envelope of send and receive). */
export interface RoutedMessage {
  id: string;
  uid: string | null;
  from: string;
  to: string;
  action: string;
  payload: unknown;
}

/** The subset of a socket.io-client Socket this transport uses (tests supply a fake). */
export interface SocketLike {
  on(event: string, fn: (...args: unknown[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
  connect(): unknown;
  disconnect(): unknown;
  readonly connected: boolean;
}

/** Opens a SocketLike (default: socket.io-client's io). */
export type SocketFactory = (url: string, opts: { path: string; query: Record<string, string>; transports: string[] }) => SocketLike;

/** Options of GatewayConnection. */
export interface GatewayOptions {
  /** Gateway origin ("" = this page's). */
  url: string;
  /** This page's device id (kept in localStorage: the hub knows the device by it). */
  deviceId: string;
  /** The hub to verify with, and the token it paired this device with. */
  hubId: string;
  token: string;
  /** What the hub's user is shown about this device. */
  meta?: Record<string, string>;
  socket?: SocketFactory;
  /** Bound of the verify (the hub's user may have to confirm). */
  verifyTimeoutMs?: number;
  log?: (msg: string, detail?: unknown) => void;
}

type ReadyListener = (ready: boolean, why: string) => void;

/** One page's connection to a gateway and, through it, to one hub. */
export class GatewayConnection {
  private socket: SocketLike | null = null;
  /** Requests awaiting their response, by requestId (msgId: their message's id, which a send_error names). */
  private readonly waiting = new Map<string, { resolve: (v: unknown) => void; reject: (e: Error) => void; msgId: string }>();
  private readonly sentAs = new Map<string, string>();
  private readonly streams = new Map<string, (action: string, payload: unknown) => void>();
  private readonly listeners = new Set<ReadyListener>();
  private verified = false;
  private registered = false;
  private refusals = 0;
  private lastError = "";
  private readonly log: (msg: string, detail?: unknown) => void;

  constructor(private readonly opts: GatewayOptions) {
    this.log = opts.log ?? ((msg: string, detail?: unknown) => console.debug(`[gateway] ${msg}`, detail ?? ""));
  }

  /** Connects (and reconnects, with socket.io-client's backoff) until close. */
  start(): void {
    if (this.socket) return;
    const factory: SocketFactory = this.opts.socket ?? ((url, o) => io(url, o) as unknown as SocketLike);
    const s = factory(this.opts.url, {
      path: "/ws",
      query: { deviceId: this.opts.deviceId, deviceType: "client" },
      transports: ["websocket"],
    });
    this.socket = s;
    s.on("registered", (r: unknown) => {
      const reg = r as { success?: boolean; error?: string };
      if (reg.success !== true) {
        this.setReady(false, `the gateway refused this device: ${reg.error ?? "no reason given"}`);
        return;
      }
      this.registered = true;
      this.refusals = 0;
      if (this.opts.hubId) void this.verify();
    });
    s.on("receive", (m: unknown) => this.receive(m as RoutedMessage));
    s.on("send_error", (e: unknown) => {
      const err = e as { messageId?: string; code?: string; error?: string };
      const requestId = err.messageId ? this.sentAs.get(err.messageId) : undefined;
      const w = requestId ? this.waiting.get(requestId) : undefined;
      if (w && requestId) {
        this.forget(requestId);
        w.reject(new RpcError(err.code === "DEVICE_NOT_FOUND" ? "DISCONNECTED" : (err.code ?? "TRANSPORT"), err.error ?? "not delivered"));
      }
    });
    s.on("disconnect", (why: unknown) => {
      this.registered = false;
      // The gateway refused this id (a reloaded page's old socket may still
      // hold it for a moment): socket.io-client does not retry a server's
      // disconnect by itself, so this page does, after a pause.
      if (why === "io server disconnect" && this.socket === s) {
        this.refusals++;
        setTimeout(() => {
          if (this.socket === s) s.connect();
        }, Math.min(10_000, 250 * 2 ** Math.min(this.refusals, 6)));
      }
      this.setReady(false, `the gateway connection dropped (${String(why)})`);
      for (const [, w] of this.waiting) w.reject(new RpcError("DISCONNECTED", "the gateway connection dropped"));
      this.waiting.clear();
      this.sentAs.clear();
    });
    s.on("connect_error", (e: unknown) => this.setReady(false, `cannot reach the gateway: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** Disconnects for good. */
  close(): void {
    this.socket?.disconnect();
    this.socket = null;
    this.setReady(false, "closed");
  }

  /** Whether the hub verified this device on the current connection. */
  get ready(): boolean {
    return this.verified;
  }

  /** Why it is not ready (the last error). */
  get why(): string {
    return this.lastError;
  }

  /** Calls fn with every readiness change; returns the unsubscribe. */
  onReady(fn: ReadyListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Resolves once verified (rejects after timeoutMs with why it is not). */
  whenReady(timeoutMs: number): Promise<void> {
    if (this.verified) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(this.lastError || "the hub did not verify this device in time"));
      }, timeoutMs);
      const off = this.onReady((ready) => {
        if (!ready) return;
        clearTimeout(timer);
        off();
        resolve();
      });
    });
  }

  /** The devices the gateway lists (list-devices), once this device is registered (at most waitMs). */
  async listDevices(waitMs = 5000): Promise<DeviceInfo[]> {
    const deadline = Date.now() + waitMs;
    while (!this.registered && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return new Promise((resolve, reject) => {
      const s = this.socket;
      if (!s?.connected || !this.registered) {
        reject(new Error(this.lastError || "not connected to the gateway"));
        return;
      }
      s.emit("list-devices", {}, (r: unknown) => resolve(((r as { devices?: DeviceInfo[] }).devices ?? []).slice()));
    });
  }

  /** The RPC channel: one flat request frame to the hub, its flat response frame back. */
  channel(): RpcChannel {
    return (frameJSON, signal) => {
      const frame = JSON.parse(frameJSON) as { requestId: string; method: string; params?: unknown };
      if (!this.verified) return Promise.reject(new RpcError("DISCONNECTED", this.lastError || "not verified with the hub yet"));
      const answer = this.request(frame.requestId, frame.method, frame.params);
      signal.addEventListener("abort", () => this.forget(frame.requestId));
      return answer;
    };
  }

  /** Sends one request; resolves with the flat response frame. */
  request(requestId: string, method: string, params?: unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const s = this.socket;
      if (!s?.connected) {
        reject(new RpcError("DISCONNECTED", "not connected to the gateway"));
        return;
      }
      const id = uuidv7();
      this.waiting.set(requestId, { resolve, reject, msgId: id });
      this.sentAs.set(id, requestId);
      const msg: RoutedMessage = {
        id, uid: null, from: this.opts.deviceId, to: this.opts.hubId, action: "request",
        payload: params === undefined ? { requestId, method } : { requestId, method, params },
      };
      s.emit("send", msg);
    });
  }

  /** Routes a subscription's frames to fn until the returned function is called. */
  stream(subscriptionId: string, fn: (action: string, payload: unknown) => void): () => void {
    this.streams.set(subscriptionId, fn);
    return () => this.streams.delete(subscriptionId);
  }

  private forget(requestId: string): void {
    const w = this.waiting.get(requestId);
    if (w) this.sentAs.delete(w.msgId);
    this.waiting.delete(requestId);
  }

  private async verify(): Promise<void> {
    try {
      const meta = this.opts.meta ?? {};
      const res = (await this.withTimeout(this.request(uuidv7(), "verify", { token: this.opts.token, meta }), this.opts.verifyTimeoutMs ?? 120_000)) as {
        ok?: boolean;
        error?: { code?: string; message?: string };
      };
      if (res.ok !== true) {
        this.setReady(false, `the hub refused this device: ${res.error?.code ?? ""} ${res.error?.message ?? ""}`.trim());
        return;
      }
      this.setReady(true, "");
    } catch (err) {
      this.setReady(false, `verify: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 1000)} s (is the hub's user asked to allow this device?)`)), ms);
      p.then(
        (v) => {
          clearTimeout(t);
          resolve(v);
        },
        (e: unknown) => {
          clearTimeout(t);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }

  private receive(m: RoutedMessage): void {
    if (m.from !== this.opts.hubId) return;
    const p = m.payload as { requestId?: string; ok?: boolean; subscriptionId?: string } | null;
    switch (m.action) {
      case "response": {
        const w = p?.requestId ? this.waiting.get(p.requestId) : undefined;
        if (w && p?.requestId) {
          this.forget(p.requestId);
          w.resolve({ type: "response", ...p });
        }
        return;
      }
      case "stream":
      case "snapshot":
      case "stream_end": {
        const fn = p?.subscriptionId ? this.streams.get(p.subscriptionId) : undefined;
        fn?.(m.action, p);
        return;
      }
      case "hub_online":
        // The hub restarted or reconnected: verify again, then streams resume.
        this.setReady(false, "the hub reconnected");
        void this.verify();
        return;
      default:
        this.log("ignoring a message", m.action);
    }
  }

  private setReady(ready: boolean, why: string): void {
    if (!ready) this.lastError = why;
    if (this.verified === ready && ready) return;
    this.verified = ready;
    for (const fn of [...this.listeners]) fn(ready, why);
  }
}

/** Options of GatewayTransport. */
export interface GatewayTransportOptions {
  filter?: EventFilter | FilterPreset;
  backoff?: { initialMs: number; maxMs: number };
  log?: (msg: string, detail?: unknown) => void;
}

/** One session's stream through the gateway (Transport). */
export class GatewayTransport extends SessionStream {
  private subscription: string | null = null;
  private offStream: (() => void) | null = null;
  private offReady: (() => void) | null = null;
  private attempt = 0;
  private readonly filter: EventFilter | FilterPreset;
  private readonly backoff: { initialMs: number; maxMs: number };

  constructor(
    private readonly conn: GatewayConnection,
    private readonly request: (method: string, params: unknown) => Promise<unknown>,
    opts: GatewayTransportOptions = {},
  ) {
    super(opts.log ?? ((msg: string, detail?: unknown) => console.debug(`[gateway stream] ${msg}`, detail ?? "")));
    this.filter = opts.filter ?? "preset:chat";
    this.backoff = opts.backoff ?? { initialMs: 500, maxMs: 15_000 };
  }

  protected override begin(): void {
    this.attempt = 0;
    this.offReady = this.conn.onReady((ready) => {
      if (this.stopped) return;
      if (ready) this.subscribe("reconnecting");
      else {
        this.dropSubscription(false);
        this.handlers?.state("reconnecting");
      }
    });
    if (this.conn.ready) this.subscribe("connecting");
    else this.handlers?.state("connecting");
  }

  protected override subscribe(state: ConnectionState): void {
    this.dropSubscription(true);
    const gen = ++this.generation;
    this.handlers?.state(state);
    if (!this.conn.ready) return; // onReady subscribes
    const params = { agentId: this.sessionId, filter: this.filter, dialect: "canonical", ...this.resumePoint() };
    this.request("subscribe", params).then(
      (ack) => {
        const a = ack as { subscriptionId?: string };
        if (gen !== this.generation || typeof a.subscriptionId !== "string") {
          if (typeof a.subscriptionId === "string") void this.request("unsubscribe", { subscriptionId: a.subscriptionId }).catch(() => undefined);
          return;
        }
        this.attempt = 0;
        this.subscription = a.subscriptionId;
        // Frames arriving before this line are impossible: the hub sends
        // the answer first and the stream after it, in order.
        this.offStream = this.conn.stream(a.subscriptionId, (action, payload) => {
          if (gen !== this.generation) return;
          if (action === "stream_end") {
            this.log("the hub ended the stream", payload);
            this.dropSubscription(false);
            this.retryLater();
            return;
          }
          this.deliver(decodeServerFrame(payload));
        });
        this.deliver(decodeServerFrame({ ...(ack as object), type: "subscribe_ack" }));
      },
      (err: unknown) => {
        if (gen !== this.generation) return;
        const code = err instanceof RpcError ? err.code : "";
        if (code === "CURSOR_EXPIRED" || code === "REPLAY_TOO_LARGE") {
          this.deliver({ type: "subscribe_error", code: code.toLowerCase(), message: err instanceof Error ? err.message : "" });
          return;
        }
        if (code === "AGENT_NOT_FOUND" || code === "FORBIDDEN" || code === "UNAUTHORIZED") {
          this.deliver({ type: "subscribe_error", code: code === "AGENT_NOT_FOUND" ? "session_not_found" : code.toLowerCase(), message: err instanceof Error ? err.message : "" });
          return;
        }
        this.log("subscribe failed", err);
        this.retryLater();
      },
    );
  }

  protected override release(): void {
    this.offReady?.();
    this.offReady = null;
    this.dropSubscription(true);
  }

  private dropSubscription(tellHub: boolean): void {
    this.offStream?.();
    this.offStream = null;
    const id = this.subscription;
    this.subscription = null;
    if (id && tellHub && this.conn.ready) void this.request("unsubscribe", { subscriptionId: id }).catch(() => undefined);
  }

  private retryLater(): void {
    const delay = Math.min(this.backoff.maxMs, this.backoff.initialMs * 2 ** this.attempt) * (0.5 + Math.random() / 2);
    this.attempt++;
    this.retryAfter(delay);
  }
}

/** The pairing link's fragment (#hub=ID&token=T), or null. */
export function pairingFromHash(hash: string): { hubId: string; token: string } | null {
  const q = new URLSearchParams(hash.replace(/^#/, ""));
  const hubId = q.get("hub");
  const token = q.get("token");
  return hubId && token ? { hubId, token } : null;
}
