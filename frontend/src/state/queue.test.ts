import { describe, expect, it } from "vitest";
import { session } from "../testing/fakes";
import { decodeServerFrame, type ServerFrame, type Session } from "../protocol";
import { reduce, initialState } from "./reducer";
import { messageText, visibleMessages } from "./selectors";
import type { AppState, SessionState } from "./types";

// Queued turns from the server's session record (store.Session.queued_turns):
// submit while a turn runs → queued shown → turn.started → the message appears in order.

const SID = "01JZ5Q0000000000000000SESS";
const T1 = "01JZ5Q0000000000000000TRN1";
const T2 = "01JZ5Q0000000000000000TRN2";
const T3 = "01JZ5Q0000000000000000TRN3";

let seq = 0;
function nextId(): string {
  seq++;
  return `01KS${String(seq).padStart(22, "0")}`;
}

function sessionRecord(over: Partial<Session> = {}): Session {
  return session(SID, { title: "Queue", ...over });
}

/** Decodes a wire frame through the real decoder (as the transport does). */
function wire(raw: unknown): ServerFrame {
  const f = decodeServerFrame(raw);
  if (f.type === "unknown") throw new Error(f.reason);
  return f;
}

function ev(type: string, turnId: string | null, payload: unknown): ServerFrame {
  return wire({ type: "event", event: { id: nextId(), type, session_id: SID, turn_id: turnId, ts: "2026-05-08T14:31:40Z", actor: "agent", payload } });
}

function updated(over: Partial<Session>): ServerFrame {
  return ev("session.updated", null, { session: sessionRecord(over) });
}

function apply(st: AppState, ...frames: ServerFrame[]): AppState {
  return frames.reduce((acc, frame) => reduce(acc, { type: "frame", sessionId: SID, frame }), st);
}

function sess(st: AppState): SessionState {
  return st.chat[SID]!;
}

function text(s: SessionState): string[] {
  return visibleMessages(s).map((m) => `${m.role}:${messageText(m)}`);
}

/** A session with turn T1 running (its user message and a streaming answer). */
function running(): AppState {
  seq = 0;
  const snap = wire({ type: "snapshot", session: sessionRecord(), messages: [], snapshot_at_event_id: nextId() });
  return apply(
    initialState(),
    snap,
    ev("turn.started", T1, { user_message_id: "U1", input: "first" }),
    ev("message.start", T1, { message_id: "A1", role: "assistant", model: "m" }),
    ev("text.delta", T1, { message_id: "A1", content_block_index: 0, text: "working on it" }),
  );
}

describe("queued turns from the session record", () => {
  it("submit while running → queued shown → turn.started → the message appears in order", () => {
    let st = running();
    // The submission commits a session.updated listing it; the submit answer may come before or after.
    st = reduce(st, { type: "turnSubmitted", sessionId: SID, turnId: T2, content: "second", queued: true });
    expect(sess(st).turn.queued).toEqual([{ turnId: T2, content: "second", confirmed: false }]);
    st = apply(st, updated({ current_turn_id: T1, queued_turns: [{ turn_id: T2, content: "second" }] }));
    expect(sess(st).turn.queued).toEqual([{ turnId: T2, content: "second", confirmed: true }]);
    expect(text(sess(st))).toEqual(["user:first", "assistant:working on it"]); // not in the transcript yet

    st = apply(
      st,
      ev("message.complete", T1, { message_id: "A1", stop_reason: "end_turn", final_content: [{ type: "text", text: "working on it" }], usage: { input_tokens: 1, output_tokens: 1, cost_usd: 0 } }),
      ev("turn.completed", T1, { status: "completed", usage: { input_tokens: 1, output_tokens: 1, cost_usd: 0 } }),
    );
    expect(sess(st).turn.queued.map((q) => q.turnId)).toEqual([T2]);
    st = apply(st, ev("turn.started", T2, { user_message_id: "U2", input: "second" }));
    expect(sess(st).turn.queued).toEqual([]);
    expect(sess(st).turn.currentTurnId).toBe(T2);
    expect(text(sess(st))).toEqual(["user:first", "assistant:working on it", "user:second"]);
    // A session.updated committed with turn.started must not bring it back.
    st = apply(st, updated({ current_turn_id: T2, queued_turns: [{ turn_id: T2, content: "second" }] }));
    expect(sess(st).turn.queued).toEqual([]);
  });

  it("the submit answer arriving after the server's record does not duplicate or resurrect", () => {
    let st = running();
    st = apply(st, updated({ current_turn_id: T1, queued_turns: [{ turn_id: T2, content: "second" }] }));
    st = reduce(st, { type: "turnSubmitted", sessionId: SID, turnId: T2, content: "second", queued: true });
    expect(sess(st).turn.queued).toHaveLength(1);
    st = apply(st, ev("turn.started", T2, { user_message_id: "U2", input: "second" }));
    st = reduce(st, { type: "turnSubmitted", sessionId: SID, turnId: T2, content: "second", queued: true });
    expect(sess(st).turn.queued).toEqual([]);
  });

  it("a cancelled queued turn leaves the queue without touching the running turn", () => {
    let st = running();
    st = apply(st, updated({ current_turn_id: T1, queued_turns: [{ turn_id: T2, content: "second" }, { turn_id: T3, content: "third" }] }));
    st = apply(st, ev("turn.cancelled", T2, { reason: "user_cancel" }));
    const s = sess(st);
    expect(s.turn.queued.map((q) => q.content)).toEqual(["third"]);
    expect(s.turn.running).toBe(true);
    expect(s.turn.currentTurnId).toBe(T1);
    expect(s.messages.A1!.status).toBe("streaming");
  });

  it("a snapshot (reload, restart) shows the server's queue; stale local entries go", () => {
    let st = running();
    st = apply(st, updated({ current_turn_id: T1, queued_turns: [{ turn_id: T2, content: "second" }] }));
    // Reload: a fresh client state from a snapshot taken while T1 runs and T2, T3 wait.
    const snap = wire({
      type: "snapshot",
      session: sessionRecord({ current_turn_id: T1, queued_turns: [{ turn_id: T2, content: "second" }, { turn_id: T3, content: "third" }] }),
      messages: [{ id: "U1", session_id: SID, offset: 0, turn_id: T1, role: "user", content: [{ type: "text", text: "first" }], status: "complete", created_at: "2026-05-08T14:31:40Z" }],
      snapshot_at_event_id: nextId(),
    });
    const fresh = apply(initialState(), snap);
    expect(sess(fresh).turn.queued.map((q) => q.content)).toEqual(["second", "third"]);
    // Resync of the existing state: the snapshot's list replaces the confirmed entries.
    const after = apply(st, wire({ ...JSON.parse(JSON.stringify(snap)), session: sessionRecord({ current_turn_id: T1 }), snapshot_at_event_id: nextId() }));
    expect(sess(after).turn.queued).toEqual([]);
  });

  it("rejects a malformed queued_turns list at the decoder", () => {
    const bad = decodeServerFrame({ type: "snapshot", session: { ...sessionRecord(), queued_turns: [{ turn_id: 5 }] }, messages: [], snapshot_at_event_id: "x" });
    expect(bad.type).toBe("unknown");
  });
});

describe("delegation cards from stored messages", () => {
  it("a snapshot after the delegate events still shows a delegation card with the task and result", () => {
    seq = 0;
    const msg = (id: string, offset: number, role: string, content: unknown, extra: Record<string, unknown> = {}) => ({
      id, session_id: SID, offset, turn_id: T1, role, content, status: "complete", created_at: "2026-05-08T14:31:40Z", ...extra,
    });
    const snap = wire({
      type: "snapshot",
      session: sessionRecord(),
      messages: [
        msg("U1", 0, "user", [{ type: "text", text: "delegate it" }]),
        msg("A1", 1, "assistant", [{ type: "toolCall", id: "tu_d", name: "delegate", arguments: { task: "Summarise the README" } }]),
        msg("R1", 2, "toolResult", [{ type: "text", text: "The README explains the build." }], { tool_call_id: "tu_d", tool_name: "delegate" }),
      ],
      snapshot_at_event_id: nextId(),
    });
    const d = sess(apply(initialState(), snap)).delegations.tu_d!;
    expect(d).toMatchObject({ task: "Summarise the README", status: "done", result: "The README explains the build.", workerSessionId: null });
  });
});
