import { describe, expect, it, vi } from "vitest";
import type { ServerFrame } from "../protocol";
import { emptySession } from "./history";
import { reduce, initialState } from "./reducer";
import { sessionRecord, visibleMessages } from "./selectors";
import { setReducerLogger, settleBlocks } from "./stream";
import { TRACES, type Trace } from "./traces";
import type { AppState, SessionState } from "./types";

function run(trace: Trace, frames: ServerFrame[] = trace.frames, from: AppState = initialState()): AppState {
  return frames.reduce((st, frame) => reduce(st, { type: "frame", sessionId: trace.sessionId, frame }), from);
}

function session(trace: Trace, st: AppState): SessionState {
  const s = st.chat[trace.sessionId];
  if (!s) throw new Error("no session state");
  return s;
}

function final(name: string): SessionState {
  const t = TRACES[name]!;
  return session(t, run(t));
}

/** What a user sees: the comparison basis for reload/snapshot equivalence. */
function view(s: SessionState) {
  return {
    messages: visibleMessages(s).map((m) => ({
      id: m.id,
      role: m.role,
      content: settleBlocks(m.content),
      status: m.status,
      annotation: m.annotation,
      stopReason: m.stopReason,
      usage: m.usage,
    })),
    tools: Object.fromEntries(Object.values(s.tools).map((t) => [t.toolUseId, { status: t.status, input: t.input, output: t.output, name: t.toolName }])),
    streaming: s.streamingIds,
    turn: s.turn,
    usage: s.sessionUsage,
    lastEventId: s.lastEventId,
  };
}

describe("reducer on recorded traces", () => {
  it("plain turn: streams thinking + text, final_content is authoritative", () => {
    const t = TRACES["plain-turn"]!;
    const firstComplete = t.frames.findIndex((f) => f.type === "event" && f.event.type === "message.complete");
    const mid = session(t, run(t, t.frames.slice(0, firstComplete)));
    const streaming = mid.messages[mid.streamingIds[0]!]!;
    expect(streaming.status).toBe("streaming");
    expect(streaming.content.map((b) => b.type)).toEqual(["streamingThinking", "streamingText"]); // chunk lists while streaming
    expect(settleBlocks(streaming.content)[0]).toEqual({ type: "thinking", thinking: "The user wants a greeting.", signature: "EqQBCkgIARABGAIiQ" });
    expect(mid.turn.running).toBe(true);

    const s = final("plain-turn");
    const msgs = visibleMessages(s);
    expect(msgs.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(msgs[0]!.content).toEqual([{ type: "text", text: "Say hello in markdown" }]);
    const a = msgs[1]!;
    expect(a.status).toBe("complete");
    expect(a.annotation).toBeNull();
    expect(a.content[1]).toEqual({ type: "text", text: "# Hello\n\nHere is a list:\n\n- one\n- two\n\n```go\nfmt.Println(\"hi\")\n```\n" });
    expect(a.usage?.cost_usd).toBeCloseTo(0.0039);
    expect(s.streamingIds).toEqual([]);
    expect(s.turn).toEqual({ currentTurnId: null, running: false, queued: [] });
    expect(s.sessionUsage.input_tokens).toBe(820);
    expect(s.contextTokens).toBe(916);
    expect(s.activeModel).toBe("anthropic:claude-sonnet-4-6");
    const last = t.frames[t.frames.length - 1]!;
    expect(last.type === "event" && s.lastEventId === last.event.id).toBe(true);
  });

  it("tool loop: raw partial JSON while streaming, parsed input, live output, result, second call", () => {
    const t = TRACES["tool-loop"]!;
    const useEnd = t.frames.findIndex((f) => f.type === "event" && f.event.type === "tool.use_end");
    const mid = session(t, run(t, t.frames.slice(0, useEnd)));
    const streamingCard = mid.tools["toolu_01TESTS"]!;
    expect(streamingCard.status).toBe("streaming-input");
    expect(streamingCard.input).toBeNull();
    expect(JSON.stringify({ command: "go test ./...", timeout_ms: 60000 }).startsWith(streamingCard.rawInput)).toBe(true);

    const called = t.frames.findIndex((f) => f.type === "event" && f.event.type === "tool.output_delta");
    const running = session(t, run(t, t.frames.slice(0, called + 1))).tools["toolu_01TESTS"]!;
    expect(running.status).toBe("running");
    expect(running.statusText).toBe("Running: go test ./...");
    expect(running.liveOutput).toBe("ok  \tproj/a\t0.10s\n");

    const s = final("tool-loop");
    const card = s.tools["toolu_01TESTS"]!;
    expect(card.status).toBe("done");
    expect(card.rawInput).toBe(JSON.stringify({ command: "go test ./...", timeout_ms: 60000 }));
    expect(card.input).toEqual({ command: "go test ./...", timeout_ms: 60000 });
    expect(card.liveOutput).toBe(card.output);
    expect(card.summary).toBe("**exit 0**");
    expect(visibleMessages(s).map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
    expect(s.sessionUsage.input_tokens).toBe(2600);
    expect(s.sessionUsage.cost_usd).toBeCloseTo(0.0093);
  });

  it("cancel mid-LLM: partial message annotated (cancelled), no tool, no error", () => {
    const s = final("cancel-mid-llm");
    const a = visibleMessages(s)[1]!;
    expect(a.status).toBe("cancelled");
    expect(a.annotation).toBe("(cancelled)");
    expect(a.content).toEqual([{ type: "text", text: "I'll start by...analyzing the" }]);
    expect(Object.keys(s.tools)).toEqual([]);
    expect(s.lastError).toBeNull();
    expect(s.turn.running).toBe(false);
  });

  it("cancel mid-tool: tool cancelled, prior assistant message stays as rendered", () => {
    const s = final("cancel-mid-tool");
    expect(s.tools["toolu_01SLEEP"]!.status).toBe("cancelled");
    expect(s.tools["toolu_01SLEEP"]!.liveOutput).toBe("sleeping...\n");
    const a = visibleMessages(s)[1]!;
    expect(a.status).toBe("complete");
    expect(a.annotation).toBeNull();
    expect(s.turn.running).toBe(false);
  });

  it("cancel at the seam: every pending tool cancelled without running", () => {
    const s = final("cancel-seam");
    expect(s.tools["toolu_01READA"]!.status).toBe("cancelled");
    expect(s.tools["toolu_01READB"]!.status).toBe("cancelled");
    expect(s.tools["toolu_01READA"]!.statusText).toBe("Cancelled");
    expect(s.tools["toolu_01READB"]!.input).toEqual({ path: "b.go" });
  });

  it("cancel during a follow-up call: first tool done, second message and its tool_use cancelled", () => {
    const s = final("cancel-followup");
    expect(s.tools["toolu_01LIST"]!.status).toBe("done");
    expect(s.tools["toolu_01GREP"]!.status).toBe("cancelled");
    const msgs = visibleMessages(s);
    expect(msgs[1]!.annotation).toBeNull();
    expect(msgs[2]!.annotation).toBe("(cancelled)");
  });

  it("delegation: task, streamed worker output, result", () => {
    const t = TRACES.delegation!;
    const done = t.frames.findIndex((f) => f.type === "event" && f.event.type === "delegate.completed");
    const mid = session(t, run(t, t.frames.slice(0, done))).delegations["toolu_01DELEG"]!;
    expect(mid.status).toBe("running");
    expect(mid.workerOutput).toBe("Running tests 20 times... TestFoo failed 3/20. It races on a map.");
    const d = final("delegation").delegations["toolu_01DELEG"]!;
    expect(d).toMatchObject({ status: "done", success: true, task: "Find the flaky test", result: "TestFoo races on a map.", workerSessionId: "01JZ4M9GW0RKERSESS10N00007" });
    expect(final("delegation").tools["toolu_01DELEG"]!.liveOutput).toBe("");
  });

  it("cancel during delegation: delegation cancelled by user, tool cancelled", () => {
    const s = final("cancel-delegation");
    expect(s.delegations["toolu_01DLONG"]).toMatchObject({ status: "cancelled", failureMode: "cancelled_by_user", workerOutput: "Working on it" });
    expect(s.tools["toolu_01DLONG"]!.status).toBe("cancelled");
  });

  it("compaction: in-progress flag, stats, new context start", () => {
    const t = TRACES.compaction!;
    const mid = session(t, run(t, t.frames.slice(0, 3)));
    expect(mid.compaction.inProgress).toBe(true);
    expect(mid.compaction.estimatedTokens).toBe(182000);
    const s = final("compaction");
    const st = run(t);
    expect(s.compaction.inProgress).toBe(false);
    expect(s.compaction.last).toEqual({ removed: 24, kept: 8, tokensRemoved: 45000, tokensKept: 12000, reason: "summary", contextStartOffset: 24, error: null });
    expect(sessionRecord(st, t.sessionId)?.context_start_offset).toBe(24);
    expect(s.sessionUsage.cost_usd).toBeCloseTo(0.42);
  });

  it("llm failure: retry shown, then the failed turn shown once, under its user message", () => {
    const t = TRACES["llm-failure"]!;
    const retrying = session(t, run(t, t.frames.slice(0, 6)));
    expect(retrying.lastError).toMatchObject({ source: "llm", errorClass: "rate_limit", willRetry: true });
    const s = final("llm-failure");
    expect(s.lastError).toBeNull(); // no banner repeating the inline failure
    expect(s.turn.running).toBe(false);
    // The failure stays on the user message (what a reload shows too).
    const user = visibleMessages(s).find((m) => m.role === "user")!;
    expect(user.turnOutcome).toMatchObject({ status: "failed", error: { class: "overloaded", message: "529 Overloaded" } });
    expect(user.turnOutcome?.error?.attempts).toBeGreaterThan(1);
  });
});

describe("stalls and title calls", () => {
  const sid = "S1";
  let n = 0;
  const ev = (type: string, payload: unknown, turnId: string | null = "T1"): ServerFrame =>
    ({
      type: "event",
      event: { id: `01J0000000000000000000${String(++n).padStart(4, "0")}`, type, session_id: sid, turn_id: turnId, ts: "2026-05-08T14:00:00.000Z", actor: "agent", payload },
    }) as ServerFrame;
  const apply = (frames: ServerFrame[]) =>
    frames.reduce((st, frame) => reduce(st, { type: "frame", sessionId: sid, frame }), initialState()).chat[sid]!;

  it("llm.call_stalled shows until the stream delivers again", () => {
    const started = ev("llm.call_started", { call_id: "c1", model: "m", message_id: "M1", attempt: 1 });
    const stalled = ev("llm.call_stalled", { call_id: "c1", idle_ms: 5003 });
    const s = apply([started, stalled]);
    expect(s.stall).toMatchObject({ callId: "c1", idleMs: 5003 });
    const resumed = apply([started, stalled, ev("message.start", { message_id: "M1", role: "assistant", model: "m" })]);
    expect(resumed.stall).toBeNull();
  });

  it("a worker's retried stream replaces its partial in the delegation card (tool.output_delta reset)", () => {
    const out = (text: string, reset?: boolean) => ev("tool.output_delta", { tool_use_id: "tu_d", stream: "worker", text, ...(reset ? { reset } : {}) });
    const s = apply([ev("delegate.started", { tool_use_id: "tu_d", worker_session_id: "W", task: "t", depth: 1, status_text: "", summary: "" }), out("Partial "), out("answer"), out("", true), out("The retried answer.")]);
    expect(s.delegations["tu_d"]?.workerOutput).toBe("The retried answer.");
  });

  it("a title call neither raises an error nor touches the context size", () => {
    const failed = ev("llm.call_failed", { call_id: "c9", model: "m", error_class: "invalid_request", message: "no", attempt: 1, will_retry: false, purpose: "title" }, null);
    const done = ev("llm.call_completed", { call_id: "c8", model: "m", message_id: "", stop_reason: "end_turn", usage: { input_tokens: 30, output_tokens: 5, cost_usd: 0.01 }, duration_ms: 3, purpose: "title" }, null);
    const s = apply([failed, done]);
    expect(s.lastError).toBeNull();
    expect(s.contextTokens).toBeNull();
  });
});

describe("reconnect, reload, duplicates, unknown events", () => {
  const names = Object.keys(TRACES);

  it("reconnect with replay (overlapping the cursor) equals the uninterrupted state", () => {
    for (const name of names) {
      const t = TRACES[name]!;
      const full = run(t);
      for (let cut = 3; cut < t.frames.length; cut += 4) {
        const before = run(t, t.frames.slice(0, cut));
        const ack: ServerFrame = { type: "subscribe_ack", resolved_filter: { event_types: null, actors: null, include_worker_sessions: false }, since: "x", snapshot: false, replay_event_count: 0 };
        const after = run(t, [ack, ...t.frames.slice(Math.max(2, cut - 3))], before);
        expect(after, `${name} cut ${cut}`).toEqual(full);
      }
    }
  });

  it("reload mid-stream: fresh state + snapshot with the partial message + remaining events = uninterrupted", () => {
    const t = TRACES["tool-loop"]!;
    const full = session(t, run(t));
    for (const snap of t.snapshots) {
      const fresh = run(t, [snap.frame]);
      const s0 = session(t, fresh);
      expect(s0.streamingIds).toHaveLength(1);
      expect(s0.messages[s0.streamingIds[0]!]!.status).toBe("streaming");
      expect(s0.turn.running).toBe(true);
      expect(s0.tools["toolu_01TESTS"]!.status).toBe("done");
      const reloaded = session(t, run(t, t.frames.slice(snap.afterFrame + 1), fresh));
      expect(view(reloaded)).toEqual(view(full));
      // A snapshot over stale state replaces it, and replaying the overlap changes nothing.
      const resynced = session(t, run(t, [snap.frame, ...t.frames.slice(snap.afterFrame - 5)], run(TRACES["plain-turn"]!, undefined, run(t, t.frames.slice(0, 9)))));
      expect(view(resynced)).toEqual(view(full));
    }
  });

  it("duplicate frames are ignored", () => {
    for (const name of names) {
      const t = TRACES[name]!;
      const doubled = t.frames.flatMap((f): ServerFrame[] => (f.type === "event" ? [f, f] : [f]));
      expect(run(t, doubled), name).toEqual(run(t));
      const replayedTwice = [...t.frames, ...t.frames.filter((f) => f.type === "event")];
      expect(run(t, replayedTwice), name).toEqual(run(t));
    }
  });

  it("unknown event types are skipped with a debug log and advance the cursor", () => {
    const log = vi.fn();
    setReducerLogger(log);
    try {
      const t = TRACES["tool-loop"]!;
      const frames: ServerFrame[] = [];
      for (const f of t.frames) {
        frames.push(f);
        if (f.type === "event") {
          frames.push({ type: "event", event: { ...f.event, id: f.event.id + "0", type: "made.up.thing", payload: { x: 1 }, unknown: true } });
        }
      }
      const s = session(t, run(t, frames));
      const full = session(t, run(t));
      expect(view({ ...s, lastEventId: full.lastEventId })).toEqual(view(full));
      expect(s.lastEventId! > full.lastEventId!).toBe(true);
      expect(log).toHaveBeenCalledWith("skipping unknown event made.up.thing", expect.any(String));
    } finally {
      setReducerLogger(() => {});
    }
  });

  it("events of another session land in that session's state", () => {
    const t = TRACES["plain-turn"]!;
    const f = t.frames[3]!;
    if (f.type !== "event") throw new Error("want event");
    const st = reduce(initialState(), { type: "frame", sessionId: t.sessionId, frame: { type: "event", event: { ...f.event, session_id: "01JZ4MWORKER0000000000000X" } } });
    expect(Object.keys(st.chat)).toEqual(["01JZ4MWORKER0000000000000X"]);
  });
});

describe("history pages and turn queue", () => {
  const sid = "01JZ4M2B6C8D0E2F4G6H8J0K2M";
  const page = [
    { id: "m1", role: "user" as const, content: "Old question", status: "complete" as const, offset: 0 },
    {
      id: "m2",
      role: "assistant" as const,
      content: [{ type: "toolCall" as const, id: "tu1", name: "bash", arguments: { command: "ls" } }],
      status: "complete" as const,
      offset: 1,
    },
    { id: "m3", role: "toolResult" as const, content: "boom", status: "complete" as const, offset: 2, tool_call_id: "tu1", tool_name: "bash", is_error: true },
    { id: "m4", role: "assistant" as const, content: "half", status: "interrupted" as const, offset: 3 },
  ];

  it("normalises per seed 000 and merges without duplicates", () => {
    let st = reduce(initialState(), { type: "history", sessionId: sid, messages: page.slice(2), hasMore: true });
    st = reduce(st, { type: "history", sessionId: sid, messages: page, hasMore: false });
    st = reduce(st, { type: "history", sessionId: sid, messages: page, hasMore: false });
    const s = st.chat[sid]!;
    expect(s.order).toEqual(["m1", "m2", "m3", "m4"]);
    expect(s.messages.m1!.content).toEqual([{ type: "text", text: "Old question" }]);
    expect(s.messages.m3).toMatchObject({ toolStatus: "error", isError: true, toolArgs: { command: "ls" } });
    expect(s.messages.m4!.annotation).toBe("(interrupted)");
    expect(s.tools.tu1).toMatchObject({ status: "error", output: "boom", input: { command: "ls" } });
    expect(visibleMessages(s).map((m) => m.id)).toEqual(["m1", "m2", "m4"]);
    expect(s.hasMoreHistory).toBe(false);
  });

  it("queues submissions while a turn runs and dequeues on turn.started", () => {
    const t = TRACES["plain-turn"]!;
    const startIdx = t.frames.findIndex((f) => f.type === "event" && f.event.type === "turn.started");
    let st = run(t, t.frames.slice(0, startIdx + 1));
    st = reduce(st, { type: "turnSubmitted", sessionId: t.sessionId, turnId: "01JZ4MQQ0000000000000TVRNQ", content: "next" });
    expect(st.chat[t.sessionId]!.turn.queued).toEqual([{ turnId: "01JZ4MQQ0000000000000TVRNQ", content: "next", confirmed: false }]);
    const s = emptySession("x");
    expect(reduce({ ...initialState(), chat: { x: s } }, { type: "turnSubmitted", sessionId: "x", turnId: "t", content: "c" }).chat.x!.turn.queued).toEqual([]);
  });
});
