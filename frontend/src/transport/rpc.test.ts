import { afterEach, describe, expect, it, vi } from "vitest";
import { RpcClient, bridgeChannel, httpChannel, type RpcChannel } from "./rpc";
import { RpcError } from "./types";

interface Sent {
  frame: { requestId: string; method: string; params?: unknown };
  signal: AbortSignal;
  answer(raw: unknown): void;
  fail(err: unknown): void;
}

/** A channel whose answers the test gives, in any order. */
function heldChannel() {
  const sent: Sent[] = [];
  const channel: RpcChannel = (json, signal) =>
    new Promise((answer, fail) => sent.push({ frame: JSON.parse(json) as Sent["frame"], signal, answer, fail }));
  return { sent, channel };
}

const ok = (s: Sent, payload: unknown) => s.answer({ type: "response", requestId: s.frame.requestId, ok: true, payload });

afterEach(() => vi.useRealTimers());

describe("RpcClient", () => {
  it("returns payloads, raises server errors and rejects mismatched responses", async () => {
    const sent: unknown[] = [];
    let mode: "ok" | "err" | "bad" = "ok";
    const rpc = new RpcClient((frame) => {
      const f = JSON.parse(frame) as { requestId: string; method: string; params?: unknown };
      sent.push(f);
      if (mode === "ok") return Promise.resolve({ type: "response", requestId: f.requestId, ok: true, payload: { sessions: [] } });
      if (mode === "err") return Promise.resolve({ type: "response", requestId: f.requestId, ok: false, error: { code: "AGENT_NOT_FOUND", message: "no such session" } });
      return Promise.resolve({ type: "response", requestId: "other", ok: true, payload: 1 });
    });
    await expect(rpc.call("listSessions")).resolves.toEqual({ sessions: [] });
    expect(sent[0]).toMatchObject({ type: "request", method: "listSessions" });
    mode = "err";
    await expect(rpc.call("getSession", { agentId: "x" })).rejects.toMatchObject({ code: "AGENT_NOT_FOUND" });
    mode = "bad";
    await expect(rpc.call("x")).rejects.toMatchObject({ code: "RPC_ERROR" });
    expect(rpc.pendingCount).toBe(0);
  });

  it("settles concurrent calls by requestId, whatever the order of the answers", async () => {
    const { sent, channel } = heldChannel();
    const rpc = new RpcClient(channel);
    const a = rpc.call("listSessions");
    const b = rpc.call("listModels", { x: 1 });
    expect(new Set(sent.map((s) => s.frame.requestId)).size).toBe(2);
    expect(sent[1]!.frame.params).toEqual({ x: 1 });
    ok(sent[1]!, "models");
    ok(sent[0]!, "sessions");
    await expect(a).resolves.toBe("sessions");
    await expect(b).resolves.toBe("models");
  });

  it("times out (per call, or the method's own limit) and aborts the request on its way", async () => {
    vi.useFakeTimers();
    const { sent, channel } = heldChannel();
    const rpc = new RpcClient(channel, { timeoutMs: 10_000, log: () => undefined });
    const quick = rpc.call("listSessions");
    const slow = rpc.call("compactSession", { agentId: "s" }, 60_000);
    const quickDone = expect(quick).rejects.toMatchObject({ code: "TIMEOUT", message: "TIMEOUT: listSessions: no response within 10000 ms" });
    await vi.advanceTimersByTimeAsync(10_000);
    await quickDone;
    expect(sent[0]!.signal.aborted).toBe(true);
    expect(sent[1]!.signal.aborted).toBe(false);
    ok(sent[0]!, "late"); // a late answer is ignored
    ok(sent[1]!, { ok: true });
    await expect(slow).resolves.toEqual({ ok: true });
    expect(rpc.pendingCount).toBe(0);
  });

  it("rejects every pending call with DISCONNECTED when the hub is unreachable, and tries later calls again", async () => {
    const { sent, channel } = heldChannel();
    const rpc = new RpcClient(channel);
    const a = rpc.call("listSessions");
    const b = rpc.call("submitTurn", { agentId: "s", content: "hi" });
    const c = rpc.call("listModels");
    sent[0]!.fail(new RpcError("DISCONNECTED", "the hub is unreachable (connection refused)"));
    await expect(a).rejects.toMatchObject({ code: "DISCONNECTED" });
    await expect(b).rejects.toThrow("DISCONNECTED: the hub is unreachable (connection refused)");
    await expect(c).rejects.toBeInstanceOf(RpcError);
    expect(sent.every((s) => s.signal.aborted)).toBe(true);
    expect(rpc.pendingCount).toBe(0);
    const d = rpc.call("listSessions");
    ok(sent[3]!, []);
    await expect(d).resolves.toEqual([]);
  });

  it("disconnected() rejects every pending call with the reason", async () => {
    const { channel } = heldChannel();
    const rpc = new RpcClient(channel);
    const a = rpc.call("exportSession");
    rpc.disconnected("the window is closing");
    await expect(a).rejects.toMatchObject({ code: "DISCONNECTED", message: "DISCONNECTED: the window is closing" });
  });

  it("a failure of one request (not the connection) fails only that call, as TRANSPORT", async () => {
    const { sent, channel } = heldChannel();
    const rpc = new RpcClient(channel);
    const a = rpc.call("listSessions");
    const b = rpc.call("listModels");
    sent[0]!.fail(new Error("POST /rpc: HTTP 500"));
    await expect(a).rejects.toMatchObject({ code: "TRANSPORT", message: "TRANSPORT: listSessions: POST /rpc: HTTP 500" });
    expect(rpc.pendingCount).toBe(1);
    ok(sent[1]!, 1);
    await expect(b).resolves.toBe(1);
  });
});

describe("httpChannel", () => {
  it("posts frames to /rpc and reports HTTP errors with their message", async () => {
    const seen: [string, RequestInit | undefined][] = [];
    const okFetch = httpChannel((url, init) => {
      seen.push([String(url), init]);
      return Promise.resolve(new Response('{"type":"response","requestId":"app-1","ok":true,"payload":{}}', { status: 200 }));
    }, "http://h");
    await okFetch('{"type":"request"}', new AbortController().signal);
    expect(seen[0]![0]).toBe("http://h/rpc");
    expect(seen[0]![1]?.method).toBe("POST");
    const bad = httpChannel(() => Promise.resolve(new Response('{"error":{"code":"x","message":"token required"}}', { status: 401 })));
    await expect(bad("{}", new AbortController().signal)).rejects.toThrow("HTTP 401 token required");
    await expect(new RpcClient(bad).call("listSessions")).rejects.toMatchObject({ code: "TRANSPORT" });
  });

  it("says the hub is unreachable when the request never got an answer", async () => {
    const down = httpChannel(() => Promise.reject(new TypeError("Failed to fetch")));
    await expect(new RpcClient(down).call("listSessions")).rejects.toMatchObject({ code: "DISCONNECTED", message: expect.stringContaining("the hub is unreachable (POST /rpc: Failed to fetch)") });
  });
});

describe("bridgeChannel", () => {
  it("calls Bridge.Request, and fails NOT_CONNECTED while the bridge is not bound", async () => {
    let bound = false;
    const channel = bridgeChannel(
      () => (bound ? { Request: (f: string) => Promise.resolve({ type: "response", requestId: (JSON.parse(f) as { requestId: string }).requestId, ok: true, payload: "pong" }) } : undefined),
      "the hub is not connected to this window",
    );
    const rpc = new RpcClient(channel);
    await expect(rpc.call("listSessions")).rejects.toMatchObject({ code: "NOT_CONNECTED" });
    bound = true;
    await expect(rpc.call("listSessions")).resolves.toBe("pong");
  });
});
