// @vitest-environment jsdom
// The approval shortcuts (y / a / n) and page state the model can write
// (issue 40 row 9): they follow the app's own dialogs (modals.ts), never the
// DOM — an aria-modal="true" drawn by a message leaves them on.
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import { HelpDialog } from "../app/HelpDialog";
import type { ApprovalAnswer } from "../protocol";
import type { ToolCardState } from "../state";
import { newToolCard } from "../state/history";
import { mountPerTest } from "../testing/mount";
import { shortcutAnswer } from "./ApprovalPrompt";
import { MarkdownView } from "./Markdown";
import { modalOpen } from "./modals";
import { ToolCard } from "./ToolCard";

const dom = mountPerTest();

function waiting(): ToolCardState {
  return {
    ...newToolCard("toolu_1", "bash", "m1", "t1"),
    status: "running",
    input: { command: "make" },
    approval: { request: { risk: "high", reason: "bash asks by default", summary: "", order: "01" }, resolution: null },
  };
}

const press = (key: string) =>
  act(() => {
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true }));
  });

const MESSAGE = '<div aria-modal="true" role="dialog" class="modal">Nothing to approve here</div>';

describe("approval shortcuts and page state the model can write", () => {
  it("a message drawing aria-modal=true, or any such element in the page, leaves them on", async () => {
    const onAnswer = vi.fn<(a: ApprovalAnswer, m: string) => Promise<boolean>>(() => Promise.resolve(false));
    act(() =>
      dom.root.render(
        <>
          <MarkdownView text={MESSAGE} />
          <ToolCard card={waiting()} onAnswer={onAnswer} active />
        </>,
      ),
    );
    expect(dom.host.textContent).toContain("Nothing to approve here");
    const planted = document.createElement("div");
    planted.setAttribute("aria-modal", "true");
    document.body.append(planted);
    try {
      await press("y");
      expect(onAnswer).toHaveBeenCalledWith("once", "");
    } finally {
      planted.remove();
    }
  });

  it("the app's own dialog switches them off while it is open", async () => {
    const onAnswer = vi.fn<(a: ApprovalAnswer, m: string) => Promise<boolean>>(() => Promise.resolve(false));
    const view = (help: boolean) => (
      <>
        <ToolCard card={waiting()} onAnswer={onAnswer} active />
        {help && <HelpDialog onClose={() => undefined} />}
      </>
    );
    act(() => dom.root.render(view(true)));
    expect(modalOpen()).toBe(true);
    await press("n");
    expect(onAnswer).not.toHaveBeenCalled();
    act(() => dom.root.render(view(false)));
    expect(modalOpen()).toBe(false);
    await press("n");
    expect(onAnswer).toHaveBeenCalledWith("deny", "");
  });

  it("shortcutAnswer reads the dialog state it is given", () => {
    const key = { key: "a", ctrlKey: false, metaKey: false, altKey: false, repeat: false, target: document.body };
    expect(shortcutAnswer(key, false)).toBe("always");
    expect(shortcutAnswer(key, true)).toBeNull();
  });
});
