// Coalesces store actions per animation frame: a burst of streamed events
// (hundreds per second) becomes one reducer pass and one React render per
// frame instead of one per event.

import type { Action } from "../state";

/** Schedules a callback for the next frame; returns a canceller. */
export type FrameScheduler = (cb: () => void) => () => void;

/** requestAnimationFrame with a timer backstop (rAF stops in hidden tabs). */
export function defaultScheduler(win: Pick<Window, "requestAnimationFrame" | "cancelAnimationFrame"> | undefined = globalThis.window): FrameScheduler {
  return (cb) => {
    let done = false;
    const run = () => {
      if (done) return;
      done = true;
      cb();
    };
    const raf = win?.requestAnimationFrame ? win.requestAnimationFrame(run) : null;
    const timer = setTimeout(run, 100);
    return () => {
      done = true;
      if (raf !== null) win?.cancelAnimationFrame(raf);
      clearTimeout(timer);
    };
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
