// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { mountPerTest } from "../testing/mount";
import { AppController } from "./controller";
import { FakeHub, ScriptedTransport, session } from "../testing/fakes";
import { formatBytes, InstructionsChip } from "./InstructionsChip";

const dom = mountPerTest();

describe("the instruction files chip", () => {
  it("lists the files the next turn reads with their sizes, and says when one is cut", async () => {
    expect([formatBytes(900), formatBytes(2048), formatBytes(3 * 1024 * 1024)]).toEqual(["900 B", "2.0 KB", "3.0 MB"]);
    const hub = new FakeHub();
    hub.sessions = [session("s1")];
    hub.instructions = [
      { path: "/data/AGENTS.md", size: 100, kept: 100, scope: "global" },
      { path: "/repo/AGENTS.md", size: 40_000, kept: 32_768, scope: "project" },
    ];
    const ctl = new AppController({ hub, transport: () => new ScriptedTransport(() => []), pollMs: 0 });
    await ctl.start("s1");
    await act(async () => dom.root.render(<InstructionsChip ctl={ctl} sessionId="s1" />));
    const chip = dom.host.querySelector<HTMLButtonElement>('[data-testid="instructions-chip"]')!;
    expect(chip.textContent).toBe("2 instruction files · 32.1 KB (cut)");
    act(() => chip.click());
    const items = [...dom.host.querySelectorAll('[data-testid="instructions-list"] li')].map((li) => li.textContent);
    expect(items).toEqual(["/data/AGENTS.mdglobal · 100 B", "/repo/AGENTS.md39.1 KB — 32.0 KB kept, the rest cut"]);
    hub.instructions = [];
    ctl.dispose();
  });

  it("shows nothing when no file is in effect", async () => {
    const hub = new FakeHub();
    hub.sessions = [session("s1")];
    const ctl = new AppController({ hub, transport: () => new ScriptedTransport(() => []), pollMs: 0 });
    await ctl.start("s1");
    await act(async () => dom.root.render(<InstructionsChip ctl={ctl} sessionId="s1" />));
    expect(dom.host.innerHTML).toBe("");
    ctl.dispose();
  });
});
