// @vitest-environment jsdom
// Issue 34 rows 1 and 12: a waiting prompt takes y / a / n from the empty
// composer (where focus is right after sending) but never from a user who
// is writing; its card says what the call wants to do, not "Running:".
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import type { ApprovalAnswer } from "../protocol";
import type { ToolCardState } from "../state";
import { newToolCard } from "../state/history";
import { mountPerTest } from "../testing/mount";
import { isIdleComposer, shortcutAnswer } from "./ApprovalPrompt";
import { COMPOSER_ID } from "./Composer";
import { ToolCard } from "./ToolCard";
import { waitingStatus } from "./waiting";

const dom = mountPerTest();

function waiting(): ToolCardState {
  return {
    ...newToolCard("toolu_1", "bash", "m1", "t1"),
    status: "running",
    statusText: "Running: git status && ls -la",
    input: { command: "git status && ls -la" },
    approval: { request: { risk: "high", reason: "bash asks by default", summary: "", order: "01" }, resolution: null },
  };
}

function composer(value: string): HTMLTextAreaElement {
  const area = document.createElement("textarea");
  area.id = COMPOSER_ID;
  area.value = value;
  document.body.append(area);
  return area;
}

const key = (k: string, target: EventTarget) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, repeat: false, target });

describe("a waiting prompt and the composer", () => {
  it("takes y / a / n from the empty composer, not from one with text or from other fields", () => {
    const empty = composer("");
    const writing = composer("please y");
    const other = document.createElement("input");
    document.body.append(other);
    const lookalike = document.createElement("textarea"); // no composer id: a field of some other form
    document.body.append(lookalike);
    try {
      expect(isIdleComposer(empty)).toBe(true);
      expect(shortcutAnswer(key("y", empty), false)).toBe("once");
      expect(shortcutAnswer(key("n", empty), false)).toBe("deny");
      expect(shortcutAnswer(key("y", writing), false)).toBeNull();
      expect(shortcutAnswer(key("y", other), false)).toBeNull();
      expect(shortcutAnswer(key("y", lookalike), false)).toBeNull();
      expect(shortcutAnswer(key("y", empty), true)).toBeNull(); // a dialog of the app is open
    } finally {
      empty.remove();
      writing.remove();
      other.remove();
      lookalike.remove();
    }
  });

  it("a y typed into the empty composer answers the prompt and types nothing", async () => {
    const onAnswer = vi.fn<(a: ApprovalAnswer, m: string) => Promise<boolean>>(() => Promise.resolve(true));
    act(() => dom.root.render(<ToolCard card={waiting()} onAnswer={onAnswer} active />));
    const area = composer("");
    try {
      area.focus();
      const ev = new KeyboardEvent("keydown", { key: "y", bubbles: true, cancelable: true });
      await act(async () => {
        area.dispatchEvent(ev);
      });
      expect(onAnswer).toHaveBeenCalledWith("once", "");
      expect(ev.defaultPrevented).toBe(true); // the browser does not insert the y
      area.value = "draft";
      const typed = new KeyboardEvent("keydown", { key: "n", bubbles: true, cancelable: true });
      await act(async () => {
        area.dispatchEvent(typed);
      });
      expect(typed.defaultPrevented).toBe(false);
      expect(onAnswer).toHaveBeenCalledTimes(1);
    } finally {
      area.remove();
    }
  });

  it("the card of a waiting call says what it wants to do", () => {
    act(() => dom.root.render(<ToolCard card={waiting()} active />));
    const head = dom.host.querySelector(".tool-status-text")?.textContent ?? "";
    expect(head).toBe("Wants to run: git status && ls -la");
    expect(waitingStatus("Writing notes.md")).toBe("Wants to write notes.md");
    expect(waitingStatus("Editing a.go")).toBe("Wants to edit a.go");
    expect(waitingStatus("MCP fs: read_text_file")).toBe("Wants to call MCP fs: read_text_file");
    expect(waitingStatus("Starting sub-agent: check")).toBe("Wants to start a sub-agent: check");
    expect(waitingStatus("Ran: ls")).toBe("Ran: ls");
  });
});
