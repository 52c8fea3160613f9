// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { mountPerTest } from "../testing/mount";
import { HelpDialog } from "./HelpDialog";
import { parseInfo } from "./info";

const dom = mountPerTest();

describe("About", () => {
  it("shows the version, commit, data folder and log file from Info", () => {
    const info = parseInfo({
      name: "Agent Hub", version: "0.9.1", mode: "desktop", data_dir: "/home/u/.local/share/agenthub",
      provider: { configured: false, providers: [], sources: [] }, model: "", dashboard_url: "", workspace: "/home/u",
      commit: "abc123def456", log_file: "/home/u/.local/share/agenthub/logs/agenthub.log",
    });
    act(() => dom.root.render(<HelpDialog info={info} onClose={() => {}} />));
    const about = dom.host.querySelector("[data-testid=about]")!.textContent!;
    for (const want of ["About Agent Hub", "0.9.1 (commit abc123def456)", "/home/u/.local/share/agenthub", "logs/agenthub.log"]) {
      expect(about).toContain(want);
    }
  });

  it("says plainly when this system has no sandbox (Windows, macOS)", () => {
    const line = "bash sandbox: no sandbox on this system (Windows): bash runs with your rights — tool approvals are the only guard";
    const info = parseInfo({
      name: "Agent Hub", version: "0.9.1", mode: "desktop", data_dir: "C:\\Users\\u\\AppData\\Roaming\\agenthub",
      provider: { configured: false, providers: [], sources: [] }, model: "", dashboard_url: "", workspace: "", sandbox: line,
    });
    act(() => dom.root.render(<HelpDialog info={info} onClose={() => {}} />));
    expect(dom.host.querySelector("[data-testid=about-sandbox]")!.textContent).toBe(line);
  });
});
