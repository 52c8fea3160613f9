import { describe, expect, it } from "vitest";
import type { ServerFrame } from "../protocol";
import { GatewayConnection, GatewayTransport, pairingFromHash, type RoutedMessage, type SocketLike } from "./gateway";
import { RpcClient } from "./rpc";
import type { ConnectionState } from "./types";

/** A fake gateway socket whose hub answers as scripted. */
class FakeSocket implements SocketLike {
  connected = true;
  readonly sent: RoutedMessage[] = [];
  private readonly handlers = new Map<string, (...args: unknown[]) => void>();
  on(event: string, fn: (...args: unknown[]) => void): unknown {
    this.handlers.set(event, fn);
    return this;
  }
  emit(event: string, ...args: unknown[]): unknown {
    if (event === "send") this.sent.push(args[0] as RoutedMessage);
    if (event === "list-devices") (args[1] as (r: unknown) => void)({ devices: [{ deviceId: "hub-1", deviceType: "hub" }] });
    return this;
  }
  disconnect(): unknown {
    this.connected = false;
    return this;
  }
  connect(): unknown {
    this.connected = true;
    return this;
  }
  fire(event: string, ...args: unknown[]): void {
    this.handlers.get(event)?.(...args);
  }
  /** The hub's message to the page. */
  hub(action: string, payload: unknown): void {
    this.fire("receive", { id: "m", uid: null, from: "hub-1", to: "browser-1", action, payload });
  }
  /** Answers the last request for method with ok and payload. */
  answer(method: string, payload: unknown, ok = true): void {
    const req = [...this.sent].reverse().find((m) => (m.payload as { method: string }).method === method);
    if (!req) throw new Error(`no ${method} request`);
    const requestId = (req.payload as { requestId: string }).requestId;
    this.hub("response", ok ? { requestId, ok, payload } : { requestId, ok, error: payload });
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function setup() {
  const sock = new FakeSocket();
  const conn = new GatewayConnection({ url: "", deviceId: "browser-1", hubId: "hub-1", token: "ahp_t", socket: () => sock, log: () => {} });
  conn.start();
  const rpc = new RpcClient(conn.channel(), { log: () => {} });
  return { sock, conn, rpc };
}

describe("GatewayConnection", () => {
  it("verifies with its token after registering, then carries RPC as seed 003 requests", async () => {
    const { sock, conn, rpc } = setup();
    sock.fire("registered", { success: true, deviceId: "browser-1" });
    const verify = sock.sent[0]!;
    expect(verify).toMatchObject({ from: "browser-1", to: "hub-1", action: "request", uid: null });
    expect(verify.payload).toMatchObject({ method: "verify", params: { token: "ahp_t" } });
    sock.answer("verify", { hubId: "hub-1", isNewDevice: true });
    await tick();
    expect(conn.ready).toBe(true);
    const sessions = rpc.call("listSessions");
    sock.answer("listSessions", { sessions: [] });
    await expect(sessions).resolves.toEqual({ sessions: [] });
    const bad = rpc.call("submitTurn", { agentId: "s" });
    sock.answer("submitTurn", { code: "FORBIDDEN", message: "submitTurn is not allowed to a read-only device" }, false);
    await expect(bad).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("fails a request the gateway cannot deliver at once", async () => {
    const { sock, conn, rpc } = setup();
    sock.fire("registered", { success: true, deviceId: "browser-1" });
    sock.answer("verify", { hubId: "hub-1" });
    await tick();
    expect(conn.ready).toBe(true);
    const call = rpc.call("listSessions");
    const msg = sock.sent[sock.sent.length - 1]!;
    sock.fire("send_error", { messageId: msg.id, code: "DEVICE_NOT_FOUND", error: "Device hub-1 not found" });
    await expect(call).rejects.toMatchObject({ code: "DISCONNECTED" });
  });

  it("reads the pairing link's fragment", () => {
    expect(pairingFromHash("#hub=h1&token=ahp_x")).toEqual({ hubId: "h1", token: "ahp_x" });
    expect(pairingFromHash("#/s/abc")).toBeNull();
  });
});

describe("GatewayTransport", () => {
  it("subscribes from the cursor, delivers the stream and resumes after hub_online", async () => {
    const { sock, conn, rpc } = setup();
    sock.fire("registered", { success: true, deviceId: "browser-1" });
    sock.answer("verify", { hubId: "hub-1" });
    await tick();
    const frames: ServerFrame[] = [];
    const states: ConnectionState[] = [];
    let cursor: string | null = "01J000000000000000000000A1";
    const tr = new GatewayTransport(conn, (m, p) => rpc.call(m, p), { filter: "preset:full", log: () => {} });
    tr.connect("s1", { frame: (f) => frames.push(f), state: (s) => states.push(s), cursor: () => cursor });
    const sub = sock.sent[sock.sent.length - 1]!;
    expect(sub.payload).toMatchObject({ method: "subscribe", params: { agentId: "s1", since: "01J000000000000000000000A1", snapshot: false, dialect: "canonical" } });
    sock.answer("subscribe", { type: "subscribe_ack", subscriptionId: "gsub-1", since: cursor, snapshot: false, replay_event_count: 0 });
    await tick();
    const ev = { id: "01J000000000000000000000A2", type: "text.delta", session_id: "s1", turn_id: "t", ts: "2026-01-01T00:00:00.000Z", actor: "agent", payload: { message_id: "m", content_block_index: 0, text: "hi" } };
    sock.hub("stream", { subscriptionId: "gsub-1", type: "event", event: ev });
    sock.hub("stream", { subscriptionId: "gsub-other", type: "event", event: { ...ev, id: "x" } });
    expect(frames.map((f) => f.type)).toEqual(["subscribe_ack", "event"]);
    expect(states).toContain("connected");
    cursor = ev.id;
    // The hub restarted: it says so; the page verifies again and resubscribes from its cursor.
    sock.hub("hub_online", { hubId: "hub-1" });
    sock.answer("verify", { hubId: "hub-1" });
    await tick();
    const again = sock.sent[sock.sent.length - 1]!;
    expect(again.payload).toMatchObject({ method: "subscribe", params: { since: ev.id } });
    tr.close();
  });
});
