// For the jsdom suites: a fresh host element and React root for every test,
// unmounted and removed after it.

import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach } from "vitest";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Registers the per-test mount (call at the top level of a test file); read host and root inside tests. */
export function mountPerTest(): { readonly host: HTMLDivElement; readonly root: Root } {
  let host: HTMLDivElement | null = null;
  let root: Root | null = null;
  beforeEach(() => {
    host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
  });
  afterEach(() => {
    act(() => root?.unmount());
    host?.remove();
  });
  return {
    get host() {
      return host!;
    },
    get root() {
      return root!;
    },
  };
}

/** jsdom has no layout: gives every element an 800-high, 1000-wide box so a virtualised list renders rows (call at the top level of a test file). */
export function fakeViewport(): void {
  Object.defineProperties(HTMLElement.prototype, {
    clientHeight: { configurable: true, get: () => 800 },
    offsetHeight: { configurable: true, get: () => 800 },
    clientWidth: { configurable: true, get: () => 1000 },
    offsetWidth: { configurable: true, get: () => 1000 },
  });
}
