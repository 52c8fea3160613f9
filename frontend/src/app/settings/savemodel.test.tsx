// @vitest-environment jsdom
// Issue 34 row 18: Settings has one save model. The MCP servers and the
// prices are staged in the dialog's form, marked "not saved yet", and saved
// with everything else by the one Save at the bottom; closing with changes
// not saved yet asks (save and close, discard, keep editing).
import { act } from "react";
import { describe, expect, it } from "vitest";
import { FakeHub, ScriptedTransport } from "../../testing/fakes";
import { mountPerTest } from "../../testing/mount";
import { AppController } from "../controller";
import type { AppInfo } from "../info";
import { settingsPatch, SettingsDialog } from "./SettingsDialog";
import { pendingOf, sameValue, stagedEntries } from "./staged";

const dom = mountPerTest();
const q = <T extends HTMLElement = HTMLElement>(sel: string) => document.querySelector<T>(sel);
const info: AppInfo = { name: "Agent Hub", version: "1", mode: "headless", data_dir: "/d", provider: { configured: true, providers: [], sources: [] }, model: "", dashboard_url: "", workspace: "" };

function fill(sel: string, value: string) {
  const el = q<HTMLInputElement | HTMLTextAreaElement>(sel)!;
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  act(() => {
    Object.getOwnPropertyDescriptor(proto, "value")!.set!.call(el, value);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

const button = (text: string) => [...document.querySelectorAll<HTMLButtonElement>("button")].find((b) => b.textContent === text)!;

async function dialog(hub: FakeHub) {
  const ctl = new AppController({ hub, pollMs: 0, transport: () => new ScriptedTransport(() => []) });
  let closed = 0;
  await act(async () => dom.root.render(<SettingsDialog hub={hub} ctl={ctl} info={info} onClose={() => closed++} />));
  return { ctl, closed: () => closed };
}

/** Stages one MCP server and one price in the open dialog. */
function stageServerAndPrice() {
  fill('input[aria-label="Server name"]', "t");
  fill('input[aria-label="Command"]', "/usr/bin/mcp-t");
  act(() => q<HTMLButtonElement>('form[aria-label="Add an MCP server"] button[type="submit"]')!.click());
  fill('[data-testid="prices"] input[aria-label="Model"]', "llama3.1");
  fill('[data-testid="prices"] input[aria-label="Input price"]', "0.5");
  fill('[data-testid="prices"] input[aria-label="Output price"]', "1");
  act(() => button("Set price").click());
}

describe("Settings: one save model", () => {
  it("compares staged collections by value and lists removed entries until Save", () => {
    expect(sameValue({ a: { x: 1, y: [1, 2] } }, { a: { y: [1, 2], x: 1 } })).toBe(true);
    expect(sameValue({ a: { x: 1 } }, { a: { x: 1, disabled: true } })).toBe(false);
    expect(pendingOf({ a: 1 }, { a: 1, b: 2 }, "b")).toBe("added");
    expect(pendingOf({ a: 1 }, {}, "a")).toBe("removed");
    expect(pendingOf({ a: 1 }, { a: 2 }, "a")).toBe("changed");
    expect(stagedEntries({ b: 1, a: 2 }, { b: 1 }).map((e) => [e.key, e.pending])).toEqual([["a", "removed"], ["b", undefined]]);
    const none = { anthropic: "", openai: "" };
    expect(settingsPatch({ mcp_servers: { t: { command: "x" } } }, { mcp_servers: { t: { command: "x" } } }, none)).toEqual({});
    expect(settingsPatch({ mcp_servers: { t: { command: "x" } }, prices: { m: { input: 1, output: 2 } } }, {}, none)).toEqual({ mcp_servers: {}, prices: {} });
  });

  it("stages an MCP server and a price, marked, and saves them with the fields in one updateSettings at the bottom", async () => {
    const hub = new FakeHub();
    hub.settings = { approval_mode: "ask", mcp_servers: { old: { command: "/bin/old" } } };
    const { ctl, closed } = await dialog(hub);
    stageServerAndPrice();
    const mode = [...document.querySelectorAll<HTMLSelectElement>(".settings select")].find((el) => [...el.options].some((o) => o.value === "auto-edits"))!;
    act(() => {
      mode.value = "auto-edits";
      mode.dispatchEvent(new Event("change", { bubbles: true }));
    });
    expect(hub.calls.filter(([m]) => m === "updateSettings")).toEqual([]);
    expect(q('[data-server="t"] [data-testid="pending"]')!.textContent).toBe("added · not saved yet");
    expect(q('[data-price="llama3.1"] [data-testid="pending"]')!.textContent).toBe("added · not saved yet");
    expect(q(".settings-footer")!.textContent).toContain("Changes not saved yet.");

    await act(async () => button("Save").click());
    expect(hub.calls.filter(([m]) => m === "updateSettings")).toEqual([
      ["updateSettings", { approval_mode: "auto-edits", mcp_servers: { old: { command: "/bin/old" }, t: { command: "/usr/bin/mcp-t" } }, prices: { "llama3.1": { input: 0.5, output: 1 } } }],
    ]);
    expect(document.querySelectorAll('[data-testid="pending"]')).toHaveLength(0);
    expect(q('[data-server="t"]')!.getAttribute("data-status")).toBe("starting"); // saved: its live state now
    expect(q(".settings-footer")!.textContent).toContain("Saved.");
    act(() => q<HTMLButtonElement>('button[aria-label="Close settings"]')!.click());
    expect(closed()).toBe(1); // nothing left to save: closes without asking
    ctl.dispose();
  });

  it("a Save the hub refuses says why and loses nothing: the staged entries stay marked", async () => {
    const hub = new FakeHub();
    hub.updateSettings = (patch) => {
      hub.calls.push(["updateSettings", patch]);
      return Promise.reject(new Error('mcp_servers.t: command "/usr/bin/mcp-t" not found'));
    };
    const { ctl, closed } = await dialog(hub);
    stageServerAndPrice();
    await act(async () => button("Save").click());
    expect(q(".settings-footer")!.textContent).toContain('Could not save: mcp_servers.t: command "/usr/bin/mcp-t" not found');
    expect(q('[data-server="t"] [data-testid="pending"]')!.textContent).toBe("added · not saved yet");
    expect(q('[data-price="llama3.1"] [data-testid="pending"]')!.textContent).toBe("added · not saved yet");
    act(() => q<HTMLButtonElement>('button[aria-label="Close settings"]')!.click());
    expect(closed()).toBe(0);
    await act(async () => button("Save and close").click());
    expect(closed()).toBe(0); // refused again: it stays open and nothing is lost
    expect(q('[data-server="t"] [data-testid="pending"]')).not.toBeNull();
    ctl.dispose();
  });

  it("asks before closing with changes not saved yet: keep editing, save and close, or discard", async () => {
    const hub = new FakeHub();
    const { ctl, closed } = await dialog(hub);
    stageServerAndPrice();
    act(() => q<HTMLButtonElement>('button[aria-label="Close settings"]')!.click());
    expect(closed()).toBe(0);
    expect(q('[data-testid="unsaved-confirm"]')!.textContent).toContain("not saved yet");
    expect(document.activeElement?.textContent).toBe("Keep editing");
    act(() => window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" })));
    expect(q('[data-testid="unsaved-confirm"]')).toBeNull();
    expect(q('[data-server="t"] [data-testid="pending"]')).not.toBeNull(); // nothing lost
    act(() => window.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape" })));
    await act(async () => button("Save and close").click());
    expect(hub.settings.mcp_servers).toEqual({ t: { command: "/usr/bin/mcp-t" } });
    expect(hub.settings.prices).toEqual({ "llama3.1": { input: 0.5, output: 1 } });
    expect(closed()).toBe(1);

    const again = new FakeHub();
    const second = await dialog(again);
    stageServerAndPrice();
    act(() => q<HTMLElement>(".modal-backdrop")!.dispatchEvent(new MouseEvent("mousedown", { bubbles: true })));
    act(() => button("Discard changes").click());
    expect(second.closed()).toBe(1);
    expect(again.calls.filter(([m]) => m === "updateSettings")).toEqual([]);
    ctl.dispose();
    second.ctl.dispose();
  });
});
