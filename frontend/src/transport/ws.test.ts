import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createAppStore } from "../state/store";
import { recordingHandlers } from "./fakes";
import type { TransportHandlers } from "./types";
import { WsTransport, type WebSocketLike } from "./ws";

/** Network-edge fake: records sent frames, lets the test deliver frames and closes. */
class FakeSocket implements WebSocketLike {
  static all: FakeSocket[] = [];
  readyState = 0;
  sent: Record<string, unknown>[] = [];
  closedWith: number | null = null;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.all.push(this);
  }
  send(data: string): void {
    this.sent.push(JSON.parse(data) as Record<string, unknown>);
  }
  close(code = 1000): void {
    this.closedWith = code;
    this.readyState = 3;
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  deliver(frame: unknown): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
  drop(code: number, reason = ""): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }
}

const SID = "01JZ4M2B6C8D0E2F4G6H8J0K2M";
const ev = (id: string) => ({
  type: "event",
  event: { id, type: "route.decided", session_id: SID, turn_id: null, ts: "2026-05-08T14:30:00.000Z", actor: "agent", payload: { model: "m", reason: "r", policy: "p", policy_version: "v" } },
});
const ack = (since: string | null, snapshot: boolean) => ({ type: "subscribe_ack", resolved_filter: { event_types: null, actors: null, include_worker_sessions: false }, since, snapshot, replay_event_count: 0 });

function setup(status = 200, cursor: string | null = null) {
  const attaches: { url: string; auth: string | undefined }[] = [];
  let n = 0;
  const fetchFake = vi.fn(async (url: string | URL | Request, init?: RequestInit) => {
    attaches.push({ url: String(url), auth: (init?.headers as Record<string, string>).Authorization });
    n++;
    return new Response(JSON.stringify({ session_id: SID, active_model: "m", attach_token: `atk_${n}`, ws_url: `ws://127.0.0.1:8421/sessions/${SID}/stream?attach=atk_${n}` }), { status });
  });
  const t = new WsTransport({
    baseUrl: "http://127.0.0.1:8421",
    token: "tok123",
    fetch: fetchFake as unknown as typeof fetch,
    WebSocket: FakeSocket,
    backoff: { initialMs: 100, maxMs: 1000 },
    random: () => 0,
    log: () => {},
  });
  return { t, attaches, ...recordingHandlers(cursor) };
}

const last = () => FakeSocket.all[FakeSocket.all.length - 1]!;

beforeEach(() => {
  FakeSocket.all = [];
  vi.useFakeTimers();
});
afterEach(() => vi.useRealTimers());

describe("WsTransport", () => {
  it("attaches with the bearer token, subscribes with a snapshot, answers pings", async () => {
    const { t, attaches, frames, states, handlers } = setup();
    t.connect(SID, handlers);
    await vi.advanceTimersByTimeAsync(0);
    expect(attaches).toEqual([{ url: `http://127.0.0.1:8421/sessions/${SID}`, auth: "Bearer tok123" }]);
    const ws = last();
    expect(ws.url).toContain("attach=atk_1");
    ws.open();
    expect(ws.sent[0]).toEqual({ type: "subscribe", filter: "preset:chat", since: null, snapshot: true });
    ws.deliver(ack(null, true));
    ws.deliver({ type: "ping", nonce: "n1" });
    expect(ws.sent[1]).toEqual({ type: "pong", nonce: "n1" });
    ws.deliver("garbage{");
    ws.deliver(ev("01JZ4MA0000000000000000001"));
    expect(frames.map((f) => f.type)).toEqual(["subscribe_ack", "event"]);
    expect(states).toEqual(["connecting"]);
    t.close();
    expect(states[states.length - 1]).toBe("disconnected");
  });

  it("reconnects with backoff after a drop (incl. 1008 client_too_slow) and resumes from the cursor", async () => {
    const { t, attaches, states, handlers } = setup(200, "01JZ4MA0000000000000000000");
    t.connect(SID, handlers);
    await vi.advanceTimersByTimeAsync(0);
    last().open();
    expect(last().sent[0]).toMatchObject({ since: "01JZ4MA0000000000000000000", snapshot: false });
    last().deliver(ack("01JZ4MA0000000000000000000", false));
    last().deliver(ev("01JZ4MA0000000000000000002"));
    last().drop(1008, '{"code":"client_too_slow"}');
    expect(states).toEqual(["connecting", "connected", "reconnecting"]);
    await vi.advanceTimersByTimeAsync(49);
    expect(attaches).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(attaches).toHaveLength(2);
    last().open();
    expect(last().sent[0]).toMatchObject({ since: "01JZ4MA0000000000000000002", snapshot: false });
    // a second drop before any ack doubles the delay
    last().drop(1006);
    await vi.advanceTimersByTimeAsync(99);
    expect(attaches).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(attaches).toHaveLength(3);
    t.close();
  });

  it("resynchronises with a snapshot on cursor_expired / replay_too_large", async () => {
    for (const code of ["cursor_expired", "replay_too_large"]) {
      const { t, states, frames, handlers } = setup(200, "01JZ4MA0000000000000000005");
      t.connect(SID, handlers);
      await vi.advanceTimersByTimeAsync(0);
      const first = last();
      first.open();
      first.deliver({ type: "subscribe_error", code, message: "reconnect with snapshot: true" });
      expect(first.closedWith).toBe(1000);
      await vi.advanceTimersByTimeAsync(0);
      const second = last();
      expect(second).not.toBe(first);
      second.open();
      expect(second.sent[0]).toMatchObject({ since: null, snapshot: true });
      expect(states).toContain("resynchronising");
      expect(frames).toHaveLength(0);
      t.close();
    }
  });

  it("stops on a fatal attach error", async () => {
    const { t, states, frames, handlers } = setup(404);
    t.connect(SID, handlers);
    await vi.advanceTimersByTimeAsync(0);
    expect(FakeSocket.all).toHaveLength(0);
    expect(states).toEqual(["connecting", "disconnected"]);
    expect(frames[0]).toMatchObject({ type: "error", code: "attach_failed" });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(FakeSocket.all).toHaveLength(0);
  });

  it("one cursor: a reconnect resumes from the store's lastEventId and the replay adds no duplicate", async () => {
    const store = createAppStore();
    const { t } = setup();
    const { dispatch } = store.getState();
    const handlers: TransportHandlers = {
      frame: (frame) => dispatch({ type: "frame", sessionId: SID, frame }),
      state: (state) => dispatch({ type: "connection", sessionId: SID, state }),
      cursor: () => store.getState().chat[SID]?.lastEventId ?? null,
    };
    t.connect(SID, handlers);
    await vi.advanceTimersByTimeAsync(0);
    last().open();
    last().deliver(ack(null, true));
    last().deliver({
      type: "snapshot",
      session: { session_id: SID, title: "", workspace_path: "/w", active_model: "m", parent_session_id: "", created_at: "2026-05-08T14:00:00Z", turn_count: 0, cost_so_far_usd: 0, usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 }, context_start_offset: 0, depth: 0 },
      messages: [],
      snapshot_at_event_id: "01JZ4MA0000000000000000001",
    });
    last().deliver(ev("01JZ4MA0000000000000000002"));
    expect(store.getState().chat[SID]).toMatchObject({ connection: "connected", lastEventId: "01JZ4MA0000000000000000002" });
    last().drop(1006);
    expect(store.getState().chat[SID]!.connection).toBe("reconnecting");
    await vi.advanceTimersByTimeAsync(50);
    last().open();
    expect(last().sent[0]).toMatchObject({ since: "01JZ4MA0000000000000000002" });
    last().deliver(ack("01JZ4MA0000000000000000002", false));
    last().deliver(ev("01JZ4MA0000000000000000002"));
    last().deliver(ev("01JZ4MA0000000000000000003"));
    expect(store.getState().chat[SID]).toMatchObject({ connection: "connected", lastEventId: "01JZ4MA0000000000000000003" });
    t.close();
    expect(store.getState().chat[SID]!.connection).toBe("disconnected");
  });
});
