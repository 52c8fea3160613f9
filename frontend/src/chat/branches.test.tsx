// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import { createAppStore, type ChatMessage } from "../state";
import { mountPerTest } from "../testing/mount";
import { MessageView } from "./MessageView";
import type { ChatSession } from "./session";
import { typeInto } from "../testing/input";
import { renderInSession } from "../testing/session";

const dom = mountPerTest();

function message(over: Partial<ChatMessage>): ChatMessage {
  return {
    id: "m2", role: "assistant", content: [{ type: "text", text: "an answer" }], status: "complete", stopReason: "end_turn",
    usage: null, model: null, turnId: "t1", offset: 1, createdAt: null, annotation: null, ...over,
  };
}

function mount(m: ChatMessage, session: Partial<ChatSession>) {
  renderInSession(dom.root, <MessageView message={m} />, { store: createAppStore(), sessionId: "s1", ...session });
}

const byTestId = (id: string) => dom.host.querySelector<HTMLButtonElement>(`[data-testid=${id}]`);

describe("branch controls", () => {
  it("‹ n/m › switches to the neighbouring sibling", () => {
    const onSwitchBranch = vi.fn();
    mount(message({ id: "b", siblings: ["a", "b", "c"] }), { onSwitchBranch });
    const nav = byTestId("branch-nav")!;
    expect(nav.textContent).toContain("2/3");
    act(() => nav.querySelector<HTMLButtonElement>("[aria-label='Previous branch']")!.click());
    act(() => nav.querySelector<HTMLButtonElement>("[aria-label='Next branch']")!.click());
    expect(onSwitchBranch.mock.calls).toEqual([["a"], ["c"]]);
    mount(message({ id: "a" }), { onSwitchBranch });
    expect(byTestId("branch-nav")).toBeNull();
  });

  it("Regenerate and Fork act on the answer; a tool-use step offers no Regenerate", () => {
    const onRegenerate = vi.fn(() => Promise.resolve(true));
    const onFork = vi.fn();
    mount(message({}), { onRegenerate, onFork });
    act(() => byTestId("regenerate")!.click());
    act(() => byTestId("fork")!.click());
    expect(onRegenerate).toHaveBeenCalledWith("m2");
    expect(onFork).toHaveBeenCalledWith("m2");
    mount(message({ stopReason: "tool_use" }), { onRegenerate, onFork });
    expect(byTestId("regenerate")).toBeNull();
  });

  it("Edit opens a box with the text; Enter sends it as a new branch, Esc cancels", async () => {
    const onEdit = vi.fn(() => Promise.resolve(true));
    mount(message({ id: "u1", role: "user", content: [{ type: "text", text: "first try" }], stopReason: null }), { onEdit });
    act(() => byTestId("edit-message")!.click());
    const box = dom.host.querySelector<HTMLTextAreaElement>("[data-testid=edit-box] textarea")!;
    expect(box.value).toBe("first try");
    typeInto(box, "second try");
    await act(async () => {
      box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
      await Promise.resolve();
    });
    expect(onEdit).toHaveBeenCalledWith("u1", "second try");
    expect(dom.host.querySelector("[data-testid=edit-box]")).toBeNull();
    act(() => byTestId("edit-message")!.click());
    act(() => {
      dom.host.querySelector("[data-testid=edit-box] textarea")!.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
    });
    expect(dom.host.querySelector("[data-testid=edit-box]")).toBeNull();
    expect(dom.host.querySelector(".msg-user-text")?.textContent).toBe("first try");
  });
});
