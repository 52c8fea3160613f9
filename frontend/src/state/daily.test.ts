import { describe, expect, it } from "vitest";
import { emptySession } from "./history";
import { reduce, initialState } from "./reducer";
import { visibleMessageIds } from "./selectors";
import { TRACES } from "./traces";
import type { AppState, ChatMessage, SessionState } from "./types";

function msg(id: string, turnId: string, status: ChatMessage["status"], role: ChatMessage["role"] = "assistant"): ChatMessage {
  return { id, role, content: [{ type: "text", text: id }], status, stopReason: null, usage: null, model: null, turnId, offset: null, createdAt: null, annotation: null };
}

function withMessages(ms: ChatMessage[]): SessionState {
  const s = emptySession("s1");
  return { ...s, order: ms.map((m) => m.id), messages: Object.fromEntries(ms.map((m) => [m.id, m])) };
}

describe("retried attempts read as one answer", () => {
  it("folds an errored partial followed by another answer of its turn, keeps the last failure", () => {
    const s = withMessages([
      msg("u1", "t1", "complete", "user"),
      msg("a1", "t1", "error"),
      msg("a2", "t1", "error"),
      msg("a3", "t1", "complete"),
      msg("u2", "t2", "complete", "user"),
      msg("b1", "t2", "error"), // the turn failed for good: its partial stays
    ]);
    expect(visibleMessageIds(s)).toEqual(["u1", "a3", "u2", "b1"]);
  });
});

describe("thinking time", () => {
  it("starts at the first thinking delta and ends at the first text delta (event times)", () => {
    const t = TRACES["plain-turn"]!;
    const st = t.frames.reduce((acc: AppState, frame) => reduce(acc, { type: "frame", sessionId: t.sessionId, frame }), initialState());
    const s = st.chat[t.sessionId]!;
    const thinking = t.frames.flatMap((f) => (f.type === "event" && f.event.type === "thinking.delta" ? [f.event.ts] : []));
    const text = t.frames.flatMap((f) => (f.type === "event" && f.event.type === "text.delta" ? [f.event.ts] : []));
    const m = Object.values(s.messages).find((x) => x.role === "assistant")!;
    expect(m.thinkingTime).toEqual({ startedAt: thinking[0], endedAt: text[0] });
  });
});

describe("finished turns", () => {
  it("counts turn.completed events (the title badge reads it)", () => {
    const t = TRACES["plain-turn"]!;
    const st = t.frames.reduce((acc: AppState, frame) => reduce(acc, { type: "frame", sessionId: t.sessionId, frame }), initialState());
    expect(st.chat[t.sessionId]!.turnsEnded).toBe(1);
  });
});

describe("ui: draft and focus", () => {
  it("the draft clears the selection; selecting a session leaves the draft and drops another session's focus", () => {
    let st = reduce(initialState(), { type: "selected", sessionId: "a" });
    st = reduce(st, { type: "focusMessage", focus: { sessionId: "a", messageId: "m1" } });
    st = reduce(st, { type: "draft" });
    expect(st.ui).toMatchObject({ selectedId: null, draft: true });
    st = reduce(st, { type: "selected", sessionId: "b" });
    expect(st.ui).toMatchObject({ selectedId: "b", draft: false, focus: null });
  });
});
