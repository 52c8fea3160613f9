// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { mountPerTest } from "../testing/mount";
import { FakeHub } from "../testing/fakes";
import type { SettingsView } from "../transport/hub";
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

  it("adds a server through updateSettings and shows the states the hub reports", async () => {
    const hub = new FakeHub();
    hub.mcpServers = [
      { server: "bad", transport: "stdio", status: "failed", tools: [], error: "connect: EOF", stderr_tail: "no config\n", restarts: 3, retry_in_ms: 8000 },
    ];
    hub.settings = { mcp_servers: { bad: { command: "/bin/false" } } };
    let saved: SettingsView = hub.settings;
    const render = () => dom.root.render(<McpServers hub={hub} saved={saved.mcp_servers ?? {}} workspace="/home/u/p" onSaved={(s) => (saved = s)} />);
    await act(async () => render());
    const bad = dom.host.querySelector('[data-server="bad"]')!;
    expect(bad.getAttribute("data-status")).toBe("failed");
    expect(bad.textContent).toContain("failed · retrying in 8 s");
    expect(bad.textContent).toContain("connect: EOF");
    expect(bad.querySelector("pre")!.textContent).toBe("no config\n");

    await act(async () => fill("Server name", "t"));
    await act(async () => fill("Command", "/usr/bin/mcp-t"));
    await act(async () => fill("Environment", "MODE=stdio"));
    await act(async () => dom.host.querySelector<HTMLButtonElement>('form[aria-label="Add an MCP server"] button[type="submit"]')!.click());
    expect(hub.calls).toContainEqual(["updateSettings", { mcp_servers: { bad: { command: "/bin/false" }, t: { command: "/usr/bin/mcp-t", env: { MODE: "stdio" } } } }]);
    expect(Object.keys(saved.mcp_servers ?? {})).toEqual(["bad", "t"]);
    await act(async () => render());
    expect(dom.host.querySelector('[data-server="t"]')!.textContent).toContain("saved; starting…");

    // Disable then remove.
    await act(async () => dom.host.querySelector<HTMLButtonElement>('[data-server="bad"] .mcp-actions button')!.click());
    expect(saved.mcp_servers?.bad?.disabled).toBe(true);
    await act(async () => render());
    expect(dom.host.querySelector('[data-server="bad"]')!.getAttribute("data-status")).toBe("stopped");
    const buttons = dom.host.querySelectorAll<HTMLButtonElement>('[data-server="bad"] .mcp-actions button');
    await act(async () => buttons[1]!.click());
    expect(Object.keys(saved.mcp_servers ?? {})).toEqual(["t"]);
  });

  it("names the tools a server has that need MCP tasks, as not offered", async () => {
    const hub = new FakeHub();
    hub.mcpServers = [{ server: "ev", transport: "stdio", status: "ready", tools: ["ev__echo"], unsupported_tools: ["simulate-research-query"], restarts: 0 }];
    hub.settings = { mcp_servers: { ev: { command: "npx" } } };
    await act(async () => dom.root.render(<McpServers hub={hub} saved={hub.settings.mcp_servers ?? {}} workspace="/w" onSaved={() => undefined} />));
    const ev = dom.host.querySelector('[data-server="ev"]')!;
    expect(ev.textContent).toContain("ready · 1 tool");
    expect(ev.querySelector(".mcp-unsupported")!.textContent).toContain("simulate-research-query");
    expect(ev.querySelector(".mcp-tools")!.textContent).not.toContain("simulate-research-query");
  });

  it("shows the hub's refusal", async () => {
    const hub = new FakeHub();
    hub.updateSettings = () => Promise.reject(new Error("mcp_servers.x: set command or url"));
    await act(async () => dom.root.render(<McpServers hub={hub} saved={{}} workspace={undefined} onSaved={() => undefined} />));
    await act(async () => fill("Server name", "x"));
    await act(async () => fill("Command", "y"));
    await act(async () => dom.host.querySelector<HTMLButtonElement>('form[aria-label="Add an MCP server"] button[type="submit"]')!.click());
    expect(dom.host.querySelector('[data-testid="mcp-message"]')!.textContent).toContain("Not saved: mcp_servers.x");
  });
});
