import { describe, expect, it } from "vitest";
import { retryText } from "../app/ChatPane";
import { eventFrame } from "../testing/frames";
import { reduce, initialState } from "./reducer";
import type { AppState } from "./types";

const sid = "S1";
const step = (st: AppState, type: string, payload: unknown, actor = "agent") => reduce(st, { type: "frame", sessionId: sid, frame: eventFrame(sid, "T1", type, payload, actor) });

describe("a retried call's error line (issue 34 row 14)", () => {
  it("stops counting down once the next attempt runs: no 'retrying' during or after the last attempt", () => {
    let st = step(initialState(), "llm.call_failed", { call_id: "c3", model: "anthropic:m", error_class: "overloaded", message: "529 Overloaded", attempt: 3, will_retry: true, retry_in_ms: 4000, max_attempts: 4 });
    const waiting = st.chat[sid]!.lastError!;
    expect(retryText(waiting.attempt, waiting.retryInMs, waiting.maxAttempts ?? null, waiting.inFlight === true)).toBe(" — attempt 4 of 4 — retrying in 4 s…");
    st = step(st, "llm.call_started", { call_id: "c4", model: "anthropic:m", message_id: "M4", attempt: 4 });
    const running = st.chat[sid]!.lastError!;
    expect(retryText(running.attempt, running.retryInMs, running.maxAttempts ?? null, running.inFlight === true)).toBe(" — attempt 4 of 4 under way…");
  });
});
