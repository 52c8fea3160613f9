// @vitest-environment jsdom
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { newToolCard } from "../state/history";
import type { ToolCardState } from "../state";
import { Composer } from "./Composer";
import { BLOCK_GROUP, MarkdownView } from "./Markdown";
import { ToolCard, tailLines, MAX_RENDERED_LINES } from "./ToolCard";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let host: HTMLDivElement;
let root: Root;
beforeEach(() => {
  host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
});
afterEach(() => {
  act(() => root.unmount());
  host.remove();
});

function card(over: Partial<ToolCardState>): ToolCardState {
  return { ...newToolCard("toolu_1", "bash", "m1", "t1"), ...over };
}

describe("ToolCard", () => {
  it("shows raw partial JSON and a spinner while the input streams", () => {
    act(() => root.render(<ToolCard card={card({ rawInput: '{"command": "go te' })} />));
    expect(host.querySelector(".tool-spinner")).not.toBeNull();
    expect(host.querySelector(".tool-raw")?.textContent).toBe('{"command": "go te');
    expect(host.querySelector("[data-status]")?.getAttribute("data-status")).toBe("streaming-input");
  });

  it("shows parsed input, status text and markdown summary when done", () => {
    act(() =>
      root.render(<ToolCard card={card({ status: "done", input: { command: "ls" }, statusText: "Command finished", summary: "**exit 0**", output: "a\nb\n" })} />),
    );
    expect(host.querySelector(".tool-spinner")).toBeNull();
    expect(host.querySelector(".tool-json")?.textContent).toBe('{\n  "command": "ls"\n}');
    expect(host.querySelector(".tool-status-text")?.textContent).toBe("Command finished");
    expect(host.querySelector(".tool-summary strong")?.textContent).toBe("exit 0");
    expect(host.querySelector(".tool-output-text")?.textContent).toBe("a\nb\n");
  });

  it("renders an error and a cancelled state", () => {
    act(() => root.render(<ToolCard card={card({ status: "error", errorClass: "exec", errorMessage: "exit 2" })} />));
    expect(host.querySelector("[role=alert]")?.textContent).toBe("exec: exit 2");
    act(() => root.render(<ToolCard card={card({ status: "cancelled", statusText: "Cancelled" })} />));
    expect(host.querySelector(".tool-cancelled")).not.toBeNull();
  });

  it("collapses long output and never renders more than the tail window", () => {
    const huge = Array.from({ length: 35_000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    act(() => root.render(<ToolCard card={card({ status: "running", liveOutput: huge })} />));
    const pre = () => host.querySelector(".tool-output-text")!.textContent!;
    expect(pre().split("\n").filter(Boolean)).toHaveLength(12);
    expect(pre().endsWith("line 34999\n")).toBe(true);
    const toggle = host.querySelector<HTMLButtonElement>(".tool-toggle")!;
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    act(() => toggle.click());
    expect(pre().split("\n").filter(Boolean)).toHaveLength(MAX_RENDERED_LINES);
    expect(host.querySelector(".tool-output-hidden")?.textContent).toContain(`${35_000 - MAX_RENDERED_LINES} earlier lines`);
  });

  it("tailLines counts hidden lines", () => {
    expect(tailLines("a\nb\nc\n", 2)).toEqual({ tail: "b\nc\n", hidden: 1, total: 3 });
    expect(tailLines("a\nb", 5)).toEqual({ tail: "a\nb", hidden: 0, total: 2 });
    expect(tailLines("", 5)).toEqual({ tail: "", hidden: 0, total: 0 });
  });
});

describe("Composer", () => {
  function press(el: Element, key: string, shiftKey = false) {
    act(() => {
      el.dispatchEvent(new KeyboardEvent("keydown", { key, shiftKey, bubbles: true, cancelable: true }));
    });
  }
  function type(el: HTMLTextAreaElement, value: string) {
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!.set!;
    act(() => {
      setter.call(el, value);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }

  it("Enter sends, Shift+Enter does not, Esc cancels while busy, Stop shown and queue listed", () => {
    const onSend = vi.fn();
    const onCancel = vi.fn();
    act(() => root.render(<Composer busy={false} queued={[]} onSend={onSend} onCancel={onCancel} />));
    const ta = host.querySelector("textarea")!;
    type(ta, "hello");
    press(ta, "Enter", true);
    expect(onSend).not.toHaveBeenCalled();
    press(ta, "Enter");
    expect(onSend).toHaveBeenCalledWith("hello");
    expect(ta.value).toBe("");
    press(ta, "Enter");
    expect(onSend).toHaveBeenCalledTimes(1);
    press(ta, "Escape");
    expect(onCancel).not.toHaveBeenCalled();
    expect(host.querySelector(".composer-stop")).toBeNull();

    const onCancelQueued = vi.fn();
    act(() => root.render(<Composer busy queued={[{ turnId: "t2", content: "next one", confirmed: true }]} onSend={onSend} onCancel={onCancel} onCancelQueued={onCancelQueued} />));
    press(host.querySelector("textarea")!, "Escape");
    expect(onCancel).toHaveBeenCalledTimes(1);
    act(() => host.querySelector<HTMLButtonElement>(".composer-stop")!.click());
    expect(onCancel).toHaveBeenCalledTimes(2);
    expect(host.querySelector(".composer-queue-text")?.textContent).toBe("next one");
    act(() => host.querySelector<HTMLButtonElement>(".composer-queue button")!.click());
    expect(onCancelQueued).toHaveBeenCalledWith("t2");
  });
});

describe("ToolCard status text", () => {
  it("shows the status text when finished, and the input's command when rebuilt without one", () => {
    act(() => root.render(<ToolCard card={card({ status: "done", input: { command: "echo hi" }, statusText: "Ran: echo hi" })} />));
    expect(host.querySelector(".tool-status-text")?.textContent).toBe("Ran: echo hi");
    act(() => root.render(<ToolCard card={card({ status: "done", input: { command: "echo hi\necho more" }, statusText: "" })} />));
    expect(host.querySelector(".tool-status-text")?.textContent).toBe("echo hi");
    act(() => root.render(<ToolCard card={card({ status: "done", input: {}, statusText: "" })} />));
    expect(host.querySelector(".tool-status-text")?.textContent).toBe("");
  });
});

describe("MarkdownView", () => {
  it("shows remote images as placeholders until one is clicked, then loads this message's images", () => {
    const text = "![a](https://img.example/a.png)\n\ntext\n\n![b](https://img.example/b.png)";
    act(() => root.render(<><MarkdownView text={text} /><MarkdownView text={"![c](https://other.example/c.png)"} /></>));
    expect(host.querySelectorAll("img")).toHaveLength(0);
    const holders = host.querySelectorAll<HTMLButtonElement>("[data-md-img]");
    expect(holders).toHaveLength(3);
    act(() => holders[0]!.click());
    const [first, second] = Array.from(host.querySelectorAll(".md"));
    expect(Array.from(first!.querySelectorAll("img"), (i) => i.getAttribute("src"))).toEqual(["https://img.example/a.png", "https://img.example/b.png"]);
    expect(second!.querySelectorAll("img")).toHaveLength(0); // another message stays blocked
  });

  it("shows the live tail as plain text and renders it as Markdown once the message is final", () => {
    act(() => root.render(<MarkdownView text={"# Title\n\nsome **bold"} live />));
    expect(host.querySelector("h1")?.textContent).toBe("Title");
    expect(host.querySelector(".md-live")?.textContent).toBe("some **bold");
    act(() => root.render(<MarkdownView text={"# Title\n\nsome **bold**"} />));
    expect(host.querySelector(".md-live")).toBeNull();
    expect(host.querySelector("strong")?.textContent).toBe("bold");
  });

  it("groups completed blocks and keeps every block's content", () => {
    const n = BLOCK_GROUP * 2 + 3;
    const text = Array.from({ length: n }, (_, i) => `para ${i}`).join("\n\n") + "\n\ntail";
    act(() => root.render(<MarkdownView text={text} live />));
    expect(host.querySelectorAll(".md-group")).toHaveLength(2);
    expect(host.querySelectorAll(".md-block:not(.md-open)")).toHaveLength(n);
    expect([...host.querySelectorAll(".md-block")].map((b) => b.textContent?.trim())).toEqual([...Array.from({ length: n }, (_, i) => `para ${i}`), "tail"]);
  });
});

