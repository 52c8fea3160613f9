// The reducer feeding the one store: batches of frames go through reduceAll
// (dispatchAll) and must give exactly what reducing them one by one gives,
// in every slice, with one notification per batch.

import { describe, expect, it } from "vitest";
import { decodeServerFrame, type ServerFrame } from "../protocol";
import { chunkText } from "./chunks";
import { initialState, reduce, reduceAll } from "./reducer";
import { sessionRecord } from "./selectors";
import { createAppStore } from "./store";
import { TRACES } from "./traces";
import type { Action, AppState } from "./types";

const frames = (sessionId: string, fs: ServerFrame[]): Action[] => fs.map((frame) => ({ type: "frame", sessionId, frame }));
const oneByOne = (st: AppState, actions: Action[]) => actions.reduce(reduce, st);

/** Splits actions into batches of n (as the per-frame batcher would). */
function batches(actions: Action[], n: number): Action[][] {
  const out: Action[][] = [];
  for (let i = 0; i < actions.length; i += n) out.push(actions.slice(i, i + n));
  return out;
}

const SID = "01JZ9B0000000000000000SESS";
let seq = 0;
function ev(type: string, payload: unknown, id = `01KB${String(++seq).padStart(22, "0")}`): ServerFrame {
  const f = decodeServerFrame({ type: "event", event: { id, type, session_id: SID, turn_id: "T1", ts: "2026-05-08T14:00:00.000Z", actor: "agent", payload } });
  if (f.type === "unknown") throw new Error(f.reason);
  return f;
}
const delta = (text: string, index = 0) => ev("text.delta", { message_id: "A1", content_block_index: index, text });

describe("reduceAll", () => {
  for (const [name, t] of Object.entries(TRACES)) {
    it(`${name}: any batching gives the state of reducing one by one`, () => {
      const actions = frames(t.sessionId, t.frames);
      const want = oneByOne(initialState(), actions);
      for (const n of [1, 2, 7, actions.length]) {
        const got = batches(actions, n).reduce(reduceAll, initialState());
        expect(got, `batches of ${n}`).toEqual(want);
      }
    });
  }

  it("a run of deltas skips the ones at or below the cursor (a replay overlapping it)", () => {
    seq = 0;
    const start = [ev("turn.started", { user_message_id: "U1", input: "go" }), ev("message.start", { message_id: "A1", role: "assistant", model: "m" })];
    const ds = Array.from({ length: 10 }, (_, i) => delta(`${i} `));
    const before = oneByOne(initialState(), frames(SID, [...start, ...ds.slice(0, 6)]));
    const replayed = reduceAll(before, frames(SID, ds.slice(3))); // 3, 4, 5 again, then 6..9
    const straight = oneByOne(initialState(), frames(SID, [...start, ...ds]));
    expect(replayed.chat[SID]).toEqual(straight.chat[SID]);
    const block = replayed.chat[SID]!.messages.A1!.content[0];
    expect(block?.type === "streamingText" && chunkText(block.chunks)).toBe("0 1 2 3 4 5 6 7 8 9 ");
  });

  it("runs stop at another block, another message or another kind of delta", () => {
    seq = 0;
    const start = [ev("message.start", { message_id: "A1", role: "assistant", model: "m" })];
    const mixed = [
      ev("thinking.delta", { message_id: "A1", content_block_index: 0, text: "hm" }),
      ev("thinking.delta", { message_id: "A1", content_block_index: 0, text: "m", signature: "sig" }),
      delta("a", 1),
      delta("b", 1),
      ev("tool.use_start", { message_id: "A1", content_block_index: 2, tool_use_id: "tu", tool_name: "bash" }),
      delta("c", 1),
    ];
    const actions = frames(SID, [...start, ...mixed]);
    expect(reduceAll(initialState(), actions)).toEqual(oneByOne(initialState(), actions));
    const m = reduceAll(initialState(), actions).chat[SID]!.messages.A1!;
    expect(m.content.map((b) => b.type)).toEqual(["streamingThinking", "streamingText", "toolCall"]);
    expect(m.content[0]).toMatchObject({ signature: "sig" });
  });
});

describe("the store", () => {
  it("applies a batch through the reducer in one notification, to every slice it concerns", () => {
    const t = TRACES["plain-turn"]!;
    const store = createAppStore();
    let notified = 0;
    store.subscribe(() => notified++);
    store.getState().dispatchAll(frames(t.sessionId, t.frames));
    expect(notified).toBe(1);
    const st = store.getState();
    expect(st.chat[t.sessionId]).toEqual(oneByOne(initialState(), frames(t.sessionId, t.frames)).chat[t.sessionId]);
    // The record came from the snapshot and followed turn.started / turn.completed, in the list slice.
    const snapshot = t.frames.find((f) => f.type === "snapshot");
    expect(sessionRecord(st, t.sessionId)?.title).toBe(snapshot?.type === "snapshot" ? snapshot.session.title : undefined);
    expect(sessionRecord(st, t.sessionId)?.current_turn_id).toBeUndefined();
    store.getState().dispatch({ type: "notice", text: "hello" });
    expect(store.getState().ui.notice).toBe("hello");
    expect(store.getState().chat).toBe(st.chat); // other slices untouched
  });

  it("accumulates a 10,000-delta burst linearly: one chunk list, appended in place, per frame batch", () => {
    seq = 0;
    const store = createAppStore();
    store.getState().dispatch({ type: "frame", sessionId: SID, frame: ev("message.start", { message_id: "A1", role: "assistant", model: "m" }) });
    const stores = new Set<unknown>();
    let text = "";
    for (const batch of batches(frames(SID, Array.from({ length: 10_000 }, (_, i) => delta(`${i} `))), 130)) {
      store.getState().dispatchAll(batch);
      const b = store.getState().chat[SID]!.messages.A1!.content[0];
      if (b?.type === "streamingText") stores.add(b.chunks.store);
    }
    for (let i = 0; i < 10_000; i++) text += `${i} `;
    const b = store.getState().chat[SID]!.messages.A1!.content[0];
    expect(b?.type).toBe("streamingText");
    if (b?.type !== "streamingText") return;
    expect(stores.size).toBe(1); // never copied
    expect(b.chunks.count).toBe(10_000);
    expect(chunkText(b.chunks)).toBe(text);
    expect(store.getState().chat[SID]!.lastEventId).toBe(`01KB${String(seq).padStart(22, "0")}`);
  });
});
