import { describe, expect, it } from 'vitest';
import { countWords, startFrameMeter } from './testhooks';

/** A window whose animation frames run when the test says, at given times. */
function fakeFrames() {
  let next: FrameRequestCallback | null = null;
  let handle = 0;
  return {
    win: {
      requestAnimationFrame: (cb: FrameRequestCallback) => {
        next = cb;
        return ++handle;
      },
      cancelAnimationFrame: (h: number) => {
        if (h === handle) next = null;
      },
    },
    frame(at: number) {
      const cb = next;
      next = null;
      cb?.(at);
    },
    pending: () => next !== null,
  };
}

describe('startFrameMeter', () => {
  it('counts frames and keeps the longest gap between two of them', () => {
    const f = fakeFrames();
    const stop = startFrameMeter(f.win);
    for (const at of [0, 16, 33, 250, 266]) f.frame(at);
    expect(stop()).toEqual({ frames: 5, max_gap_ms: 217 });
    expect(f.pending()).toBe(false);
  });

  it('reports no gap before a second frame', () => {
    const f = fakeFrames();
    const stop = startFrameMeter(f.win);
    f.frame(100);
    expect(stop()).toEqual({ frames: 1, max_gap_ms: 0 });
  });
});

describe('countWords', () => {
  it('counts whitespace-separated words as strings.Fields does', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  one\ttwo\n three  ')).toBe(3);
    expect(countWords('1780000000000000000 1780000000000001000 ')).toBe(2);
  });
});
