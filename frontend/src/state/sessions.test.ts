// The session list slice: list answers merged with records that arrive as
// events of streamed sessions.

import { describe, expect, it } from "vitest";
import { decodeServerFrame, type ServerFrame, type Session } from "../protocol";
import { session } from "../testing/fakes";
import { initialState, reduce } from "./reducer";
import type { Action, AppState } from "./types";

let seq = 0;
function event(sessionId: string, type: string, payload: unknown, turnId: string | null = null): Action {
  const f = decodeServerFrame({ type: "event", event: { id: `01KC${String(++seq).padStart(22, "0")}`, type, session_id: sessionId, turn_id: turnId, ts: "2026-05-08T15:00:00.000Z", actor: "agent", payload } });
  if (f.type === "unknown") throw new Error(f.reason);
  return { type: "frame", sessionId, frame: f as ServerFrame };
}
const listed = (sessions: Session[], request: number, askedAt: number): Action => ({ type: "sessionsListed", sessions, request, askedAt });
const titles = (st: AppState) => st.sessions.records.map((s) => `${s.session_id}:${s.title}`);
const apply = (st: AppState, ...as: Action[]) => as.reduce(reduce, st);

describe("session list", () => {
  it("a list answer asked before a live record does not undo it, nor bring back a deleted session", () => {
    seq = 0;
    let st = apply(initialState(), listed([session("a"), session("b", { created_at: "2026-01-01T00:00:00Z" })], 1, 0));
    const askedAt = st.sessions.version;
    st = apply(st, event("a", "session.updated", { session: session("a", { title: "Live" }) }), event("b", "session.updated", { session: session("b"), deleted: true }));
    st = apply(st, listed([session("a", { title: "stale" }), session("b", { created_at: "2026-01-01T00:00:00Z" })], 2, askedAt));
    expect(titles(st)).toEqual(["a:Live"]);
    // A later answer (asked after the events) is authoritative again.
    st = apply(st, listed([session("a", { title: "Renamed elsewhere" })], 3, st.sessions.version));
    expect(titles(st)).toEqual(["a:Renamed elsewhere"]);
    expect(st.sessions.changedAt).toEqual({});
  });

  it("drops an answer to an older request that arrives after a newer one", () => {
    let st = apply(initialState(), listed([session("a", { title: "new" })], 2, 0));
    st = apply(st, listed([session("a", { title: "old" })], 1, 0));
    expect(titles(st)).toEqual(["a:new"]);
    expect(st.sessions.loaded).toBe(true);
  });

  it("follows the running turn and the context start of a streamed session", () => {
    seq = 0;
    let st = apply(initialState(), listed([session("a")], 1, 0));
    st = apply(st, event("a", "turn.started", { user_message_id: "U1", input: "hi" }, "T1"));
    expect(st.sessions.records[0]?.current_turn_id).toBe("T1");
    st = apply(st, event("a", "compaction.completed", { removed: 2, kept: 1, tokensRemoved: 10, tokensKept: 5, reason: "summary", context_start_offset: 2 }));
    st = apply(st, event("a", "turn.completed", { status: "completed", usage: { input_tokens: 1, output_tokens: 1, cost_usd: 0 } }, "T1"));
    expect(st.sessions.records[0]).toMatchObject({ context_start_offset: 2 });
    expect(st.sessions.records[0]?.current_turn_id).toBeUndefined();
  });

  it("a replayed (duplicate) event changes no record", () => {
    seq = 0;
    let st = apply(initialState(), listed([session("a")], 1, 0));
    const older = event("a", "session.updated", { session: session("a", { title: "first" }) });
    st = apply(st, older, event("a", "session.updated", { session: session("a", { title: "second" }) }));
    const version = st.sessions.version;
    st = apply(st, older);
    expect(titles(st)).toEqual(["a:second"]);
    expect(st.sessions.version).toBe(version);
  });

  it("lists a worker from delegate.started under its parent until a list answer has it", () => {
    seq = 0;
    let st = apply(initialState(), listed([session("p", { workspace_path: "/proj" })], 1, 0));
    st = apply(st, event("p", "delegate.started", { tool_use_id: "tu", worker_session_id: "w", task: "Audit the parser\nand report", depth: 1, status_text: "", summary: "" }, "T1"));
    expect(st.sessions.records.find((s) => s.session_id === "w")).toMatchObject({ parent_session_id: "p", title: "Audit the parser", workspace_path: "/proj", depth: 1 });
    st = apply(st, listed([session("p")], 2, st.sessions.version));
    expect(st.sessions.records.map((s) => s.session_id)).toContain("w"); // kept: not listed yet
    st = apply(st, listed([session("p"), session("w", { title: "Worker: audit", parent_session_id: "p" })], 3, st.sessions.version));
    expect(titles(st)).toContain("w:Worker: audit");
    expect(st.sessions.placeholders).toEqual({});
  });
});
