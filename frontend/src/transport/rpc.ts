// The RPC client (seed 003) of both backends, on PendingRequests: request
// frames go to POST /rpc on the dashboard (with the bearer token) or to the
// bound Bridge.Request in the Wails window; each answers with one response
// frame. Every call has a timeout; when the hub cannot be reached, every
// call still waiting is rejected at once with DISCONNECTED.

import { decodeServerFrame } from "../protocol";
import { PendingRequests } from "./pending";
import { DEFAULT_REQUEST_TIMEOUT_MS, RpcError } from "./types";

/**
 * Carries one request frame (JSON text) to the hub and resolves with the raw
 * response frame. It rejects with an RpcError whose code is DISCONNECTED when
 * the hub cannot be reached at all (then every pending call fails with it),
 * or with any other error when only this call failed (TRANSPORT).
 */
export type RpcChannel = (frameJSON: string, signal: AbortSignal) => Promise<unknown>;

/** Options of RpcClient. */
export interface RpcClientOptions {
  /** Default per-call timeout (seed 003: 10 s). */
  timeoutMs?: number;
  /** Diagnostics (default console.debug). */
  log?: (msg: string, detail?: unknown) => void;
}

/** A session-independent RPC client. */
export class RpcClient {
  private readonly pending: PendingRequests;
  private readonly timeoutMs: number;

  constructor(
    private readonly channel: RpcChannel,
    opts: RpcClientOptions = {},
  ) {
    const log = opts.log ?? ((msg: string, detail?: unknown) => console.debug(`[rpc] ${msg}`, detail ?? ""));
    this.pending = new PendingRequests(log);
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /**
   * Calls method. Resolves with the response payload; rejects with an
   * RpcError: the server's code, TIMEOUT after timeoutMs, DISCONNECTED when
   * the hub cannot be reached, TRANSPORT when this request failed on its way,
   * RPC_ERROR when the answer is not this call's response frame.
   */
  call<T = unknown>(method: string, params?: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    return this.pending.start<T>(method, timeoutMs, (requestId, signal) => {
      const frame = JSON.stringify({ type: "request", requestId, method, ...(params === undefined ? {} : { params }) });
      this.channel(frame, signal).then(
        (raw) => this.answer(method, requestId, raw),
        (err: unknown) => this.failed(method, requestId, err),
      );
      return true;
    });
  }

  /** The hub is gone: every call still waiting rejects with DISCONNECTED and why. Later calls are tried again. */
  disconnected(why: string): void {
    this.pending.rejectAll("DISCONNECTED", why);
  }

  /** Calls awaiting an answer. */
  get pendingCount(): number {
    return this.pending.size;
  }

  private answer(method: string, requestId: string, raw: unknown): void {
    const f = decodeServerFrame(raw);
    if (f.type !== "response") this.pending.fail(requestId, new RpcError("RPC_ERROR", `${method}: the answer is not a response frame`));
    else if (f.requestId !== requestId) this.pending.fail(requestId, new RpcError("RPC_ERROR", `${method}: response to ${f.requestId}, expected ${requestId}`));
    else this.pending.settle(f);
  }

  private failed(method: string, requestId: string, err: unknown): void {
    if (!this.pending.has(requestId)) return; // ended already (timeout, disconnect): its channel was aborted
    if (err instanceof RpcError && err.code === "DISCONNECTED") {
      this.disconnected(err.reason);
      return;
    }
    if (err instanceof RpcError) this.pending.fail(requestId, err);
    else this.pending.fail(requestId, new RpcError("TRANSPORT", `${method}: ${err instanceof Error ? err.message : String(err)}`));
  }
}

/**
 * The dashboard's channel: POST base/rpc with the bearer token (none:
 * the hub answers 401). A request that never reaches the hub (the
 * connection is refused or dropped) means the hub is unreachable.
 */
export function httpChannel(fetchFn: typeof fetch, base = "", token: string | null = null): RpcChannel {
  return async (frame, signal) => {
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    let res: Response;
    try {
      res = await fetchFn(`${base}/rpc`, { method: "POST", body: frame, headers, credentials: "omit", signal });
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      throw new RpcError("DISCONNECTED", `the hub is unreachable (POST /rpc: ${err instanceof Error ? err.message : String(err)})`);
    }
    if (!res.ok) {
      let detail = "";
      try {
        const body = (await res.json()) as { error?: { message?: string } };
        detail = body.error?.message ?? "";
      } catch {
        // non-JSON error body: the status is enough
      }
      throw new Error(`POST /rpc: HTTP ${res.status}${detail ? ` ${detail}` : ""}`);
    }
    return res.json();
  };
}

/** The bound Bridge method used for RPC in the Wails window. */
export interface RequestBridge {
  Request(frame: string): Promise<unknown>;
}

/** The Wails window's channel: Bridge.Request, or NOT_CONNECTED while the bridge is not bound (why says so). */
export function bridgeChannel(bridge: () => RequestBridge | undefined, why: string): RpcChannel {
  return (frame) => {
    const b = bridge();
    return b ? b.Request(frame) : Promise.reject(new RpcError("NOT_CONNECTED", why));
  };
}
