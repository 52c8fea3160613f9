import { afterEach, describe, expect, it, vi } from "vitest";
import { PendingRequests } from "./pending";
import { RpcError } from "./types";

describe("PendingRequests", () => {
  afterEach(() => vi.useRealTimers());

  it("settles by requestId with the payload or the server's error", async () => {
    const sent: string[] = [];
    const p = new PendingRequests(() => {});
    const a = p.start<number>("listSessions", 1000, (id) => (sent.push(id), true));
    const b = p.start<number>("getSession", 1000, (id) => (sent.push(id), true));
    expect(new Set(sent).size).toBe(2);
    p.settle({ type: "response", requestId: sent[1]!, ok: false, error: { code: "AGENT_NOT_FOUND", message: "no such session" } });
    p.settle({ type: "response", requestId: sent[0]!, ok: true, payload: 42 });
    await expect(a).resolves.toBe(42);
    await expect(b).rejects.toMatchObject({ code: "AGENT_NOT_FOUND" });
    expect(p.size).toBe(0);
  });

  it("rejects NOT_CONNECTED at once when the frame cannot be sent", async () => {
    const p = new PendingRequests(() => {});
    await expect(p.start("listSessions", 1000, () => false)).rejects.toMatchObject({ code: "NOT_CONNECTED" });
    expect(p.size).toBe(0);
  });

  it("times out, and rejects everything pending on disconnect", async () => {
    vi.useFakeTimers();
    const p = new PendingRequests(() => {});
    const slow = p.start("compactSession", 10_000, () => true);
    const other = p.start("listModels", 60_000, () => true);
    vi.advanceTimersByTime(10_000);
    await expect(slow).rejects.toMatchObject({ code: "TIMEOUT" });
    p.rejectAll("DISCONNECTED", "connection closed");
    await expect(other).rejects.toBeInstanceOf(RpcError);
    await expect(other).rejects.toMatchObject({ code: "DISCONNECTED" });
    expect(p.size).toBe(0);
  });

  it("logs and ignores a response nobody waits for", () => {
    const log = vi.fn();
    new PendingRequests(log).settle({ type: "response", requestId: "req-9", ok: true, payload: null });
    expect(log).toHaveBeenCalledWith("response to an unknown request", "req-9");
  });
});
