// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { mountPerTest } from "../testing/mount";
import { FakeHub } from "../testing/fakes";
import type { MCPServerConfig } from "../transport/hub";
import { configFromForm, McpServers, stateLine } from "./McpServers";

const dom = mountPerTest();

function fill(label: string, value: string) {
  const el = dom.host.querySelector<HTMLInputElement | HTMLTextAreaElement>(`[aria-label="${label}"]`)!;
  const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, "value")!.set!.call(el, value);
  el.dispatchEvent(new Event("input", { bubbles: true }));
}

describe("McpServers", () => {
  it("builds stdio and http configurations and refuses bad ones", () => {
    const base = { name: "files", kind: "stdio" as const, command: " npx ", args: "-y\n @mcp/fs \n", pairs: "A=1\nB = two", url: "", onlyWorkspace: true };
    expect(configFromForm(base, "/home/u/p")).toEqual({ command: "npx", args: ["-y", "@mcp/fs"], env: { A: "1", B: "two" }, workspace: "/home/u/p" });
    expect(configFromForm({ ...base, kind: "http", url: "https://h/mcp", pairs: "Authorization: Bearer x", onlyWorkspace: false }, undefined)).toEqual({
      url: "https://h/mcp",
      headers: { Authorization: "Bearer x" },
    });
    expect(() => configFromForm({ ...base, name: "a__b" }, undefined)).toThrow(/letters, digits or dashes/);
    expect(() => configFromForm({ ...base, command: "" }, undefined)).toThrow(/command/);
    expect(() => configFromForm({ ...base, pairs: "novalue" }, undefined)).toThrow(/NAME=value/);
    expect(() => configFromForm({ ...base, kind: "http", url: "file:///x" }, undefined)).toThrow(/URL/);
  });

  it("says each state in one line", () => {
    const st = { server: "t", transport: "stdio", status: "ready" as const, tools: ["t__a", "t__b"], restarts: 0 };
    expect(stateLine(st)).toBe("ready · 2 tools");
    expect(stateLine({ ...st, status: "failed", tools: [], retry_in_ms: 4000 })).toBe("failed · retrying in 4 s");
    expect(stateLine({ ...st, status: "starting", restarts: 2 })).toBe("restarting (2)…");
    expect(stateLine(undefined)).toBe("saved; starting…");
  });

  it("stages add, disable and remove in the form, each marked not saved yet, and shows the live state of saved servers", async () => {
    const hub = new FakeHub();
    hub.mcpServers = [
      { server: "bad", transport: "stdio", status: "failed", tools: [], error: "connect: EOF", stderr_tail: "no config\n", restarts: 3, retry_in_ms: 8000 },
    ];
    const saved: Record<string, MCPServerConfig> = { bad: { command: "/bin/false" } };
    let staged: Record<string, MCPServerConfig> = saved;
    const render = () => dom.root.render(<McpServers hub={hub} saved={saved} servers={staged} workspace="/home/u/p" onChange={(s) => (staged = s)} />);
    await act(async () => render());
    const row = (n: string) => dom.host.querySelector(`[data-server="${n}"]`)!;
    expect(row("bad").getAttribute("data-status")).toBe("failed");
    expect(row("bad").textContent).toContain("failed · retrying in 8 s");
    expect(row("bad").textContent).toContain("connect: EOF");
    expect(row("bad").querySelector("pre")!.textContent).toBe("no config\n");
    expect(row("bad").getAttribute("data-pending")).toBeNull();

    await act(async () => fill("Server name", "t"));
    await act(async () => fill("Command", "/usr/bin/mcp-t"));
    await act(async () => fill("Environment", "MODE=stdio"));
    await act(async () => dom.host.querySelector<HTMLButtonElement>('form[aria-label="Add an MCP server"] button[type="submit"]')!.click());
    expect(staged).toEqual({ bad: { command: "/bin/false" }, t: { command: "/usr/bin/mcp-t", env: { MODE: "stdio" } } });
    expect(hub.calls.filter(([m]) => m === "updateSettings")).toEqual([]); // nothing saved before Save
    expect(dom.host.querySelector('[data-testid="mcp-message"]')!.textContent).toContain("not saved yet");
    await act(async () => render());
    expect(row("t").getAttribute("data-pending")).toBe("added");
    expect(row("t").getAttribute("data-status")).toBe("unsaved");
    expect(row("t").querySelector('[data-testid="pending"]')!.textContent).toBe("added · not saved yet");
    expect(row("t").querySelector(".mcp-state")).toBeNull(); // no live state for a server the hub does not run

    // Disable, enable back (no change left), then remove: staged, marked, kept listed until Save.
    const click = async (n: string, text: string) => {
      await act(async () => [...row(n).querySelectorAll<HTMLButtonElement>(".mcp-actions button")].find((b) => b.textContent === text)!.click());
      await act(async () => render());
    };
    await click("bad", "Disable");
    expect(staged.bad).toEqual({ command: "/bin/false", disabled: true });
    expect(row("bad").querySelector('[data-testid="pending"]')!.textContent).toBe("disabled · not saved yet");
    await click("bad", "Enable");
    expect(row("bad").getAttribute("data-pending")).toBeNull();
    await click("bad", "Remove");
    expect(Object.keys(staged)).toEqual(["t"]);
    expect(row("bad").getAttribute("data-pending")).toBe("removed");
    expect(row("bad").querySelector('[data-testid="pending"]')!.textContent).toBe("removed · not saved yet");
    await click("bad", "Keep");
    expect(Object.keys(staged).sort()).toEqual(["bad", "t"]);
    await click("t", "Remove");
    expect(dom.host.querySelector('[data-server="t"]')).toBeNull(); // a server only staged just goes
    expect(hub.calls.filter(([m]) => m === "updateSettings")).toEqual([]);
  });

  it("names the tools a server has that need MCP tasks, as not offered", async () => {
    const hub = new FakeHub();
    hub.mcpServers = [{ server: "ev", transport: "stdio", status: "ready", tools: ["ev__echo"], unsupported_tools: ["simulate-research-query"], restarts: 0 }];
    hub.settings = { mcp_servers: { ev: { command: "npx" } } };
    await act(async () => dom.root.render(<McpServers hub={hub} saved={hub.settings.mcp_servers ?? {}} servers={hub.settings.mcp_servers ?? {}} workspace="/w" onChange={() => undefined} />));
    const ev = dom.host.querySelector('[data-server="ev"]')!;
    expect(ev.textContent).toContain("ready · 1 tool");
    expect(ev.querySelector(".mcp-unsupported")!.textContent).toContain("simulate-research-query");
    expect(ev.querySelector(".mcp-tools")!.textContent).not.toContain("simulate-research-query");
  });

  it("says what is wrong with the form, staging nothing", async () => {
    const hub = new FakeHub();
    let staged: Record<string, MCPServerConfig> = {};
    await act(async () => dom.root.render(<McpServers hub={hub} saved={{}} servers={{}} workspace={undefined} onChange={(s) => (staged = s)} />));
    await act(async () => fill("Server name", "a__b"));
    await act(async () => fill("Command", "y"));
    await act(async () => dom.host.querySelector<HTMLButtonElement>('form[aria-label="Add an MCP server"] button[type="submit"]')!.click());
    expect(dom.host.querySelector('[data-testid="mcp-message"]')!.textContent).toContain("letters, digits or dashes");
    expect(staged).toEqual({});
  });
});
