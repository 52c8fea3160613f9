// @vitest-environment jsdom
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ServerFrame, Session } from "../protocol";
import { approvalRequest, eventFrame, snapshotMidCall } from "../testing/frames";
import { mountChatPane } from "../testing/chatpane";
import { fakeViewport, mountPerTest } from "../testing/mount";
import { approvalTitle, notifyWaiting, useAttention, type NotificationApi } from "./attention";
import { AppController } from "./controller";
import { FakeHub, ScriptedTransport, session } from "../testing/fakes";
import type { AppInfo } from "./info";
import { PermissionRules, ruleLabel, withRule } from "./PermissionRules";
import { SettingsDialog, settingsPatch } from "./settings/SettingsDialog";
import { Sidebar } from "./Sidebar";
import { typeInto } from "../testing/input";

fakeViewport();

const dom = mountPerTest();
const SID = "01JZ7A0000000000000000SESS";
const WORKER = "01JZ7A000000000000000WORKR";
const TURN = "01JZ7A0000000000000000TRN1";
const MSG = "01JZ7A0000000000000000MSG1";

const ev = (type: string, payload: unknown, actor = "tool") => eventFrame(SID, TURN, type, payload, actor);

const request = approvalRequest;
const snapshot = (over: Partial<Session> = {}) => snapshotMidCall(session(SID, { approval_mode: "ask", ...over }), MSG, TURN);

async function setup(first: ServerFrame = snapshot(), over: Partial<Session> = {}, prepare: (hub: FakeHub) => void = () => {}) {
  const hub = new FakeHub();
  hub.sessions = [session(SID, { title: "Deploy", current_turn_id: TURN, approval_mode: "ask", ...over })];
  prepare(hub);
  return { hub, ...(await mountChatPane(dom.root, hub, SID, first)) };
}

const q = (sel: string) => document.querySelector<HTMLElement>(sel);
const key = (k: string) =>
  act(async () => {
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true }));
    await Promise.resolve();
  });

afterEach(() => {
  document.title = "Agent Hub";
});

describe("approvals in the chat", () => {
  it("a request shows the prompt on its card; y approves through approveTool; the card then says who answered", async () => {
    const { hub, ctl, push } = await setup();
    expect(q(".approval-prompt")).toBeNull();
    await push(
      ev("tool.called", { tool_use_id: "toolu_1", tool_name: "bash", input: { command: "make deploy" }, message_id: MSG, status_text: "Running: make deploy", summary: "" }),
      ev("tool.approval_requested", request("toolu_1")),
      ev("session.updated", { session: session(SID, { current_turn_id: TURN, pending_approvals: 1 }) }, "system"),
    );
    expect(q('.tool-card[data-approval="pending"] .approval-command')?.textContent).toBe("make deploy");
    expect(q('.approval-prompt[data-active="true"]')).not.toBeNull();
    await key("y");
    expect(hub.calls).toContainEqual(["approveTool", SID, "toolu_1", "once", null]);
    await push(ev("tool.approval_resolved", { tool_use_id: "toolu_1", decision: "once", by: "dashboard" }));
    expect(q(".approval-prompt")).toBeNull();
    expect(q('.tool-card[data-approval="once"] .approval-outcome')?.textContent).toBe("approved by dashboard");
    ctl.dispose();
  });

  it("a refused answer becomes a notice and the prompt stays", async () => {
    const { hub, ctl, push } = await setup();
    hub.approveTool = () => Promise.reject(new Error("INVALID_PARAMS: already answered"));
    await push(ev("tool.approval_requested", request("toolu_1")));
    await key("n");
    expect(ctl.store.getState().ui.notice).toBe("Could not answer the approval: INVALID_PARAMS: already answered");
    expect(q(".approval-prompt")).not.toBeNull();
    ctl.dispose();
  });

  it("a worker's request shows above the composer, opens the worker and answers in this session", async () => {
    const { hub, ctl, push } = await setup();
    await push(ev("tool.approval_requested", request("toolu_w", { worker_session_id: WORKER, tool_name: "write_file", risk: "medium", input: { path: "x.txt", content: "hi\n" }, always_rule: { tool: "write_file", action: "allow" } })));
    const strip = q('.worker-approvals .worker-approval[data-worker-session-id="' + WORKER + '"]');
    expect(strip?.querySelector(".diff-add .diff-text")?.textContent).toBe("hi");
    await key("a");
    expect(hub.calls).toContainEqual(["approveTool", SID, "toolu_w", "always", null, { tool: "write_file", action: "allow" }]);
    await push(ev("tool.approval_resolved", { tool_use_id: "toolu_w", decision: "always", by: "window", worker_session_id: WORKER }));
    expect(q(".worker-approvals")).toBeNull();
    ctl.dispose();
  });

  it("a reload mid-wait lists the waiting approvals after the snapshot and shows their prompts", async () => {
    const { hub, ctl } = await setup(snapshot({ pending_approvals: 1 }), { pending_approvals: 1 }, (h) => {
      h.pending = { [SID]: [request("toolu_1")] };
    });
    expect(hub.calls).toContainEqual(["listPendingApprovals", SID]);
    expect(q('.tool-card[data-approval="pending"] .approval-command')?.textContent).toBe("make deploy");
    expect(q('[data-testid="unlisted-approvals"]')).toBeNull();
    ctl.dispose();
  });

  it("without listPendingApprovals the page says a call waits, and does not ask again", async () => {
    const { hub, ctl } = await setup(snapshot({ pending_approvals: 1 }), { pending_approvals: 1 }, (h) => {
      h.pending = null;
    });
    expect(q('[data-testid="unlisted-approvals"]')?.textContent).toBe("1 tool call waits for approval; its prompt was sent before this page loaded.");
    await act(async () => ctl.loadApprovals(SID));
    expect(hub.calls.filter((c) => c[0] === "listPendingApprovals")).toHaveLength(1);
    ctl.dispose();
  });

  it("the mode switch calls setApprovalMode and shows the record's mode", async () => {
    const { hub, ctl, push } = await setup();
    expect(q('.mode-switch [aria-checked="true"] .mode-label')?.textContent).toBe("Ask");
    await act(async () => [...document.querySelectorAll<HTMLElement>(".mode-opt")].find((b) => b.querySelector(".mode-label")?.textContent === "Auto all")!.click());
    expect(hub.calls).toContainEqual(["setApprovalMode", SID, "auto-all"]);
    await push(ev("session.updated", { session: session(SID, { current_turn_id: TURN, approval_mode: "auto-all" }) }, "user"));
    expect(q(".mode-switch")?.getAttribute("data-mode")).toBe("auto-all");
    expect(q(".mode-switch")?.className).toContain("is-warning");
    ctl.dispose();
  });
});

function Attention({ ctl, setTitle }: { ctl: AppController; setTitle: (t: string) => void }) {
  useAttention(ctl, setTitle);
  return null;
}

describe("attention while calls wait", () => {
  it("badges the sidebar row and puts the count in the title", async () => {
    const { ctl, push } = await setup();
    const titles: string[] = [];
    act(() =>
      dom.root.render(
        <>
          <Sidebar ctl={ctl} onSettings={() => {}} theme="system" onTheme={() => {}} onHelp={() => {}} onCollapse={() => {}} searchRef={{ current: null }} />
          <Attention ctl={ctl} setTitle={(t) => titles.push(t)} />
        </>,
      ),
    );
    expect(q('[data-testid="approval-badge"]')).toBeNull();
    // The open session's title, marked busy while its turn runs.
    expect(document.title).toMatch(/^● Session \w+ — Agent Hub$/);
    await push(ev("session.updated", { session: session(SID, { title: "Deploy", current_turn_id: TURN, pending_approvals: 2 }) }, "system"));
    expect(q(`.side-row[data-session-id="${SID}"] [data-testid="approval-badge"]`)?.textContent).toBe("2");
    expect(document.title).toBe("(2) waiting for approval — ● Deploy — Agent Hub");
    expect(titles.at(-1)).toBe("(2) waiting for approval — ● Deploy — Agent Hub");
    await push(ev("session.updated", { session: session(SID, { title: "Deploy", current_turn_id: TURN }) }, "system"));
    expect(document.title).toBe("● Deploy — Agent Hub");
    expect(q('[data-testid="approval-badge"]')).toBeNull();
    ctl.dispose();
  });

  it("approvalTitle", () => {
    expect(approvalTitle("Agent Hub", 0)).toBe("Agent Hub");
    expect(approvalTitle("Agent Hub", 3)).toBe("(3) waiting for approval — Agent Hub");
  });

  /** A Notification double: records what it showed; permission as given. */
  function fakeApi(permission: NotificationPermission, asked: NotificationPermission = permission) {
    const shown: { title: string; body: string | undefined }[] = [];
    const requestPermission = vi.fn(() => Promise.resolve(asked));
    class Fake {
      static permission = permission;
      static requestPermission = requestPermission;
      onclick: (() => unknown) | null = null;
      constructor(title: string, options?: NotificationOptions) {
        shown.push({ title, body: options?.body });
      }
    }
    return { api: Fake as unknown as NotificationApi, shown, requestPermission };
  }

  function hiddenDoc(hidden: boolean): Document {
    return { hidden, defaultView: null } as unknown as Document;
  }

  it("notifies only while the page is hidden and notifications are (or become) granted; never throws", async () => {
    const granted = fakeApi("granted");
    expect(await notifyWaiting(1, hiddenDoc(false), granted.api)).toBe(false);
    expect(await notifyWaiting(2, hiddenDoc(true), granted.api)).toBe(true);
    expect(granted.shown).toEqual([{ title: "Agent Hub", body: "2 tool calls are waiting for approval" }]);

    const ask = fakeApi("default", "granted");
    expect(await notifyWaiting(1, hiddenDoc(true), ask.api)).toBe(true);
    expect(ask.requestPermission).toHaveBeenCalledOnce();
    expect(ask.shown[0]?.body).toBe("A tool call is waiting for approval");

    const refused = fakeApi("default", "denied");
    expect(await notifyWaiting(1, hiddenDoc(true), refused.api)).toBe(false);
    const denied = fakeApi("denied");
    expect(await notifyWaiting(1, hiddenDoc(true), denied.api)).toBe(false);
    expect(denied.requestPermission).not.toHaveBeenCalled();

    expect(await notifyWaiting(1, hiddenDoc(true), undefined)).toBe(false);
    const broken = { permission: "granted", requestPermission: () => Promise.reject(new Error("no")) } as unknown as NotificationApi; // not constructible
    expect(await notifyWaiting(1, hiddenDoc(true), broken)).toBe(false);
  });
});

describe("settings: approvals and workspace rules", () => {
  it("the patch carries the default approval mode when it changed", () => {
    expect(settingsPatch({ approval_mode: "ask" }, { approval_mode: "auto-edits" }, { anthropic: "", openai: "" })).toEqual({ approval_mode: "auto-edits" });
    expect(settingsPatch({ approval_mode: "ask", sandbox: "x" }, { approval_mode: "ask", sandbox: "x" }, { anthropic: "", openai: "" })).toEqual({});
  });

  it("withRule adds a rule (a prefix only for bash) and refuses a second one for the same tool and prefix", () => {
    const rules = [{ tool: "bash", prefix: "go test", action: "allow" }];
    expect(withRule(rules, { tool: "bash", prefix: " git status ", action: "allow" })).toEqual([...rules, { tool: "bash", prefix: "git status", action: "allow" }]);
    expect(withRule(rules, { tool: "edit_file", prefix: "ignored", action: "deny" })).toEqual([...rules, { tool: "edit_file", action: "deny" }]);
    expect(withRule(rules, { tool: "bash", prefix: "go test", action: "deny" })).toBe("There is already a rule for bash go test.");
    expect(ruleLabel({ tool: "*", action: "ask" })).toBe("* → ask");
  });

  it("lists, adds and removes the workspace's rules through set/getPermissionRules", async () => {
    const hub = new FakeHub();
    hub.rules["/w"] = [{ tool: "bash", prefix: "go test", action: "allow" }];
    await act(async () => dom.root.render(<PermissionRules hub={hub} workspace="/w" />));
    expect([...document.querySelectorAll(".rule")].map((r) => r.textContent)).toEqual(["bashgo testallow×"]);
    const input = q('input[aria-label="Command prefix"]') as HTMLInputElement;
    typeInto(input, "rm");
    const action = q('select[aria-label="Action"]') as HTMLSelectElement;
    act(() => {
      action.value = "deny";
      action.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await act(async () => [...document.querySelectorAll("button")].find((b) => b.textContent === "Add rule")!.click());
    expect(hub.calls.at(-1)).toEqual(["setPermissionRules", "/w", [{ tool: "bash", prefix: "go test", action: "allow" }, { tool: "bash", prefix: "rm", action: "deny" }]]);
    expect(document.querySelectorAll(".rule")).toHaveLength(2);
    await act(async () => q('button[aria-label="Remove rule bash go test → allow"]')!.click());
    expect(hub.rules["/w"]).toEqual([{ tool: "bash", prefix: "rm", action: "deny" }]);
    expect([...document.querySelectorAll(".rule")].map((r) => r.className)).toEqual(["rule rule-deny"]);
  });

  it("the dialog edits the default mode, lists the open session's workspace rules and shows the sandbox and key storage", async () => {
    const hub = new FakeHub();
    hub.sessions = [session(SID, { workspace_path: "/home/u/proj" })];
    hub.settings = { approval_mode: "ask", sandbox: "Landlock ABI 6: writes, network, signals", keys_stored_in: "system keyring", keys_error: "the anthropic key is gone: enter it again" };
    hub.rules["/home/u/proj"] = [{ tool: "*", action: "ask" }];
    const ctl = new AppController({ hub, pollMs: 0, transport: () => new ScriptedTransport(() => []) });
    await ctl.start(SID);
    const info: AppInfo = { name: "Agent Hub", version: "1", mode: "headless", data_dir: "/d", provider: { configured: true, providers: [], sources: [] }, model: "", dashboard_url: "", workspace: "/home/u/proj" };
    await act(async () => dom.root.render(<SettingsDialog hub={hub} ctl={ctl} info={info} onClose={() => {}} />));
    expect(q('[data-testid="rules-workspace"]')?.textContent).toBe("/home/u/proj");
    expect([...document.querySelectorAll(".rule")].map((r) => r.textContent)).toEqual(["*ask×"]);
    expect(q('[data-testid="sandbox-line"]')?.textContent).toBe("Bash sandboxLandlock ABI 6: writes, network, signals");
    expect(q('[data-testid="keys-line"]')?.textContent).toBe("API keys stored insystem keyring");
    expect(q(".settings-warning")?.textContent).toBe("the anthropic key is gone: enter it again");
    const mode = [...document.querySelectorAll<HTMLSelectElement>(".settings select")].find((el) => [...el.options].some((o) => o.value === "auto-edits"))!;
    act(() => {
      mode.value = "auto-all";
      mode.dispatchEvent(new Event("change", { bubbles: true }));
    });
    expect(mode.className).toBe("is-warning");
    await act(async () => document.querySelector<HTMLFormElement>("form.settings")!.requestSubmit());
    expect(hub.calls).toContainEqual(["updateSettings", { approval_mode: "auto-all" }]);
    ctl.dispose();
  });
});
