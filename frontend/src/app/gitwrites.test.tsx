// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { approvalRequest, eventFrame, snapshotMidCall } from "../testing/frames";
import { mountChatPane } from "../testing/chatpane";
import { fakeViewport, mountPerTest } from "../testing/mount";
import { AppController } from "./controller";
import { FakeHub, ScriptedTransport, session } from "../testing/fakes";
import type { AppInfo } from "./info";
import { PermissionRules } from "./PermissionRules";
import { SettingsDialog } from "./settings/SettingsDialog";

fakeViewport();

const dom = mountPerTest();
const SID = "01JZ7A0000000000000000SESS";
const TURN = "01JZ7A0000000000000000TRN1";
const MSG = "01JZ7A0000000000000000MSG1";
const q = (sel: string) => document.querySelector<HTMLElement>(sel);

async function chat() {
  const hub = new FakeHub();
  hub.sessions = [session(SID, { current_turn_id: TURN, approval_mode: "ask" })];
  const { ctl, push: pushFrames } = await mountChatPane(dom.root, hub, SID, snapshotMidCall(session(SID, { approval_mode: "ask" }), MSG, TURN));
  const push = (type: string, payload: unknown) => pushFrames(eventFrame(SID, TURN, type, payload, "tool"));
  return { hub, ctl, push };
}

describe("git writes", () => {
  it("a bash card in a repository offers git writes for the one call; ticked, the approval carries allow_git_writes", async () => {
    const { hub, ctl, push } = await chat();
    await push("tool.approval_requested", approvalRequest("toolu_1", { input: { command: "git commit -am fix" }, git_writes_offer: true }));
    const box = q('[data-testid="approval-git-writes"]') as HTMLInputElement;
    expect(box.checked).toBe(false);
    act(() => box.click());
    await act(async () => q(".approval-once")!.click());
    expect(hub.calls).toContainEqual(["approveTool", SID, "toolu_1", "once", null, true]);
    ctl.dispose();
  });

  it("without the offer there is no box, and an approval never carries git writes", async () => {
    const { hub, ctl, push } = await chat();
    await push("tool.approval_requested", approvalRequest("toolu_1"));
    expect(q('[data-testid="approval-git-writes"]')).toBeNull();
    await act(async () => q(".approval-once")!.click());
    expect(hub.calls).toContainEqual(["approveTool", SID, "toolu_1", "once", null]);
    ctl.dispose();
  });

  it("the workspace's rules hold the git-writes switch, stored through setGitWrites", async () => {
    const hub = new FakeHub();
    await act(async () => dom.root.render(<PermissionRules hub={hub} workspace="/w" />));
    const box = q('[data-testid="git-writes"]') as HTMLInputElement;
    expect(box.checked).toBe(false);
    await act(async () => box.click());
    expect(hub.calls.at(-1)).toEqual(["setGitWrites", "/w", true]);
    expect(box.checked).toBe(true);
  });

  it("Settings lists the sandbox's protections active on this machine", async () => {
    const hub = new FakeHub();
    hub.sessions = [session(SID, { workspace_path: "/home/u/proj" })];
    hub.settings = { sandbox: "bash sandbox: namespaces + Landlock", sandbox_protections: ["Landlock ABI 7: writes only in the workspace", "seccomp: no TIOCSTI"] };
    const ctl = new AppController({ hub, pollMs: 0, transport: () => new ScriptedTransport(() => []) });
    await ctl.start(SID);
    const info: AppInfo = { name: "Agent Hub", version: "1", mode: "headless", data_dir: "/d", provider: { configured: true, providers: [], sources: [] }, model: "", dashboard_url: "", workspace: "/home/u/proj" };
    await act(async () => dom.root.render(<SettingsDialog hub={hub} ctl={ctl} info={info} onClose={() => {}} />));
    expect([...document.querySelectorAll('[data-testid="sandbox-protections"] li')].map((li) => li.textContent)).toEqual([
      "Landlock ABI 7: writes only in the workspace",
      "seccomp: no TIOCSTI",
    ]);
    ctl.dispose();
  });
});
