// @vitest-environment jsdom
import { act } from "react";
import { createStore } from "zustand/vanilla";
import { describe, expect, it, vi } from "vitest";
import { mountPerTest } from "../testing/mount";
import type { AppStore } from "../state";
import { TurnOutcomeView } from "./TurnOutcome";
import { retryText } from "../app/ChatPane";
import { renderInSession } from "../testing/session";

const dom = mountPerTest();

function render(outcome: Parameters<typeof TurnOutcomeView>[0]["outcome"], onRetry = vi.fn()) {
  const store = createStore<AppStore>(() => ({}) as AppStore);
  renderInSession(dom.root, <TurnOutcomeView outcome={outcome} text="run the tests" messageId="M7" />, { store, sessionId: "S", onRetry });
  return onRetry;
}

describe("TurnOutcomeView", () => {
  it("shows a failed turn's error with its attempts, and Retry sends the same text", () => {
    const onRetry = render({ id: "T1", status: "failed", error: { class: "overloaded", message: "busy", attempts: 4 } });
    const box = dom.host.querySelector("[data-testid=turn-outcome]")!;
    expect(box.getAttribute("data-status")).toBe("failed");
    expect(box.textContent).toContain("overloaded: busy (after 4 attempts)");
    act(() => (box.querySelector("button") as HTMLButtonElement).click());
    expect(onRetry).toHaveBeenCalledWith("M7"); // the turn runs again in place, as a new version of M7
  });

  it("offers Retry after an interruption, says Stopped after a cancel, shows nothing otherwise", () => {
    render({ id: "T1", status: "interrupted" });
    expect(dom.host.textContent).toContain("Interrupted");
    expect(dom.host.querySelector("button")?.textContent).toBe("Retry");
    render({ id: "T1", status: "cancelled" });
    expect(dom.host.textContent).toBe("Stopped");
    expect(dom.host.querySelector("button")).toBeNull();
    render({ id: "T1", status: "completed" });
    expect(dom.host.textContent).toBe("");
  });

  it("says which attempt comes next and when", () => {
    expect(retryText(1, 3000)).toBe(" — attempt 2 — retrying in 3 s…");
    expect(retryText(null, null)).toBe(" — retrying…");
  });
});
