// The app's own open dialogs, counted by the dialogs themselves: what the
// approval shortcuts (y / a / n) ask before answering. Never read from the
// DOM: rendered Markdown is model output, and an element it draws (an
// aria-modal="true" in a message) must not switch the shortcuts off — nor
// anything else the model writes into the page.

import { useEffect } from "react";

let open = 0;

/** Counts the calling dialog as open while it is mounted and active. */
export function useModal(active = true): void {
  useEffect(() => {
    if (!active) return undefined;
    open++;
    return () => {
      open--;
    };
  }, [active]);
}

/** Whether one of the app's dialogs is open. */
export function modalOpen(): boolean {
  return open > 0;
}
