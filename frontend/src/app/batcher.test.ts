import { afterEach, describe, expect, it, vi } from "vitest";
import { ActionBatcher, defaultScheduler } from "./batcher";
import { manualScheduler } from "../testing/fakes";

/** A window whose animation frames run when the test says. */
function fakeWindow() {
  const frames = new Map<number, FrameRequestCallback>();
  let next = 0;
  return {
    requestAnimationFrame: (cb: FrameRequestCallback) => (frames.set(++next, cb), next),
    cancelAnimationFrame: (h: number) => void frames.delete(h),
    frame: () => [...frames.entries()].forEach(([h, cb]) => (frames.delete(h), cb(0))),
    pending: () => frames.size,
  };
}

afterEach(() => vi.useRealTimers());

describe("ActionBatcher", () => {
  it("applies queued actions in order in one call per frame", () => {
    const clock = manualScheduler();
    const batches: number[][] = [];
    const b = new ActionBatcher((as) => batches.push(as.map((a) => (a.type === "clearError" ? Number(a.sessionId) : -1))), clock.schedule);
    b.push({ type: "clearError", sessionId: "1" });
    b.push({ type: "clearError", sessionId: "2" });
    clock.tick();
    b.push({ type: "clearError", sessionId: "3" });
    b.flush();
    clock.tick();
    expect(batches).toEqual([[1, 2], [3]]);
  });
});

describe("defaultScheduler", () => {
  it("runs once on the animation frame and clears its timer backstop", () => {
    vi.useFakeTimers();
    const win = fakeWindow();
    const cb = vi.fn();
    defaultScheduler(win)(cb);
    expect(vi.getTimerCount()).toBe(1);
    win.frame();
    expect(cb).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(cb).toHaveBeenCalledTimes(1);
  });

  it("runs on the backstop when no frame comes (a hidden page) and cancels the frame", () => {
    vi.useFakeTimers();
    const win = fakeWindow();
    const cb = vi.fn();
    defaultScheduler(win, 100)(cb);
    vi.advanceTimersByTime(100);
    expect(cb).toHaveBeenCalledTimes(1);
    expect(win.pending()).toBe(0);
  });

  it("cancels both", () => {
    vi.useFakeTimers();
    const win = fakeWindow();
    const cb = vi.fn();
    defaultScheduler(win)(cb)();
    expect(vi.getTimerCount()).toBe(0);
    expect(win.pending()).toBe(0);
    win.frame();
    expect(cb).not.toHaveBeenCalled();
  });
});
