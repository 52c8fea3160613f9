import { describe, expect, it } from "vitest";
import { session } from "../testing/fakes";
import type { ServerFrame, ToolApprovalRequested } from "../protocol";
import { approvalRequest, eventFrame, snapshotMidCall } from "../testing/frames";
import { isPending, pendingApprovalIds, waitingTotal, workerApprovalIds } from "./approvals";
import { initialState, reduce } from "./reducer";
import { sessionRecord } from "./selectors";
import type { Action, AppState, SessionState } from "./types";

// A call's approval on its tool card: requested → resolved, a worker's copy
// in its parent, and a reload mid-wait (snapshot, then the listing).

const SID = "01JZ6A0000000000000000SESS";
const WORKER = "01JZ6A000000000000000WORKR";
const TURN = "01JZ6A0000000000000000TRN1";
const MSG = "01JZ6A0000000000000000MSG1";

const ev = (type: string, payload: unknown, actor = "tool") => eventFrame(SID, TURN, type, payload, actor);

const request = (id: string, over: Partial<ToolApprovalRequested> = {}) => approvalRequest(id, { input: { command: "rm -rf build" }, status_text: "Running: rm -rf build", ...over });

const called = (id: string) =>
  ev("tool.called", { tool_use_id: id, tool_name: "bash", input: { command: "rm -rf build" }, message_id: MSG, status_text: "Running: rm -rf build", summary: "" });
const requested = (id: string, over: Partial<ToolApprovalRequested> = {}) => ev("tool.approval_requested", request(id, over));
const resolved = (id: string, decision: string, by: string, extra: Record<string, string> = {}) => ev("tool.approval_resolved", { tool_use_id: id, decision, by, ...extra });

type Listed = Extract<Action, { type: "approvalsListed" }>;

function apply(st: AppState, ...items: (ServerFrame | Listed)[]): AppState {
  return items.reduce((acc, x) => reduce(acc, x.type === "approvalsListed" ? x : { type: "frame", sessionId: SID, frame: x }), st);
}

function sess(st: AppState): SessionState {
  return st.chat[SID]!;
}

/** A snapshot mid-wait: the assistant message with the call is stored, its result is not; the record counts one waiting. */
const snapshotMidWait = () => snapshotMidCall(session(SID, { pending_approvals: 1 }), MSG, TURN, { command: "rm -rf build" });

describe("approvals in the reducer", () => {
  it("tracks a call from requested to resolved on its tool card", () => {
    let st = apply(initialState(), called("toolu_1"), requested("toolu_1"));
    const card = sess(st).tools["toolu_1"]!;
    expect(card.status).toBe("running");
    expect(card.approval?.request).toMatchObject({ risk: "high", reason: "bash asks by default" });
    expect(isPending(card)).toBe(true);
    expect(pendingApprovalIds(sess(st))).toEqual(["toolu_1"]);

    st = apply(st, resolved("toolu_1", "once", "dashboard"));
    const after = sess(st).tools["toolu_1"]!;
    expect(after.approval?.resolution).toEqual({ decision: "once", by: "dashboard", message: null });
    expect(isPending(after)).toBe(false);
    expect(pendingApprovalIds(sess(st))).toEqual([]);
  });

  it("keeps the user's message of a denial, and orders several waiting calls by request", () => {
    let st = apply(initialState(), called("toolu_b"), called("toolu_a"), requested("toolu_b"), requested("toolu_a"));
    expect(pendingApprovalIds(sess(st))).toEqual(["toolu_b", "toolu_a"]);
    st = apply(st, resolved("toolu_b", "deny", "window", { message: "not in prod" }));
    expect(sess(st).tools["toolu_b"]!.approval?.resolution).toEqual({ decision: "deny", by: "window", message: "not in prod" });
    expect(pendingApprovalIds(sess(st))).toEqual(["toolu_a"]);
  });

  it("a call that ends is no longer pending, and a resolution of an unknown call adds no card", () => {
    let st = apply(initialState(), called("toolu_1"), requested("toolu_1"));
    st = apply(st, ev("tool.failed", { tool_use_id: "toolu_1", tool_name: "bash", error_class: "cancelled", message: "cancelled", status_text: "Cancelled", summary: "" }));
    expect(pendingApprovalIds(sess(st))).toEqual([]);
    st = apply(st, resolved("toolu_zz", "cancelled", "restart"));
    expect(sess(st).tools["toolu_zz"]).toBeUndefined();
  });

  it("shows a worker's copy in the parent as a card of its own until resolved", () => {
    let st = apply(initialState(), requested("toolu_w", { worker_session_id: WORKER, tool_name: "edit_file", risk: "medium", input: { path: "a.go", old: "x", new: "y" } }));
    const card = sess(st).tools["toolu_w"]!;
    expect(card).toMatchObject({ workerSessionId: WORKER, toolName: "edit_file", status: "running", input: { path: "a.go", old: "x", new: "y" } });
    expect(workerApprovalIds(sess(st))).toEqual(["toolu_w"]);
    expect(pendingApprovalIds(sess(st))).toEqual(["toolu_w"]);
    st = apply(st, resolved("toolu_w", "always", "window", { worker_session_id: WORKER }));
    expect(workerApprovalIds(sess(st))).toEqual([]);
    expect(sess(st).tools["toolu_w"]!.approval?.resolution?.decision).toBe("always");
  });

  it("ignores a replayed request at or below the cursor", () => {
    const req = requested("toolu_1");
    let st = apply(initialState(), called("toolu_1"), req, resolved("toolu_1", "once", "window"));
    st = apply(st, req); // a replay overlapping the cursor
    expect(isPending(sess(st).tools["toolu_1"])).toBe(false);
  });
});

describe("a reload mid-wait", () => {
  it("the snapshot knows the call but not its request; the listing brings the prompt back", () => {
    let st = apply(initialState(), snapshotMidWait());
    const card = sess(st).tools["toolu_1"]!;
    expect(card.status).toBe("running");
    expect(card.approval).toBeNull();
    expect(sessionRecord(st, SID)?.pending_approvals).toBe(1);

    st = apply(st, { type: "approvalsListed", sessionId: SID, approvals: [request("toolu_w", { worker_session_id: WORKER }), request("toolu_1")] });
    expect(pendingApprovalIds(sess(st))).toEqual(["toolu_w", "toolu_1"]); // the listing's order: oldest first
    st = apply(st, requested("toolu_2"));
    expect(pendingApprovalIds(sess(st))).toEqual(["toolu_w", "toolu_1", "toolu_2"]); // listed ones were asked before the snapshot
    expect(workerApprovalIds(sess(st))).toEqual(["toolu_w"]);

    st = apply(st, resolved("toolu_1", "once", "dashboard"), ev("session.updated", { session: session(SID, { current_turn_id: TURN, pending_approvals: 2 }) }, "system"));
    expect(pendingApprovalIds(sess(st))).toEqual(["toolu_w", "toolu_2"]);
  });

  it("a listing older than the events that answered a call does not bring its prompt back", () => {
    let st = apply(initialState(), snapshotMidWait(), resolved("toolu_1", "deny", "window"));
    st = apply(st, { type: "approvalsListed", sessionId: SID, approvals: [request("toolu_1")] });
    expect(pendingApprovalIds(sess(st))).toEqual([]);
    expect(sess(st).tools["toolu_1"]!.approval?.resolution?.decision).toBe("deny");
  });

  it("a listing does not replace what the request event said", () => {
    let st = apply(initialState(), snapshotMidWait(), requested("toolu_1", { reason: "from the event" }));
    st = apply(st, { type: "approvalsListed", sessionId: SID, approvals: [request("toolu_1", { reason: "from the listing" })] });
    expect(sess(st).tools["toolu_1"]!.approval?.request?.reason).toBe("from the event");
  });
});

describe("waitingTotal", () => {
  it("sums the top-level sessions only (a worker's calls count in its ancestors too)", () => {
    const records = [
      session("a", { pending_approvals: 2 }),
      session("w", { parent_session_id: "a", pending_approvals: 1 }),
      session("b", { pending_approvals: 1 }),
      session("orphan", { parent_session_id: "gone", pending_approvals: 1 }),
      session("c"),
    ];
    expect(waitingTotal(records)).toBe(4);
    expect(waitingTotal([])).toBe(0);
  });
});
