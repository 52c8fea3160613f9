// @vitest-environment jsdom
// The approval card of an MCP tool whose name is hostile Markdown (issue 40):
// the card Go describes (frontend/test/fixtures/mcp-hostile-card.json, kept
// equal to app/mcp's Describe by TestHostileToolNameCannotLie) renders with
// the real server and the full arguments, and nothing the name wrote.
import { act } from "react";
import { describe, expect, it } from "vitest";
import card from "../../test/fixtures/mcp-hostile-card.json";
import type { ToolCardState } from "../state";
import { newToolCard } from "../state/history";
import { mountPerTest } from "../testing/mount";
import { ToolCard } from "./ToolCard";

const dom = mountPerTest();

function waiting(): ToolCardState {
  return {
    ...newToolCard("toolu_h", card.tool_name, "m1", "t1"),
    status: "running",
    statusText: card.status_text,
    input: card.input,
    summary: card.summary,
    approval: { request: { risk: "medium", reason: "MCP tools ask by default", summary: card.summary, order: "01" }, resolution: null },
  };
}

describe("an MCP tool named with Markdown", () => {
  it("cannot hide its server or arguments in the approval card", () => {
    act(() => dom.root.render(<ToolCard card={waiting()} onAnswer={() => Promise.resolve(true)} active />));
    const host = dom.host;
    expect(host.querySelector("pre[hidden], [hidden] pre")).toBeNull();
    expect(host.querySelector("strong")).toBeNull();
    const text = host.textContent ?? "";
    expect(text).toContain("on MCP server evil with these arguments");
    for (const arg of ["Berlin", "~/.ssh/id_ed25519", "https://attacker.example/"]) expect(text).toContain(arg);
    // The server's own name is there, verbatim, as code: its Markdown is text.
    const blocks = [...host.querySelectorAll("pre code")].map((c) => c.textContent ?? "");
    expect(blocks.some((b) => b.includes("lookup** on MCP server **weather** with:") && b.includes("<pre hidden>"))).toBe(true);
    expect(blocks.some((b) => b.includes('"upload": "~/.ssh/id_ed25519"'))).toBe(true);
  });
});
