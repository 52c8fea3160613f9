import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { recordingHandlers } from "./fakes";
import type { TransportHandlers } from "./types";
import { WAILS_EVENT, WailsTransport, type WailsBatch, type WailsBridgeLike, type WailsRuntimeLike } from "./wails";

// The fakes stand in for the Wails runtime edge: EventsOn/its off function
// and the bound Go methods (their real counterparts are tested in Go).

class FakeRuntime implements WailsRuntimeLike {
  listeners = new Map<string, Set<(...d: unknown[]) => void>>();
  offCalls = 0;
  EventsOn(name: string, cb: (...d: unknown[]) => void): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(cb);
    return () => {
      this.offCalls++;
      set.delete(cb);
    };
  }
  emit(batch: WailsBatch | string): void {
    for (const cb of this.listeners.get(WAILS_EVENT) ?? []) cb(batch);
  }
  count(): number {
    return this.listeners.get(WAILS_EVENT)?.size ?? 0;
  }
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
}
function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

class FakeBridge implements WailsBridgeLike {
  hellos: string[] = [];
  subscribes: { sessionId: string; filter: string; since: string | null; snapshot: boolean; dialect: string; result: Deferred<unknown> }[] = [];
  unsubscribed: string[] = [];
  Hello(pageId: string): Promise<void> {
    this.hellos.push(pageId);
    return Promise.resolve();
  }
  Subscribe(sessionId: string, filter: string, since: string | null, snapshot: boolean, dialect: string): Promise<unknown> {
    const result = deferred<unknown>();
    this.subscribes.push({ sessionId, filter, since, snapshot, dialect, result });
    return result.promise;
  }
  Unsubscribe(id: string): Promise<void> {
    this.unsubscribed.push(id);
    return Promise.resolve();
  }
}

const ack = (id: string, since: string | null = null) => ({
  type: "subscribe_ack",
  resolved_filter: { event_types: ["text.delta"], actors: null, include_worker_sessions: false },
  since,
  snapshot: since === null,
  replay_event_count: 0,
  subscription_id: id,
});

const ev = (id: string, text = "x") => ({
  type: "event",
  event: { id, type: "text.delta", session_id: "s1", turn_id: "t1", ts: "2026-01-01T00:00:00.000Z", actor: "agent", payload: { message_id: "m1", content_block_index: 0, text } },
});

const batch = (sub: string, frames: unknown[], extra: Partial<WailsBatch> = {}): WailsBatch => ({
  subscription_id: sub,
  first_event_id: null,
  last_event_id: null,
  frames,
  ...extra,
});

const flush = () => new Promise<void>((r) => setTimeout(r, 0));

describe("WailsTransport", () => {
  let rt: FakeRuntime;
  let br: FakeBridge;
  let rec: ReturnType<typeof recordingHandlers>;
  let frames: ReturnType<typeof recordingHandlers>["frames"];
  let states: ReturnType<typeof recordingHandlers>["states"];
  let handlers: TransportHandlers;
  /** Handlers whose cursor starts at cursor. */
  const from = (cursor: string | null) => {
    rec = recordingHandlers(cursor);
    ({ frames, states, handlers } = rec);
    return handlers;
  };
  const make = (pageId = "page-1") => new WailsTransport({ runtime: rt, bridge: br, pageId, resubscribeDelayMs: 1, log: () => undefined });
  /** A transport of pageId connected to s1, its subscription acknowledged as w1. */
  const subscribed = async (pageId: string) => {
    const t = make(pageId);
    t.connect("s1", handlers);
    await flush();
    br.subscribes[0]!.result.resolve(ack("w1"));
    await flush();
    return t;
  };

  beforeEach(() => {
    rt = new FakeRuntime();
    br = new FakeBridge();
    from(null);
  });
  afterEach(() => vi.useRealTimers());

  it("says Hello once per page, subscribes with a snapshot and delivers batches in order", async () => {
    const t = make("page-A");
    t.connect("s1", handlers);
    await flush();
    expect(br.hellos).toEqual(["page-A"]);
    expect(br.subscribes[0]).toMatchObject({ sessionId: "s1", filter: "preset:chat", since: null, snapshot: true });
    br.subscribes[0]!.result.resolve(ack("w1"));
    await flush();
    rt.emit(batch("w1", [ev("01A"), ev("01B")], { first_event_id: "01A", last_event_id: "01B" }));
    rt.emit(JSON.stringify(batch("w1", [ev("01C")])));
    rt.emit(batch("other", [ev("01Z")]));
    expect(frames.map((f) => (f.type === "event" ? f.event.id : f.type))).toEqual(["subscribe_ack", "01A", "01B", "01C"]);
    expect(rec.cursor()).toBe("01C");
    // A second transport on the same page does not say Hello again (it would drop the first one's subscriptions).
    make("page-A").connect("s2", recordingHandlers().handlers);
    await flush();
    expect(br.hellos).toEqual(["page-A"]);
  });

  it("buffers batches that arrive before Subscribe resolves", async () => {
    const t = make("page-B");
    t.connect("s1", from("01A"));
    await flush();
    expect(br.subscribes[0]).toMatchObject({ since: "01A", snapshot: false });
    rt.emit(batch("w7", [ev("01B")]));
    rt.emit(batch("w-stale", [ev("01X")]));
    br.subscribes[0]!.result.resolve(ack("w7", "01A"));
    await flush();
    expect(frames.map((f) => (f.type === "event" ? f.event.id : f.type))).toEqual(["subscribe_ack", "01B"]);
    expect(states).toEqual(["connecting", "connected"]);
  });

  it("reassembles chunked frames", async () => {
    await subscribed("page-C");
    const text = JSON.stringify(ev("01Q", "<b>big</b> ".repeat(100)));
    const parts = [text.slice(0, 100), text.slice(100, 500), text.slice(500)];
    parts.forEach((data, index) => rt.emit(batch("w1", [], { chunk: { index, count: parts.length, data } })));
    const last = frames[frames.length - 1];
    expect(last?.type === "event" && last.event.id).toBe("01Q");
    expect(rec.cursor()).toBe("01Q");
  });

  it("resubscribes from its cursor when the server closes the subscription", async () => {
    await subscribed("page-D");
    rt.emit(batch("w1", [ev("01A")]));
    rt.emit(batch("w1", [{ type: "error", code: "client_too_slow", message: "queue overflow" }], { closed: true }));
    expect(frames.some((f) => f.type === "error" && f.code === "client_too_slow")).toBe(true);
    await new Promise((r) => setTimeout(r, 5));
    expect(br.subscribes[1]).toMatchObject({ since: "01A", snapshot: false });
    expect(states).toContain("reconnecting");
    // Late batches of the closed subscription are ignored.
    rt.emit(batch("w1", [ev("01B")]));
    br.subscribes[1]!.result.resolve(ack("w2", "01A"));
    await flush();
    rt.emit(batch("w2", [ev("01B")]));
    expect(frames.filter((f) => f.type === "event").map((f) => (f.type === "event" ? f.event.id : ""))).toEqual(["01A", "01B"]);
  });

  it("resynchronises with a snapshot on cursor_expired and stops on session_not_found", async () => {
    const t = make("page-E");
    t.connect("s1", from("01OLD"));
    await flush();
    br.subscribes[0]!.result.resolve({ type: "subscribe_error", code: "cursor_expired", message: "pruned" });
    await flush();
    expect(br.subscribes[1]).toMatchObject({ since: null, snapshot: true });
    expect(states).toContain("resynchronising");
    br.subscribes[1]!.result.resolve({ type: "subscribe_error", code: "session_not_found", message: "gone" });
    await flush();
    expect(frames.at(-1)).toMatchObject({ type: "subscribe_error", code: "session_not_found" });
    expect(states.at(-1)).toBe("disconnected");
    expect(rt.count()).toBe(0);
  });

  it("close unsubscribes, removes its listener and reports disconnected", async () => {
    const t = await subscribed("page-F");
    t.close();
    expect(br.unsubscribed).toEqual(["w1"]);
    expect(rt.offCalls).toBe(1);
    expect(rt.count()).toBe(0);
    expect(states.at(-1)).toBe("disconnected");
    rt.emit(batch("w1", [ev("01A")]));
    expect(frames.filter((f) => f.type === "event")).toHaveLength(0);
  });
});
