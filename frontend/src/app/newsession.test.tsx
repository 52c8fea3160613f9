// @vitest-environment jsdom
// The new-session view when the hub offers no folder (a desktop launch
// without --workspace starts in $HOME, which is never assumed): the first
// message asks for a folder — the native dialog in the window — and sends
// nothing without one; a folder offered is sent as chosen.
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import { mountPerTest } from "../testing/mount";
import { AppController } from "./controller";
import { FakeHub, ScriptedTransport, manualScheduler, session } from "../testing/fakes";
import { NewSession, lastFolder } from "./NewSession";

const dom = mountPerTest();

function controller() {
  const clock = manualScheduler();
  const ctl = new AppController({ hub: new FakeHub(), transport: () => new ScriptedTransport(() => []), schedule: clock.schedule, pollMs: 0 });
  const sendNew = vi.spyOn(ctl, "sendNew").mockResolvedValue(true);
  return { ctl, sendNew };
}

/** Types text into the composer and presses Enter. */
async function send(text: string) {
  const ta = dom.host.querySelector("textarea")!;
  const setter = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value")!.set!;
  await act(async () => {
    setter.call(ta, text);
    ta.dispatchEvent(new Event("input", { bubbles: true }));
  });
  await act(async () => {
    ta.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
  });
}

describe("a new session without a default folder", () => {
  it("asks for one with the native dialog when the first message is sent, and sends it", async () => {
    const { ctl, sendNew } = controller();
    const chooseFolder = vi.fn(() => Promise.resolve("/home/u/project"));
    await act(async () => dom.root.render(<NewSession ctl={ctl} defaultModel="m" defaultWorkspace="" chooseFolder={chooseFolder} />));
    expect(dom.host.querySelector(".needs-folder")).not.toBeNull();
    expect(dom.host.querySelector<HTMLInputElement>(".session-folder input")!.value).toBe("");
    await send("hello");
    expect(chooseFolder).toHaveBeenCalledTimes(1);
    expect(sendNew).toHaveBeenCalledWith("hello", { model: "", workspace_path: "/home/u/project" }, []);
    expect(dom.host.querySelector<HTMLInputElement>(".session-folder input")!.value).toBe("/home/u/project");
  });

  it("sends nothing when the dialog is cancelled, or where there is none (the dashboard)", async () => {
    for (const chooseFolder of [vi.fn(() => Promise.resolve("")), undefined]) {
      const { ctl, sendNew } = controller();
      await act(async () => dom.root.render(<NewSession ctl={ctl} defaultModel="m" defaultWorkspace="" chooseFolder={chooseFolder} />));
      await send("hello");
      expect(sendNew).not.toHaveBeenCalled();
      expect(ctl.store.getState().ui.notice).toContain("Choose the folder");
    }
  });

  it("sends the folder offered (the one chosen last) without asking", async () => {
    const { ctl, sendNew } = controller();
    const chooseFolder = vi.fn(() => Promise.resolve("/elsewhere"));
    await act(async () => dom.root.render(<NewSession ctl={ctl} defaultModel="m" defaultWorkspace="/home/u/last" chooseFolder={chooseFolder} />));
    expect(dom.host.querySelector(".needs-folder")).toBeNull();
    await send("hi");
    expect(chooseFolder).not.toHaveBeenCalled();
    expect(sendNew).toHaveBeenCalledWith("hi", { model: "", workspace_path: "/home/u/last" }, []);
  });

  it("offers the folder of the newest top-level session", () => {
    expect(lastFolder([])).toBe("");
    expect(
      lastFolder([
        session("a", { workspace_path: "/old", created_at: "2026-01-01T00:00:00Z" }),
        session("w", { workspace_path: "/worker", created_at: "2026-03-01T00:00:00Z", parent_session_id: "b" }),
        session("b", { workspace_path: "/new", created_at: "2026-02-01T00:00:00Z" }),
      ]),
    ).toBe("/new");
  });
});
