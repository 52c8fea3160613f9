// RPC over the two backends: seed 003 request frames sent to POST /rpc on the
// dashboard (cookie-authenticated) or to the bound Bridge.Request in the
// Wails window. Both answer with one response frame.

import { decodeServerFrame } from "../protocol";
import { RpcError } from "../transport/types";

/** Sends one request frame (JSON text) and resolves with the raw response frame. */
export type FrameSender = (frameJSON: string) => Promise<unknown>;

/** A session-independent RPC client. */
export interface RpcClient {
  /** Calls method; resolves with the payload, rejects with RpcError (server code or TRANSPORT). */
  call<T = unknown>(method: string, params?: unknown): Promise<T>;
}

/** Creates an RpcClient over a frame sender. Request ids are unique per client. */
export function createRpcClient(send: FrameSender): RpcClient {
  let next = 0;
  return {
    async call<T>(method: string, params?: unknown): Promise<T> {
      const requestId = `app-${++next}`;
      const frame = JSON.stringify({ type: "request", requestId, method, ...(params === undefined ? {} : { params }) });
      let raw: unknown;
      try {
        raw = await send(frame);
      } catch (err) {
        throw new RpcError("TRANSPORT", `${method}: ${err instanceof Error ? err.message : String(err)}`);
      }
      const f = decodeServerFrame(raw);
      if (f.type !== "response") throw new RpcError("RPC_ERROR", `${method}: the answer is not a response frame`);
      if (f.requestId !== requestId) throw new RpcError("RPC_ERROR", `${method}: response to ${f.requestId}, expected ${requestId}`);
      if (!f.ok) throw new RpcError(f.error.code, f.error.message);
      return f.payload as T;
    },
  };
}

/** Frame sender for the dashboard: POST base/rpc with the session cookie (and a bearer token if given). */
export function httpFrameSender(fetchFn: typeof fetch, base = "", token: string | null = null): FrameSender {
  return async (frame) => {
    const headers: Record<string, string> = { "Content-Type": "application/json", Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    const res = await fetchFn(`${base}/rpc`, { method: "POST", body: frame, headers, credentials: "same-origin" });
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

/** Frame sender for the Wails window: Bridge.Request. */
export function bridgeFrameSender(bridge: RequestBridge): FrameSender {
  return (frame) => bridge.Request(frame);
}
