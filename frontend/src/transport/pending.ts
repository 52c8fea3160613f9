// The request side of seed 003: request ids, the per-call timeout, settling
// by `requestId`, and rejecting every call still pending when the
// connection goes away. RpcClient (rpc.ts) is its one user.

import type { ResponseFrame } from "../protocol";
import { RpcError } from "./types";
import { uuidv7 } from "./uuidv7";

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
  /** Aborted when the call ends without an answer (timeout, disconnect): the channel may stop sending it. */
  abort: AbortController;
}

/** The RPC calls sent and not yet answered. */
export class PendingRequests {
  private readonly calls = new Map<string, Pending>();

  /** @param log receives responses that match no pending call. */
  constructor(private readonly log: (msg: string, detail?: unknown) => void) {}

  /**
   * Registers a call under a fresh request id (a UUIDv7, as seed 003), then asks `send` to transmit
   * its request frame. The promise resolves with the response payload,
   * rejects with the server's error, with TIMEOUT after timeoutMs, or with
   * NOT_CONNECTED at once when `send` returns false. `signal` is aborted when
   * the call ends without an answer.
   */
  start<T>(method: string, timeoutMs: number, send: (requestId: string, signal: AbortSignal) => boolean): Promise<T> {
    const requestId = uuidv7();
    const abort = new AbortController();
    const p = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.fail(requestId, new RpcError("TIMEOUT", `${method}: no response within ${timeoutMs} ms`)), timeoutMs);
      this.calls.set(requestId, { resolve: (v) => resolve(v as T), reject, timer, abort });
    });
    if (!send(requestId, abort.signal)) this.fail(requestId, new RpcError("NOT_CONNECTED", `${method}: not connected`));
    return p;
  }

  /** Settles the call a response frame answers; unknown ids are logged and ignored. */
  settle(f: ResponseFrame): void {
    const p = this.calls.get(f.requestId);
    if (!p) {
      this.log("response to an unknown request", f.requestId);
      return;
    }
    this.calls.delete(f.requestId);
    clearTimeout(p.timer);
    if (f.ok) p.resolve(f.payload);
    else p.reject(new RpcError(f.error.code, f.error.message));
  }

  /** Rejects one pending call with err (nothing if it has settled already). */
  fail(requestId: string, err: RpcError): void {
    const p = this.calls.get(requestId);
    if (!p) return;
    this.calls.delete(requestId);
    clearTimeout(p.timer);
    p.abort.abort(err);
    p.reject(err);
  }

  /** Rejects every pending call with code (e.g. DISCONNECTED) and why. */
  rejectAll(code: string, why: string): void {
    for (const id of [...this.calls.keys()]) this.fail(id, new RpcError(code, why));
  }

  /** Whether the call with this id still awaits an answer. */
  has(requestId: string): boolean {
    return this.calls.has(requestId);
  }

  /** The number of calls awaiting an answer. */
  get size(): number {
    return this.calls.size;
  }
}
