// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import type { ApprovalAnswer, PermissionRule } from "../protocol";
import type { ToolCardState } from "../state";
import { newToolCard } from "../state/history";
import { newDelegation } from "../state/stream";
import { DelegationCard } from "./DelegationCard";
import { mountPerTest } from "../testing/mount";
import { ApprovalModeSwitch, approvalModeOf } from "./ApprovalModeSwitch";
import { approvalOutcome, isTextField, shortcutAnswer, type ShortcutKey } from "./ApprovalPrompt";
import { MAX_DIFF_CELLS, addedLines, diffLines, splitLines } from "./diff";
import { ToolCard } from "./ToolCard";
import { typeInto } from "../testing/input";

const dom = mountPerTest();

/** Sets a form field's value as typing or choosing would. */
function setField(el: HTMLInputElement | HTMLSelectElement, value: string) {
  const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value")!.set!.call(el, value);
  el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? "change" : "input", { bubbles: true }));
}

const shownRule = { tool: "bash", command: "rm -rf build", action: "allow" };

function waiting(over: Partial<ToolCardState> = {}): ToolCardState {
  return {
    ...newToolCard("toolu_1", "bash", "m1", "t1"),
    status: "running",
    input: { command: "rm -rf build && make" },
    summary: "```bash\nrm -rf build && make\n```",
    approval: { request: { risk: "high", reason: "bash asks by default", summary: "", alwaysRule: shownRule, order: "01" }, resolution: null },
    ...over,
  };
}

/** An onAnswer spy that resolves as the hub would. */
function answers(ok = true) {
  return vi.fn<(a: ApprovalAnswer, m: string, r?: PermissionRule) => Promise<boolean>>(() => Promise.resolve(ok));
}

const press = (key: string, init: KeyboardEventInit = {}, target: EventTarget = document.body) =>
  act(() => {
    target.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init }));
  });

const q = <T extends Element = HTMLElement>(sel: string) => dom.host.querySelector<T & HTMLElement>(sel);

describe("diff", () => {
  it("splits lines without a phantom last line", () => {
    expect(splitLines("")).toEqual([]);
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\n\nb")).toEqual(["a", "", "b"]);
  });

  it("keeps common lines as context and marks the change", () => {
    const d = diffLines("func a() {\n\treturn 1\n}\n", "func a() {\n\tx := 2\n\treturn x\n}\n");
    expect(d).toEqual([
      { kind: "context", text: "func a() {" },
      { kind: "del", text: "\treturn 1" },
      { kind: "add", text: "\tx := 2" },
      { kind: "add", text: "\treturn x" },
      { kind: "context", text: "}" },
    ]);
  });

  it("finds common lines in the middle of a change", () => {
    const d = diffLines("a\nb\nc\nd", "x\nb\nc\ny");
    expect(d.map((l) => `${l.kind[0]}${l.text}`)).toEqual(["da", "ax", "cb", "cc", "dd", "ay"]);
  });

  it("gives up searching huge inputs: old removed, new added", () => {
    const n = Math.ceil(Math.sqrt(MAX_DIFF_CELLS)) + 2;
    const a = Array.from({ length: n }, (_, i) => `a${i}`).join("\n");
    const b = Array.from({ length: n }, (_, i) => `b${i}`).join("\n");
    const d = diffLines(a, b);
    expect(d).toHaveLength(2 * n);
    expect(d[0]!.kind).toBe("del");
    expect(d[n]!.kind).toBe("add");
  });

  it("a written file is all added", () => {
    expect(addedLines("package main\n\nfunc main() {}\n")).toEqual([
      { kind: "add", text: "package main" },
      { kind: "add", text: "" },
      { kind: "add", text: "func main() {}" },
    ]);
  });
});

describe("the prompt on a tool card", () => {
  it("shows the full command, the risk and the reason, and answers with the buttons", async () => {
    const onAnswer = answers();
    act(() => dom.root.render(<ToolCard card={waiting()} onAnswer={onAnswer} active />));
    expect(q("[data-approval]")?.getAttribute("data-approval")).toBe("pending");
    expect(q(".tool-badge")?.textContent).toBe("waiting for approval");
    expect(q(".approval-command")?.textContent).toBe("rm -rf build && make");
    expect(q(".approval-risk")?.textContent).toBe("high risk");
    expect(q(".approval-reason")?.textContent).toBe("bash asks by default");
    expect(q(".tool-summary")).toBeNull(); // the prompt shows the command instead
    expect([...dom.host.querySelectorAll(".approval-actions kbd")].map((k) => k.textContent)).toEqual(["y", "a", "n"]);
    await act(async () => q(".approval-always")!.click());
    expect(onAnswer).toHaveBeenCalledWith("always", "", shownRule);
    expect(q<HTMLButtonElement>(".approval-once")!.disabled).toBe(true); // answered: no second answer
  });

  it("shows the rule Always stores; an edited rule is what Always sends", async () => {
    const onAnswer = answers();
    act(() => dom.root.render(<ToolCard card={waiting()} onAnswer={onAnswer} active />));
    expect(q(".approval-rule-text")?.textContent).toBe("bash: exactly rm -rf build");
    await act(async () => [...dom.host.querySelectorAll<HTMLButtonElement>(".approval-rule button")].find((b) => b.textContent === "Edit")!.click());
    const kind = q<HTMLSelectElement>('select[aria-label="Rule kind"]')!;
    const words = q<HTMLInputElement>('input[aria-label="Rule words"]')!;
    expect(words.value).toBe("rm -rf build");
    act(() => setField(kind, "prefix"));
    act(() => setField(words, "rm"));
    await act(async () => q(".approval-always")!.click());
    expect(onAnswer).toHaveBeenCalledWith("always", "", { tool: "bash", prefix: "rm", action: "allow" });
  });

  it("without a rule says Always is not available, and neither the button nor a answers always", async () => {
    const onAnswer = answers();
    const card = waiting();
    const { alwaysRule: _, ...request } = card.approval!.request!;
    act(() => dom.root.render(<ToolCard card={{ ...card, approval: { request, resolution: null } }} onAnswer={onAnswer} active />));
    expect(q(".approval-rule-none")?.textContent).toContain("“Always” is not available for this call");
    expect(q<HTMLButtonElement>(".approval-always")!.disabled).toBe(true);
    await act(async () => press("a"));
    expect(onAnswer).not.toHaveBeenCalled();
    expect(approvalOutcome({ decision: "always", by: "window", message: null, rule: { tool: "bash", prefix: "go test", action: "allow" } })).toBe(
      "always allowed by window (bash: commands starting with go test)",
    );
  });

  it("renders an edit as a coloured diff and a written file as added lines", () => {
    const edit = waiting({ toolName: "edit_file", input: { path: "main.go", old: "a := 1\nb := 2\n", new: "a := 1\nb := 3\n" } });
    act(() => dom.root.render(<ToolCard card={edit} />));
    expect(q(".diff-path > span")?.textContent).toBe("main.go");
    const kinds = [...dom.host.querySelectorAll(".diff-line")].map((l) => `${l.className.replace("diff-line diff-", "")}:${[...l.querySelectorAll(".diff-no")].map((n) => n.textContent).join("/")}:${l.querySelector(".diff-mark")?.textContent}${l.querySelector(".diff-text")?.textContent}`);
    expect(kinds).toEqual(["context:1/1: a := 1", "del:2/:-b := 2", "add:/2:+b := 3"]);

    const write = waiting({ toolName: "write_file", input: { path: "new.txt", content: "one\ntwo\n" } });
    act(() => dom.root.render(<ToolCard card={write} />));
    expect(q(".diff-path > span")?.textContent).toBe("new.txt (whole file)");
    expect([...dom.host.querySelectorAll(".diff-add .diff-text")].map((l) => l.textContent)).toEqual(["one", "two"]);
    expect(dom.host.querySelectorAll(".diff-del")).toHaveLength(0);
  });

  it("falls back to the request's Markdown for other tools", () => {
    const card = waiting({ toolName: "delegate", input: { task: "x" }, approval: { request: { risk: "medium", reason: "delegate asks by default", summary: "**Delegate**: x", order: "" }, resolution: null } });
    act(() => dom.root.render(<ToolCard card={card} />));
    expect(q(".approval-summary strong")?.textContent).toBe("Delegate");
    expect(q(".approval-risk")?.className).toContain("risk-medium");
  });

  it("sends the optional message with the answer; Enter in the field denies with it", async () => {
    const onAnswer = answers();
    act(() => dom.root.render(<ToolCard card={waiting()} onAnswer={onAnswer} active />));
    const field = q<HTMLInputElement>(".approval-message")!;
    typeInto(field, "  use make clean  ");
    await act(async () => field.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true })));
    expect(onAnswer).toHaveBeenCalledWith("deny", "use make clean");
  });

  it("a refused answer enables the buttons again", async () => {
    const onAnswer = answers(false);
    act(() => dom.root.render(<ToolCard card={waiting()} onAnswer={onAnswer} active />));
    await act(async () => q(".approval-once")!.click());
    expect(q<HTMLButtonElement>(".approval-once")!.disabled).toBe(false);
  });

  it("says who answered and how", () => {
    const resolved = (decision: string, by: string, message: string | null = null) =>
      waiting({ status: "done", approval: { request: null, resolution: { decision, by, message } } });
    act(() => dom.root.render(<ToolCard card={resolved("once", "dashboard")} />));
    expect(q(".approval-prompt")).toBeNull();
    expect(q("[data-approval]")?.getAttribute("data-approval")).toBe("once");
    expect(q(".approval-outcome")?.textContent).toBe("approved by dashboard");
    expect(approvalOutcome({ decision: "deny", by: "window", message: "not in prod" })).toBe("denied by window: not in prod");
    expect(approvalOutcome({ decision: "always", by: "window", message: null })).toBe("always allowed by window");
    expect(approvalOutcome({ decision: "cancelled", by: "restart", message: null })).toBe("cancelled (restart)");
    expect(approvalOutcome({ decision: "cancelled", by: "cancel", message: null })).toBe("cancelled (turn cancelled)");
  });
});

describe("a delegate call's approval", () => {
  it("shows on its delegation card once the worker started", () => {
    act(() => dom.root.render(<DelegationCard card={{ ...newDelegation("toolu_d"), task: "Audit" }} approval={{ decision: "once", by: "window", message: null }} />));
    expect(q(".deleg-card .approval-outcome")?.textContent).toBe("approved by window");
    act(() => dom.root.render(<DelegationCard card={{ ...newDelegation("toolu_d"), task: "Audit" }} />));
    expect(q(".approval-outcome")).toBeNull();
  });
});

describe("keyboard shortcuts", () => {
  it("y, a and n answer the active prompt while focus is not in a text field", async () => {
    const onAnswer = answers(false); // refused, so the same prompt takes the next key
    act(() => dom.root.render(<ToolCard card={waiting()} onAnswer={onAnswer} active />));
    for (const [key, answer] of [["y", "once"], ["a", "always"], ["n", "deny"], ["Y", "once"]] as const) {
      onAnswer.mockClear();
      await act(async () => press(key));
      if (answer === "always") expect(onAnswer).toHaveBeenCalledWith(answer, "", shownRule);
      else expect(onAnswer).toHaveBeenCalledWith(answer, "");
    }
  });

  it("stay off in text fields, with modifiers and for an inactive prompt (dialogs: shortcuts.test.tsx)", async () => {
    const onAnswer = answers(false);
    const textarea = document.createElement("textarea");
    document.body.append(textarea);
    act(() => dom.root.render(<ToolCard card={waiting()} onAnswer={onAnswer} active />));
    await act(async () => press("y", {}, textarea));
    await act(async () => press("y", {}, q(".approval-message")!));
    await act(async () => press("y", { ctrlKey: true }));
    await act(async () => press("x"));
    act(() => dom.root.render(<ToolCard card={waiting()} onAnswer={onAnswer} active={false} />));
    await act(async () => press("y"));
    expect(onAnswer).not.toHaveBeenCalled();
    expect(q(".approval-actions kbd")).toBeNull(); // no shortcut hints on an inactive prompt
    textarea.remove();
  });

  it("shortcutAnswer and isTextField", () => {
    const key = (k: string, target: EventTarget | null = document.body): ShortcutKey => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, repeat: false, target });
    expect(shortcutAnswer(key("n"))).toBe("deny");
    expect(shortcutAnswer({ ...key("y"), repeat: true })).toBeNull();
    const checkbox = Object.assign(document.createElement("input"), { type: "checkbox" });
    expect(isTextField(checkbox)).toBe(false);
    expect(isTextField(document.createElement("input"))).toBe(true);
    expect(isTextField(document.createElement("select"))).toBe(true);
    expect(isTextField(document.createElement("button"))).toBe(false);
    expect(isTextField(null)).toBe(false);
  });
});

describe("ApprovalModeSwitch", () => {
  it("shows the mode, marks auto-all as a warning and reports a change", () => {
    const onChange = vi.fn();
    act(() => dom.root.render(<ApprovalModeSwitch mode="ask" onChange={onChange} />));
    const radios = [...dom.host.querySelectorAll<HTMLButtonElement>("[role=radio]")];
    expect(radios.map((r) => r.getAttribute("aria-checked"))).toEqual(["true", "false", "false", "false"]);
    act(() => radios[0]!.click()); // already on
    act(() => radios[2]!.click());
    expect(onChange.mock.calls).toEqual([["auto-all"]]);
    act(() => dom.root.render(<ApprovalModeSwitch mode="auto-all" onChange={onChange} />));
    expect(q(".mode-switch")?.className).toContain("is-warning");
    expect(q(".mode-opt.is-on")?.textContent).toMatch(/^⚠ /);
    expect(q(".mode-opt.is-on .mode-label")?.textContent).toBe("Auto all");
    expect(q(".mode-opt.is-on .mode-label-short")?.textContent).toBe("All"); // a narrow header shows this one
    expect(approvalModeOf(undefined)).toBe("ask");
    expect(approvalModeOf("auto-edits")).toBe("auto-edits");
    expect(approvalModeOf("bogus")).toBe("ask");
  });
});
