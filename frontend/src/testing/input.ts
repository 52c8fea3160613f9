// For the jsdom suites: typing into React-controlled fields as a user would.

import { act } from "react";

/**
 * Sets a React-controlled input's or textarea's value the way typing does:
 * through the element prototype's value setter (React tracks the instance's
 * own), then a bubbling input event, inside act.
 */
export function typeInto(el: HTMLInputElement | HTMLTextAreaElement, value: string): void {
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, "value")!.set!.call(el, value);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
}
