// The seed 003 request side shared by both transports: request ids, the
// per-call timeout, settling by `requestId`, and rejecting every call still
// pending when the connection goes away.

import type { ResponseFrame } from "../protocol";
import { RpcError } from "./types";

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

/** The RPC calls a transport has sent and not yet seen answered. */
export class PendingRequests {
  private next = 0;
  private readonly calls = new Map<string, Pending>();

  /**
   * @param prefix makes ids distinct per transport ("req", "wreq").
   * @param log receives responses that match no pending call.
   */
  constructor(
    private readonly prefix: string,
    private readonly log: (msg: string, detail?: unknown) => void,
  ) {}

  /**
   * Registers a call under a fresh request id, then asks `send` to transmit
   * its request frame. The promise resolves with the response payload,
   * rejects with the server's error, with TIMEOUT after timeoutMs, or with
   * NOT_CONNECTED at once when `send` returns false.
   */
  start<T>(method: string, timeoutMs: number, send: (requestId: string) => boolean): Promise<T> {
    const requestId = `${this.prefix}-${++this.next}`;
    const p = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.calls.delete(requestId);
        reject(new RpcError("TIMEOUT", `${method}: no response within ${timeoutMs} ms`));
      }, timeoutMs);
      this.calls.set(requestId, { resolve: (v) => resolve(v as T), reject, timer });
    });
    if (!send(requestId)) this.fail(requestId, new RpcError("NOT_CONNECTED", `${method}: not connected`));
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

  /** Rejects every pending call with code (e.g. DISCONNECTED) and why. */
  rejectAll(code: string, why: string): void {
    for (const id of [...this.calls.keys()]) this.fail(id, new RpcError(code, why));
  }

  /** The number of calls awaiting an answer. */
  get size(): number {
    return this.calls.size;
  }

  private fail(requestId: string, err: RpcError): void {
    const p = this.calls.get(requestId);
    if (!p) return;
    this.calls.delete(requestId);
    clearTimeout(p.timer);
    p.reject(err);
  }
}
