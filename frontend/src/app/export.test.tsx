// @vitest-environment jsdom
import { act } from "react";
import { mountPerTest } from "../testing/mount";
import { describe, expect, it } from "vitest";
import { AppController } from "./controller";
import { ExportDialog, ExportMenu, exportDelivery } from "./ExportMenu";
import { FakeHub, ScriptedTransport, session } from "../testing/fakes";


const dom = mountPerTest();

const click = (el: Element | null | undefined) =>
  act(async () => {
    (el as HTMLElement).click();
    await Promise.resolve();
  });
const byText = (text: string) => [...document.querySelectorAll("button")].find((b) => b.textContent?.trim() === text);

describe("Export in the desktop window", () => {
  it("detects the window: dialog inside Wails, download in a browser", () => {
    expect(exportDelivery({ go: { app: { App: { Info: () => undefined } } } })).toBe("dialog");
    expect(exportDelivery({})).toBe("download");
  });

  it("shows the export in a dialog with Copy instead of downloading", async () => {
    const hub = new FakeHub();
    hub.sessions = [session("s1", { title: "Fix the parser" })];
    const ctl = new AppController({ hub, pollMs: 0, transport: () => new ScriptedTransport(() => []) });
    await ctl.start("s1");
    const created: string[] = [];
    const orig = URL.createObjectURL;
    URL.createObjectURL = () => {
      created.push("blob");
      return "blob:x";
    };
    try {
      act(() => dom.root.render(<ExportMenu ctl={ctl} title="Fix the parser" delivery="dialog" />));
      await click(byText("Export"));
      await click(document.querySelector('[role="menuitem"]'));
      // Let the exportSession promise chain settle (microtasks only).
      for (let i = 0; i < 20 && !document.querySelector('[role="dialog"]'); i++) await act(async () => await Promise.resolve());
      const dialog = document.querySelector('[role="dialog"]');
      expect(dialog?.textContent).toContain("fix-the-parser.md");
      expect(dialog?.querySelector("textarea")?.value).toBe("# Fix the parser\n");
      expect(created).toEqual([]); // no blob download attempted
      expect(byText("Save…")).toBeUndefined(); // jsdom, like WebKitGTK, has no save picker
      expect(hub.calls).toContainEqual(["exportSession", "s1", "markdown"]);
    } finally {
      URL.createObjectURL = orig;
      ctl.dispose();
    }
  });

  it("Copy writes the whole document to the clipboard; a refused clipboard selects the text", async () => {
    const copied: string[] = [];
    let closed = 0;
    const doc = { format: "json" as const, media_type: "application/json", content: '{"a":1}' };
    act(() => dom.root.render(<ExportDialog fileName="s.json" doc={doc} onClose={() => closed++} clipboard={{ writeText: (t) => (copied.push(t), Promise.resolve()) }} />));
    await click(byText("Copy"));
    expect(copied).toEqual(['{"a":1}']);
    expect(document.querySelector('[role="status"]')?.textContent).toContain("Copied");

    act(() => dom.root.render(<ExportDialog fileName="s.json" doc={doc} onClose={() => closed++} clipboard={{ writeText: () => Promise.reject(new Error("denied")) }} />));
    await click(byText("Copy"));
    expect(document.querySelector('[role="status"]')?.textContent).toContain("Ctrl+C");
    await click(document.querySelector('[aria-label="Close export"]'));
    expect(closed).toBe(1);
  });
});
