// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { mountPerTest } from "../testing/mount";
import { FakeHub, session } from "../testing/fakes";
import { SessionSandbox, sandboxEnforced } from "./SessionSandbox";

const dom = mountPerTest();
const SID = "01JZ7A0000000000000000SBX1";
const ENFORCED = "bash sandbox: writes confined to the workspace, temp and cache dirs (Landlock ABI 7; network rules available)";

function boxes(): HTMLInputElement[] {
  return [...dom.host.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')];
}

describe("SessionSandbox", () => {
  it("tells an enforcing kernel from one that enforces nothing", () => {
    expect(sandboxEnforced(ENFORCED)).toBe(true);
    expect(sandboxEnforced("bash sandbox: nothing enforced (this kernel has no Landlock) — tool approvals are the only guard")).toBe(false);
    expect(sandboxEnforced("bash sandbox: no sandbox on this system (Windows): bash runs with your rights — tool approvals are the only guard")).toBe(false);
    expect(sandboxEnforced("bash sandbox: off (--sandbox off) — tool approvals are the only guard")).toBe(false);
    expect(sandboxEnforced(undefined)).toBe(false);
  });

  it("sets the session's options through setSandboxOptions and shows what the hub stored", async () => {
    const hub = new FakeHub();
    hub.sessions = [session(SID)];
    await act(async () => dom.root.render(<SessionSandbox hub={hub} session={hub.sessions[0]!} line={ENFORCED} />));
    const [reads, network] = boxes();
    expect(reads!.checked).toBe(false);
    expect(network!.checked).toBe(true);
    await act(async () => reads!.click());
    expect(hub.calls.at(-1)).toEqual(["setSandboxOptions", SID, true, true]);
    await act(async () => boxes()[1]!.click());
    expect(hub.calls.at(-1)).toEqual(["setSandboxOptions", SID, true, false]);
    expect(boxes().map((b) => b.checked)).toEqual([true, false]);
    expect(dom.host.textContent).toContain("next command");
  });

  it("is disabled, and says so, where nothing is enforced", async () => {
    const hub = new FakeHub();
    hub.sessions = [session(SID, { sandbox_no_network: true })];
    await act(async () => dom.root.render(<SessionSandbox hub={hub} session={hub.sessions[0]!} line="bash sandbox: off (--sandbox off)" />));
    expect(boxes().every((b) => b.disabled)).toBe(true);
    expect(boxes()[1]!.checked).toBe(false);
    expect(dom.host.textContent).toContain("approvals are the guard");
  });
});
