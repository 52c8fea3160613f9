// Coalesces store actions per animation frame: a burst of streamed events
// (hundreds per second) becomes one reducer pass and one React render per
// frame instead of one per event.

import type { Action } from "../state";

/** Schedules a callback for the next frame; returns a canceller. */
export type FrameScheduler = (cb: () => void) => () => void;

/**
 * requestAnimationFrame with a timer backstop (rAF stops in hidden tabs):
 * whichever fires first runs cb and cancels the other, so no timer outlives
 * its frame.
 */
export function defaultScheduler(win: Pick<Window, "requestAnimationFrame" | "cancelAnimationFrame"> | undefined = globalThis.window, backstopMs = 100): FrameScheduler {
  return (cb) => {
    let raf: number | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const cancel = () => {
      if (raf !== null) win?.cancelAnimationFrame(raf);
      if (timer !== null) clearTimeout(timer);
      raf = timer = null;
    };
    const run = () => {
      cancel();
      cb();
    };
    if (win?.requestAnimationFrame) raf = win.requestAnimationFrame(run);
    timer = setTimeout(run, backstopMs);
    return cancel;
  };
}

/** Queues actions and applies them together once per frame. */
export class ActionBatcher {
  private queue: Action[] = [];
  private cancel: (() => void) | null = null;
  private readonly apply: (actions: readonly Action[]) => void;
  private readonly schedule: FrameScheduler;

  /** apply receives every queued action, in order, once per frame. */
  constructor(apply: (actions: readonly Action[]) => void, schedule: FrameScheduler = defaultScheduler()) {
    this.apply = apply;
    this.schedule = schedule;
  }

  /** Queues a; the batch is applied on the next frame. */
  push(a: Action): void {
    this.queue.push(a);
    this.cancel ??= this.schedule(() => this.flush());
  }

  /** Applies everything queued now (e.g. before a user action that reads the state). */
  flush(): void {
    this.cancel?.();
    this.cancel = null;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.apply(batch);
  }

  /** Drops anything queued and stops the pending frame. */
  dispose(): void {
    this.cancel?.();
    this.cancel = null;
    this.queue = [];
  }
}
