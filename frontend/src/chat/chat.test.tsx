// @vitest-environment jsdom
import { act } from "react";
import { mountPerTest } from "../testing/mount";
import { describe, expect, it, vi } from "vitest";
import { newToolCard } from "../state/history";
import type { ToolCardState } from "../state";
import { Composer } from "./Composer";
import { appendChunks, chunkList } from "../state/chunks";
import { BLOCK_GROUP, LiveText, MarkdownView } from "./Markdown";
import { ToolCard, tailLines, MAX_RENDERED_LINES } from "./ToolCard";
import { typeInto } from "../testing/input";


const dom = mountPerTest();

function card(over: Partial<ToolCardState>): ToolCardState {
  return { ...newToolCard("toolu_1", "bash", "m1", "t1"), ...over };
}

describe("ToolCard", () => {
  it("shows raw partial JSON and a spinner while the input streams", () => {
    act(() => dom.root.render(<ToolCard card={card({ rawInput: '{"command": "go te' })} />));
    expect(dom.host.querySelector(".tool-spinner")).not.toBeNull();
    expect(dom.host.querySelector(".tool-raw")?.textContent).toBe('{"command": "go te');
    expect(dom.host.querySelector("[data-status]")?.getAttribute("data-status")).toBe("streaming-input");
  });

  it("shows parsed input, status text and markdown summary when done", () => {
    act(() =>
      dom.root.render(<ToolCard card={card({ status: "done", input: { command: "ls" }, statusText: "Command finished", summary: "**exit 0**", output: "a\nb\n" })} />),
    );
    expect(dom.host.querySelector(".tool-spinner")).toBeNull();
    expect(dom.host.querySelector(".tool-json")?.textContent).toBe('{\n  "command": "ls"\n}');
    expect(dom.host.querySelector(".tool-status-text")?.textContent).toBe("Command finished");
    expect(dom.host.querySelector(".tool-summary strong")?.textContent).toBe("exit 0");
    expect(dom.host.querySelector(".tool-output-text")?.textContent).toBe("a\nb\n");
  });

  it("renders an error and a cancelled state", () => {
    act(() => dom.root.render(<ToolCard card={card({ status: "error", errorClass: "exec", errorMessage: "exit 2" })} />));
    expect(dom.host.querySelector("[role=alert]")?.textContent).toBe("exec: exit 2");
    act(() => dom.root.render(<ToolCard card={card({ status: "cancelled", statusText: "Cancelled" })} />));
    expect(dom.host.querySelector(".tool-cancelled")).not.toBeNull();
  });

  it("collapses long output and never renders more than the tail window", () => {
    const huge = Array.from({ length: 35_000 }, (_, i) => `line ${i}`).join("\n") + "\n";
    act(() => dom.root.render(<ToolCard card={card({ status: "running", liveOutput: huge })} />));
    const pre = () => dom.host.querySelector(".tool-output-text")!.textContent!;
    expect(pre().split("\n").filter(Boolean)).toHaveLength(12);
    expect(pre().endsWith("line 34999\n")).toBe(true);
    const toggle = dom.host.querySelector<HTMLButtonElement>(".tool-output-actions [aria-expanded]")!;
    expect(toggle.getAttribute("aria-expanded")).toBe("false");
    act(() => toggle.click());
    expect(pre().split("\n").filter(Boolean)).toHaveLength(MAX_RENDERED_LINES);
    expect(dom.host.querySelector(".tool-output-hidden")?.textContent).toContain(`${(35_000 - MAX_RENDERED_LINES).toLocaleString("en-US")} earlier lines`);
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

  it("Enter sends, Shift+Enter does not, Esc cancels while busy, Stop shown and queue listed", () => {
    const onSend = vi.fn();
    const onCancel = vi.fn();
    act(() => dom.root.render(<Composer busy={false} queued={[]} onSend={onSend} onCancel={onCancel} />));
    const ta = dom.host.querySelector("textarea")!;
    typeInto(ta, "hello");
    press(ta, "Enter", true);
    expect(onSend).not.toHaveBeenCalled();
    press(ta, "Enter");
    expect(onSend).toHaveBeenCalledWith("hello", []);
    expect(ta.value).toBe("");
    press(ta, "Enter");
    expect(onSend).toHaveBeenCalledTimes(1);
    press(ta, "Escape");
    expect(onCancel).not.toHaveBeenCalled();
    expect(dom.host.querySelector(".composer-stop")).toBeNull();

    const onCancelQueued = vi.fn();
    act(() => dom.root.render(<Composer busy queued={[{ turnId: "t2", content: "next one", confirmed: true }]} onSend={onSend} onCancel={onCancel} onCancelQueued={onCancelQueued} />));
    press(dom.host.querySelector("textarea")!, "Escape");
    expect(onCancel).toHaveBeenCalledTimes(1);
    act(() => dom.host.querySelector<HTMLButtonElement>(".composer-stop")!.click());
    expect(onCancel).toHaveBeenCalledTimes(2);
    expect(dom.host.querySelector(".composer-queue-text")?.textContent).toBe("next one");
    act(() => dom.host.querySelector<HTMLButtonElement>(".composer-queue button")!.click());
    expect(onCancelQueued).toHaveBeenCalledWith("t2");
  });
});

describe("ToolCard status text", () => {
  it("shows the status text when finished, and the input's command when rebuilt without one", () => {
    act(() => dom.root.render(<ToolCard card={card({ status: "done", input: { command: "echo hi" }, statusText: "Ran: echo hi" })} />));
    expect(dom.host.querySelector(".tool-status-text")?.textContent).toBe("Ran: echo hi");
    act(() => dom.root.render(<ToolCard card={card({ status: "done", input: { command: "echo hi\necho more" }, statusText: "" })} />));
    expect(dom.host.querySelector(".tool-status-text")?.textContent).toBe("echo hi");
    act(() => dom.root.render(<ToolCard card={card({ status: "done", input: {}, statusText: "" })} />));
    expect(dom.host.querySelector(".tool-status-text")?.textContent).toBe("");
  });
});

describe("MarkdownView", () => {
  it("shows remote images as placeholders until one is clicked, then loads this message's images", () => {
    const text = "![a](https://img.example/a.png)\n\ntext\n\n![b](https://img.example/b.png)";
    act(() => dom.root.render(<><MarkdownView text={text} /><MarkdownView text={"![c](https://other.example/c.png)"} /></>));
    expect(dom.host.querySelectorAll("img")).toHaveLength(0);
    const holders = dom.host.querySelectorAll<HTMLButtonElement>("[data-md-img]");
    expect(holders).toHaveLength(3);
    act(() => holders[0]!.click());
    const [first, second] = Array.from(dom.host.querySelectorAll(".md"));
    expect(Array.from(first!.querySelectorAll("img"), (i) => i.getAttribute("src"))).toEqual(["https://img.example/a.png", "https://img.example/b.png"]);
    expect(second!.querySelectorAll("img")).toHaveLength(0); // another message stays blocked
  });

  it("shows the live tail as plain text and renders it as Markdown once the message is final", () => {
    act(() => dom.root.render(<MarkdownView text={"# Title\n\nsome **bold"} live />));
    expect(dom.host.querySelector("h1")?.textContent).toBe("Title");
    expect(dom.host.querySelector(".md-live")?.textContent).toBe("some **bold");
    act(() => dom.root.render(<MarkdownView text={"# Title\n\nsome **bold**"} />));
    expect(dom.host.querySelector(".md-live")).toBeNull();
    expect(dom.host.querySelector("strong")?.textContent).toBe("bold");
  });

  it("groups completed blocks and keeps every block's content", () => {
    const n = BLOCK_GROUP * 2 + 3;
    const text = Array.from({ length: n }, (_, i) => `para ${i}`).join("\n\n") + "\n\ntail";
    act(() => dom.root.render(<MarkdownView text={text} live />));
    expect(dom.host.querySelectorAll(".md-group")).toHaveLength(2);
    expect(dom.host.querySelectorAll(".md-block:not(.md-open)")).toHaveLength(n);
    expect([...dom.host.querySelectorAll(".md-block")].map((b) => b.textContent?.trim())).toEqual([...Array.from({ length: n }, (_, i) => `para ${i}`), "tail"]);
  });

  it("streams a chunk list as plain segments, then renders the final text as Markdown in place", () => {
    let l = appendChunks(chunkList(), "# Title\n\n", "some ");
    act(() => dom.root.render(<MarkdownView text={l} live />));
    expect(dom.host.querySelector("h1")?.textContent).toBe("Title");
    expect(dom.host.querySelector(".md-live")?.textContent).toBe("some ");
    l = appendChunks(l, "**bold", "**");
    act(() => dom.root.render(<MarkdownView text={l} live />));
    expect(dom.host.querySelectorAll(".md-live-seg")).toHaveLength(1);
    expect(dom.host.querySelector(".md-live")?.textContent).toBe("some **bold**");
    const h1 = dom.host.querySelector("h1");
    act(() => dom.root.render(<MarkdownView text={"# Title\n\nsome **bold**"} />));
    expect(dom.host.querySelector(".md-live")).toBeNull();
    expect(dom.host.querySelector("strong")?.textContent).toBe("bold");
    expect(dom.host.querySelector("h1")).toBe(h1); // the completed block's DOM was kept
  });

  it("shows streaming thinking as plain text", () => {
    const l = appendChunks(chunkList("The user "), "wants <b>this</b>");
    act(() => dom.root.render(<LiveText className="msg-thinking-text" text={l} />));
    expect(dom.host.querySelector(".msg-thinking-text")?.textContent).toBe("The user wants <b>this</b>");
    expect(dom.host.querySelector("b")).toBeNull();
  });
});

