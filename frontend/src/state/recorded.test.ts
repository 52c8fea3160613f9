// The reducer against frame traces recorded from the real hub
// (app/hub/trace_record_test.go writes test/traces/recorded/*.json; rerun it
// with -update-traces after a protocol change). Each trace holds the exact
// server frames of one scenario (subscribe_ack, snapshot, events), a
// reconnect variant (ack + the frames replayed after a mid-turn cursor), a
// post-run snapshot resync, and facts the Go side read from the store.

import { describe, expect, it } from "vitest";
import { decodeServerFrame, type ServerFrame } from "../protocol";
import { initialState, reduce } from "./reducer";
import { messageText, sessionRecord, visibleMessages } from "./selectors";
import type { AppState, SessionState, ToolStatus } from "./types";

interface Expect {
  assistant_texts: string[];
  messages: { id: string; role: string; status: string }[];
  tools: Record<string, "done" | "error" | "cancelled">;
  turns: string[];
  cost_usd: number;
  context_start_offset: number;
  delegations?: Record<string, string>;
  compaction?: { removed: number; kept: number; tokensRemoved: number; tokensKept: number; reason: string; context_start_offset: number };
}

interface RawTrace {
  scenario: string;
  session_id: string;
  frames: unknown[];
  reconnect: { since: string; frames: unknown[] };
  resync: unknown[];
  expect: Expect;
}

interface Recorded {
  raw: RawTrace;
  frames: ServerFrame[];
  reconnect: ServerFrame[];
  resync: ServerFrame[];
  /** "<part> <index>: <reason>" for every frame the decoder did not know. */
  unknown: string[];
}

const files = import.meta.glob<RawTrace>("../../test/traces/recorded/*.json", { eager: true, import: "default" });

function decodeTrace(raw: RawTrace): Recorded {
  const unknown: string[] = [];
  const decode = (part: string, fs: unknown[]): ServerFrame[] =>
    fs.flatMap((f, i) => {
      const d = decodeServerFrame(f);
      if (d.type === "unknown") {
        unknown.push(`${part} ${i}: ${d.reason}`);
        return [];
      }
      return [d];
    });
  return { raw, frames: decode("frames", raw.frames), reconnect: decode("reconnect", raw.reconnect.frames), resync: decode("resync", raw.resync), unknown };
}

const TRACES: Recorded[] = Object.values(files)
  .map(decodeTrace)
  .sort((a, b) => a.raw.scenario.localeCompare(b.raw.scenario));

function run(t: Recorded, frames: ServerFrame[], from: AppState = initialState()): AppState {
  return frames.reduce((st, frame) => reduce(st, { type: "frame", sessionId: t.raw.session_id, frame }), from);
}

function session(t: Recorded, st: AppState): SessionState {
  const s = st.chat[t.raw.session_id];
  if (!s) throw new Error(`${t.raw.scenario}: no session state`);
  return s;
}

/** What a user sees, independent of how the state was reached (events or a snapshot). */
function view(t: Recorded, st: AppState) {
  const s = session(t, st);
  return {
    messages: visibleMessages(s).map((m) => ({ id: m.id, role: m.role, text: messageText(m), status: m.status, annotation: m.annotation, retries: m.retries ?? null })),
    tools: Object.fromEntries(Object.values(s.tools).map((c) => [c.toolUseId, { status: c.status, name: c.toolName, input: c.input, statusText: c.statusText, summary: c.summary }])),
    streaming: s.streamingIds,
    turn: s.turn,
    cost: s.sessionUsage.cost_usd,
    contextStart: sessionRecord(st, t.raw.session_id)?.context_start_offset ?? null,
    lastEventId: s.lastEventId,
  };
}

function lastEventId(frames: ServerFrame[]): string | null {
  for (let i = frames.length - 1; i >= 0; i--) {
    const f = frames[i]!;
    if (f.type === "event") return f.event.id;
  }
  return null;
}

const cardStatus: Record<Expect["tools"][string], ToolStatus> = { done: "done", error: "error", cancelled: "cancelled" };

describe("recorded traces from the real hub", () => {
  it("are present", () => {
    expect(TRACES.map((t) => t.raw.scenario)).toEqual(
      expect.arrayContaining(["plain-turn", "tool-loop", "cancel-mid-llm", "cancel-mid-tool", "cancel-seam", "cancel-followup", "delegation", "compaction", "provider-retry", "provider-midfail"]),
    );
  });

  for (const t of TRACES) {
    describe(t.raw.scenario, () => {
      const x = t.raw.expect;

      it("decodes every frame (none unknown)", () => {
        expect(t.unknown).toEqual([]);
        expect(t.frames[0]?.type).toBe("subscribe_ack");
        expect(t.frames[1]?.type).toBe("snapshot");
      });

      it("ends in the state the server stored", () => {
        const st = run(t, t.frames);
        const s = session(t, st);
        // Messages the chat shows (toolResults fold into their cards).
        const shown = x.messages.filter((m) => m.role !== "toolResult");
        const msgs = visibleMessages(s);
        expect(msgs.map((m) => ({ id: m.id, role: m.role, status: m.status }))).toEqual(shown);
        expect(msgs.filter((m) => m.role === "assistant").map(messageText)).toEqual(x.assistant_texts);
        for (const m of msgs) expect(m.annotation, m.id).toBe(m.status === "cancelled" ? "(cancelled)" : null);
        // Tool cards.
        const want = Object.fromEntries(Object.entries(x.tools).map(([id, st]) => [id, cardStatus[st]]));
        expect(Object.fromEntries(Object.values(s.tools).map((c) => [c.toolUseId, c.status]))).toEqual(want);
        // Delegation cards carry the worker's result.
        for (const [id, result] of Object.entries(x.delegations ?? {})) {
          expect(s.delegations[id]).toMatchObject({ status: "done", success: true, result });
          expect(s.delegations[id]!.workerOutput).toBe(result);
        }
        // Compaction stats and the new context start.
        if (x.compaction) {
          const c = x.compaction;
          expect(s.compaction.inProgress).toBe(false);
          expect(s.compaction.last).toEqual({
            removed: c.removed,
            kept: c.kept,
            tokensRemoved: c.tokensRemoved,
            tokensKept: c.tokensKept,
            reason: c.reason,
            contextStartOffset: c.context_start_offset,
            error: "error" in c && typeof c.error === "string" ? c.error : null,
          });
        }
        expect(sessionRecord(st, t.raw.session_id)?.context_start_offset).toBe(x.context_start_offset);
        // Cost.
        expect(s.sessionUsage.cost_usd).toBeCloseTo(x.cost_usd, 12);
        // Idle, nothing streaming, cursor at the last event.
        expect(s.turn.running).toBe(false);
        expect(s.turn.currentTurnId).toBeNull();
        expect(s.streamingIds).toEqual([]);
        expect(s.lastEventId).toBe(lastEventId(t.frames));
        // A completed turn leaves no error banner (a retried call that then
        // succeeded must not keep "retrying…"); a cancel is not an error.
        expect(s.lastError).toBeNull();
      });

      it("reconnect: the prefix up to the cursor + the replayed frames = the uninterrupted state", () => {
        const cut = t.frames.findIndex((f) => f.type === "event" && f.event.id === t.raw.reconnect.since);
        expect(cut).toBeGreaterThan(1);
        expect(t.reconnect[0]?.type).toBe("subscribe_ack");
        const before = run(t, t.frames.slice(0, cut + 1));
        expect(run(t, t.reconnect, before)).toEqual(run(t, t.frames));
        // Replaying from an earlier cursor (overlap) changes nothing either.
        const earlier = run(t, t.frames.slice(0, Math.max(2, cut - 3)));
        expect(run(t, [...t.frames.slice(Math.max(2, cut - 3), cut + 1), ...t.reconnect], earlier)).toEqual(run(t, t.frames));
      });

      const resync = (v: (t: Recorded, st: AppState) => unknown) => () => {
        expect(t.resync.map((f) => f.type)).toEqual(["subscribe_ack", "snapshot"]);
        const full = v(t, run(t, t.frames));
        const fresh = v(t, run(t, t.resync));
        expect(fresh).toEqual(full);
        for (let cut = 0; cut <= t.frames.length; cut++) {
          const resynced = v(t, run(t, t.resync, run(t, t.frames.slice(0, cut))));
          expect(resynced, `after ${cut} frames`).toEqual(fresh);
        }
      };

      it("a snapshot resync after any prefix shows the same final state", resync(view));
    });
  }

  // One message per model call: the stream that broke twice (midfail) is
  // one answer at every point of the live run — the partial of a failed
  // attempt is replaced, never shown beside or after its retry — and the
  // answer says it was retried, live and after a resync alike.
  describe("provider-midfail: a retried stream is one message", () => {
    const t = TRACES.find((x) => x.raw.scenario === "provider-midfail");
    it("never shows a partial twice, nor a void tool card", () => {
      expect(t).toBeDefined();
      const tr = t!;
      let st = initialState();
      for (const [i, frame] of tr.frames.entries()) {
        st = reduce(st, { type: "frame", sessionId: tr.raw.session_id, frame });
        const s = session(tr, st);
        const assistants = visibleMessages(s).filter((m) => m.role === "assistant");
        expect(assistants.length, `after frame ${i}`).toBeLessThanOrEqual(1);
        const text = assistants.map(messageText).join("");
        expect(text.split("Partial answer").length - 1, `after frame ${i}: ${text}`).toBeLessThanOrEqual(1);
        const cards = Object.keys(s.tools);
        expect(cards.length, `after frame ${i}: ${cards.join(",")}`).toBeLessThanOrEqual(1);
      }
      const s = session(tr, st);
      const [answer] = visibleMessages(s).filter((m) => m.role === "assistant");
      expect(answer?.retries).toEqual({ count: 2, error_class: "overloaded", error: "Anthropic: Overloaded" });
      expect(s.tools).toEqual({});
      expect(visibleMessages(session(tr, run(tr, tr.resync))).find((m) => m.role === "assistant")?.retries).toEqual(answer?.retries);
    });
  });
});
