// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { newToolCard } from "../state/history";
import type { ChatMessage, DelegationCardState, ToolCardState } from "../state";
import { newDelegation } from "../state/stream";
import { mountPerTest } from "../testing/mount";
import * as composerModule from "./Composer";
import { Composer } from "./Composer";
import { DelegationCard, delegationStatus } from "./DelegationCard";
import { numberLines } from "./DiffView";
import { diffLines } from "./diff";
import { fileBlockInfo } from "./Attachments";
import { isLongText, messageMarkdown, MessageView, usageCost } from "./MessageView";
import { matchingLines, OutputPanel, readAll, type ReadOutput } from "./OutputPanel";
import { CompactionNotice } from "./Status";
import { editLine, summaryHead, ToolCard } from "./ToolCard";
import { createAppStore } from "../state";
import { typeInto } from "../testing/input";
import { renderInSession } from "../testing/session";

const dom = mountPerTest();
const q = (sel: string) => dom.host.querySelector(sel) ?? document.querySelector(sel);

function message(over: Partial<ChatMessage>): ChatMessage {
  return { id: "m1", role: "assistant", content: [], status: "complete", stopReason: null, usage: null, model: null, turnId: "t1", offset: 1, createdAt: null, annotation: null, ...over };
}

/** A ReadOutput over text, in slices of at most n characters. */
function reader(text: string, n = 7): ReadOutput {
  return (offset, length = n) => {
    const slice = text.slice(offset, offset + Math.min(n, length));
    const next = offset + slice.length;
    return Promise.resolve({ text: slice, next, size: text.length, eof: next >= text.length });
  };
}

describe("the tool card shows its output once", () => {
  it("an MCP result once; while it runs, its arguments, and its progress apart (issue 34 row 3)", () => {
    const args = "Calls **read_text_file** on MCP server **fs** with:\n\n```json\n{\n  \"path\": \"notes.txt\"\n}\n```\n";
    const running: ToolCardState = { ...newToolCard("tu", "fs__read_text_file", "m", "t"), status: "running", input: { path: "notes.txt" }, summary: args, liveOutput: "progress 1/3\n" };
    act(() => dom.root.render(<ToolCard card={running} />));
    expect(dom.host.querySelector(".tool-summary")?.textContent).toContain('"path": "notes.txt"');
    expect(dom.host.querySelector(".tool-progress .tool-output-label")?.textContent).toBe("Progress");
    const result = "first line\n\nsecond paragraph\n";
    const done: ToolCardState = { ...running, status: "done", summary: "```text\nfirst line\n\nsecond paragraph\n```\n", output: result };
    act(() => dom.root.render(<ToolCard card={done} />));
    expect(dom.host.querySelectorAll(".tool-summary")).toHaveLength(0);
    expect(dom.host.querySelectorAll(".tool-progress")).toHaveLength(0);
    expect(dom.host.textContent!.split("first line")).toHaveLength(2); // once
  });

  it("keeps the summary's head line, never its output block or server path", () => {
    const summary = "**Exit code:** 0 · 3 lines\n\nLast 3 lines of output:\n\n```\na\nb\nc\n```\n\nFull output: `/data/tool-output/s/t.log`\n";
    expect(summaryHead(summary)).toBe("**Exit code:** 0 · 3 lines");
    const card: ToolCardState = { ...newToolCard("tu", "bash", "m", "t"), status: "done", input: { command: "seq 3" }, summary, output: "a\nb\nc\n" };
    act(() => dom.root.render(<ToolCard card={card} />));
    expect(dom.host.querySelectorAll(".tool-summary pre")).toHaveLength(0);
    expect(dom.host.textContent).not.toContain("tool-output/");
    expect(dom.host.querySelectorAll("pre.tool-output-text")).toHaveLength(1);
  });

  it("shows a finished edit as a numbered diff from the line the edit reports", () => {
    expect(editLine("Edited a.txt: replaced 1 line with 1 line at line 12.\n")).toBe(12);
    const card: ToolCardState = { ...newToolCard("tu", "edit_file", "m", "t"), status: "done", input: { path: "a.txt", old: "x\ny", new: "x\nz" }, output: "Edited a.txt: replaced 2 lines with 2 lines at line 12.\n" };
    act(() => dom.root.render(<ToolCard card={card} />));
    const rows = [...dom.host.querySelectorAll(".diff-line")].map((l) => [...l.querySelectorAll(".diff-no")].map((n) => n.textContent).join("/") + l.querySelector(".diff-mark")!.textContent);
    expect(rows).toEqual(["12/12 ", "13/-", "/13+"]);
    expect(dom.host.querySelector("pre.tool-output-text")).toBeNull(); // the diff is the output
  });

  it("numbers diff lines in the old and the new file", () => {
    expect(numberLines(diffLines("a\nb\nc\n", "a\nc\nd\n"), 5).map((l) => [l.kind, l.oldNo, l.newNo])).toEqual([
      ["context", 5, 5],
      ["del", 6, null],
      ["context", 7, 6],
      ["add", null, 7],
    ]);
  });

  it("opens the full output from the hub in a virtualised, searchable panel", async () => {
    const text = Array.from({ length: 5000 }, (_, i) => `row ${i + 1}`).join("\n") + "\n";
    expect((await readAll(reader(text, 1000))).text).toBe(text);
    expect(matchingLines(["Alpha", "beta", "ALPHABET"], "alpha")).toEqual([0, 2]);
    await act(async () => dom.root.render(<OutputPanel title="bash: seq" read={reader(text, 4096)} onClose={() => {}} />));
    await act(async () => {
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(q('[data-testid="output-matches"]')?.textContent).toBe("5,000 lines");
    expect(document.querySelectorAll(".out-panel-line").length).toBeLessThan(200);
  });

  it("offers the full output only where a session can read it", () => {
    const long = Array.from({ length: 40 }, (_, i) => `l${i}`).join("\n");
    const card: ToolCardState = { ...newToolCard("tu", "bash", "m", "t"), status: "done", input: { command: "x" }, output: long };
    act(() => dom.root.render(<ToolCard card={card} />));
    expect(q('[data-testid="full-output"]')).toBeNull();
    const read = reader(long);
    const session = { store: createAppStore(), sessionId: "s", readToolOutput: (_id: string, offset: number, length?: number) => read(offset, length) };
    renderInSession(dom.root, <ToolCard card={card} />, session);
    expect(q('[data-testid="full-output"]')).not.toBeNull();
  });
});

describe("messages", () => {
  it("copies as Markdown, collapses long user text, shows — for an unknown price", () => {
    const m = message({ content: [{ type: "thinking", thinking: "hmm" }, { type: "text", text: "# Hi" }, { type: "toolCall", id: "x", name: "bash", arguments: {} }, { type: "text", text: "done" }] });
    expect(messageMarkdown(m)).toBe("# Hi\n\ndone");
    expect(isLongText("a\n".repeat(5))).toBe(false);
    expect(isLongText("a\n".repeat(20))).toBe(true);
    expect(isLongText("x".repeat(2000))).toBe(true);
    expect(usageCost({ input_tokens: 10, output_tokens: 2, cost_usd: 0 })).toBe("—");
    expect(usageCost({ input_tokens: 0, output_tokens: 0, cost_usd: 0 })).toBe("$0.0000");
    const user = message({ role: "user", content: [{ type: "text", text: "line\n".repeat(30) }] });
    const session = { store: createAppStore(), sessionId: "s" };
    renderInSession(dom.root, <MessageView message={user} />, session);
    expect(q(".msg-user-wrap.is-collapsed")).not.toBeNull();
    act(() => (q(".msg-more") as HTMLButtonElement).click());
    expect(q(".msg-user-wrap.is-collapsed")).toBeNull();
  });

  it("streams thinking live with a timer, then collapses it to Thought for N s", () => {
    const session = { store: createAppStore(), sessionId: "s" };
    const live = message({ status: "streaming", content: [{ type: "thinking", thinking: "planning" }], thinkingTime: { startedAt: new Date().toISOString(), endedAt: null } });
    const render = (m: ChatMessage) =>
      renderInSession(dom.root, <MessageView message={m} />, session);
    render(live);
    expect(q('[data-testid="thinking-live"] .thinking-timer')?.textContent).toMatch(/^\d+ s$/);
    render({ ...live, status: "complete", content: [...live.content, { type: "text", text: "ok" }], thinkingTime: { startedAt: "2026-01-01T00:00:00.000Z", endedAt: "2026-01-01T00:00:12.400Z" } });
    expect(q('[data-testid="thinking"] summary')?.textContent).toBe("Thought for 12 s");
  });
});

describe("the delegation card", () => {
  const base: DelegationCardState = { ...newDelegation("tu"), task: "count", workerSessionId: "w1" };
  it("says what the worker does, shows the result once and Cancelled after a Stop", () => {
    expect(delegationStatus({ ...base, workerSessionId: null, statusText: "" })).toBe("Starting sub-agent…");
    expect(delegationStatus({ ...base, workerOutput: "partial" })).toBe("Worker is writing its answer…");
    act(() => dom.root.render(<DelegationCard card={{ ...base, status: "done", workerOutput: "the answer", result: "the answer" }} />));
    expect(dom.host.textContent?.split("the answer").length).toBe(2); // once
    act(() => dom.root.render(<DelegationCard card={{ ...base, status: "cancelled", failureMode: "cancelled_by_user", failureMessage: "cancelled" }} />));
    expect(q('[data-testid="delegation-status"]')?.textContent).toBe("Cancelled");
    expect(dom.host.textContent).not.toContain("cancelled_by_user");
  });
});

describe("compaction notices", () => {
  const last = { removed: 0, kept: 4, tokensRemoved: 0, tokensKept: 900, reason: "tokens", contextStartOffset: 0, error: null };
  it("say when nothing was compacted and when the summary failed, as warnings", () => {
    const state = { inProgress: false, trigger: null, estimatedTokens: null, contextWindow: null };
    act(() => dom.root.render(<CompactionNotice compaction={{ ...state, last }} />));
    expect(q('[data-testid="compaction"]')?.getAttribute("data-state")).toBe("nothing");
    act(() => dom.root.render(<CompactionNotice compaction={{ ...state, last: { ...last, removed: 3, tokensRemoved: 500, error: "529 overloaded" } }} />));
    expect(q('[data-testid="compaction"]')?.getAttribute("data-state")).toBe("failed");
    expect(q('[data-testid="compaction"]')?.textContent).toContain("529 overloaded");
  });
});

describe("the composer", () => {
  it("puts the text back when sending failed", async () => {
    act(() => dom.root.render(<Composer busy={false} queued={[]} onSend={() => Promise.resolve(false)} onCancel={() => {}} />));
    const ta = dom.host.querySelector("textarea")!;
    typeInto(ta, "keep me");
    await act(async () => {
      ta.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    });
    expect(ta.value).toBe("keep me");
  });
});

describe("@-mentions", () => {
  it("finds the mention before the caret", () => {
    const { mentionAt } = composerModule;
    expect(mentionAt("see @no", 7)).toEqual({ query: "no", start: 4 });
    expect(mentionAt("@", 1)).toEqual({ query: "", start: 0 });
    expect(mentionAt("mail me@x.org", 13)).toBeNull();
    expect(mentionAt("see @no and", 11)).toBeNull();
  });

  it("completes folder paths: arrows choose, Enter inserts, the message is unchanged otherwise", async () => {
    const asked: string[] = [];
    const complete = (q: string) => (asked.push(q), Promise.resolve(["a/notes.txt", "b/notes.md"]));
    act(() => dom.root.render(<Composer busy={false} queued={[]} onSend={() => {}} onCancel={() => {}} complete={complete} />));
    const ta = dom.host.querySelector("textarea")!;
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!.set!;
    act(() => {
      setter.call(ta, "read @no");
      ta.setSelectionRange(8, 8);
      ta.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await act(async () => {
      await new Promise((r) => setTimeout(r, composerModule.MENTION_DEBOUNCE_MS + 30));
    });
    expect(asked).toEqual(["no"]);
    expect([...dom.host.querySelectorAll('[role="option"]')].map((o) => o.textContent)).toEqual(["a/notes.txt", "b/notes.md"]);
    const key = (k: string) => act(() => void ta.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true })));
    key("ArrowDown");
    expect(dom.host.querySelector('[aria-selected="true"]')?.textContent).toBe("b/notes.md");
    key("Enter");
    expect(ta.value).toBe("read @b/notes.md ");
    expect(dom.host.querySelector('[role="listbox"]')).toBeNull();
  });

  it("shows an attached file as a chip, not its content", () => {
    expect(fileBlockInfo('<file path="docs/plan.md" bytes="19">\nStep one\n</file>')).toEqual({ path: "docs/plan.md", bytes: 19, cut: false, uploaded: false });
    expect(fileBlockInfo('<file name="notes.md" bytes="7">\nremember\n</file>')).toEqual({ path: "notes.md", bytes: 7, cut: false, uploaded: true });
    expect(fileBlockInfo("plain text")).toBeNull();
    const session = { store: createAppStore(), sessionId: "s" };
    const m = message({ role: "user", content: [{ type: "text", text: "Follow @docs/plan.md" }, { type: "text", text: '<file path="docs/plan.md" bytes="19">\nStep one\n</file>' }] });
    renderInSession(dom.root, <MessageView message={m} />, session);
    expect(q('[data-testid="attached-file"]')?.textContent?.trim()).toBe("docs/plan.md · 19 B");
    expect(dom.host.textContent).not.toContain("Step one");
    expect(messageMarkdown(m)).toBe("Follow @docs/plan.md");
  });
});

describe("a retried answer says so", () => {
  it("shows retried N× with the reason under the message, the provider's words on hover", () => {
    const m = message({ content: [{ type: "text", text: "The retried answer." }], retries: { count: 2, error_class: "overloaded", error: "Anthropic: Overloaded" } });
    renderInSession(dom.root, <MessageView message={m} />, { store: createAppStore(), sessionId: "s" });
    const note = q('[data-testid="msg-retries"]');
    expect(note?.textContent).toBe("retried 2× (overloaded)");
    expect(note?.getAttribute("title")).toBe("Anthropic: Overloaded");
  });
});
