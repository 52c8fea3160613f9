// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import type { Session, TurnChanges, TurnOutcome } from "../protocol";
import { createAppStore } from "../state";
import { mountPerTest } from "../testing/mount";
import type { ChatSession } from "./session";
import { AbandonedChanges, TurnFiles } from "./TurnFiles";
import { renderInSession } from "../testing/session";

const dom = mountPerTest();

const CHANGES: TurnChanges = {
  turn_id: "t1",
  workspace: "/w",
  changes: [
    { path: "notes.txt", tool: "edit_file", status: "modified", before: "alpha\nbeta\n", after: "alpha\nBETA\n" },
    { path: "made.txt", tool: "bash", status: "created", after: "made\n" },
    { path: "big.bin", tool: "bash", status: "modified", unrestorable: "larger than 1 MiB before the command" },
  ],
};

async function settle() {
  await act(async () => {
    await Promise.resolve();
    await Promise.resolve();
  });
}

function mount(outcome: TurnOutcome, session: Partial<ChatSession>) {
  renderInSession(dom.root, <TurnFiles outcome={outcome} />, { store: createAppStore(), sessionId: "s1", ...session });
}

const button = (text: string) => Array.from(dom.host.querySelectorAll("button")).find((b) => b.textContent === text)!;

describe("TurnFiles", () => {
  it("lists the changed files with diffs, and undoes after a confirmation", async () => {
    const turnChanges = vi.fn(() => Promise.resolve(CHANGES));
    const undoTurn = vi.fn(() => Promise.resolve({ restored: ["made.txt"], skipped: [{ path: "notes.txt", reason: "changed since the turn" }] }));
    mount({ id: "t1", status: "completed", files_changed: 3 }, { turnChanges, undoTurn });
    act(() => button("3 files changed").click());
    await settle();
    expect(turnChanges).toHaveBeenCalledWith("t1");
    const files = dom.host.querySelectorAll("[data-testid=turn-file]");
    expect(Array.from(files).map((f) => f.getAttribute("data-status"))).toEqual(["modified", "created", "modified"]);
    expect(files[0]!.querySelector(".diff-add")?.textContent).toContain("BETA");
    expect(files[2]!.textContent).toContain("Undo cannot restore it: larger than 1 MiB");
    act(() => button("Undo").click());
    expect(dom.host.querySelector("[role=alertdialog]")?.textContent).toContain("Restore 3 files");
    expect(undoTurn).not.toHaveBeenCalled();
    act(() => button("Undo changes").click());
    await settle();
    expect(undoTurn).toHaveBeenCalledWith("t1");
    const result = dom.host.querySelector("[data-testid=undo-result]")!;
    expect(result.textContent).toContain("Restored 1 file to before this turn; left 1 file alone");
    expect(result.textContent).toContain("notes.txt — changed since the turn");
    expect(dom.host.querySelector("[data-testid=turn-files]")!.getAttribute("data-undone")).toBe("true");
  });

  it("shows nothing for a turn that changed no file, and Undone after a reload", () => {
    mount({ id: "t1", status: "completed" }, { turnChanges: () => Promise.resolve(CHANGES) });
    expect(dom.host.querySelector("[data-testid=turn-files]")).toBeNull();
    mount({ id: "t1", status: "completed", files_changed: 1, files_undone: true }, { turnChanges: () => Promise.resolve(CHANGES), undoTurn: vi.fn() });
    expect(dom.host.querySelector(".turn-files-undone")?.textContent).toBe("Undone");
    expect(Array.from(dom.host.querySelectorAll("button")).some((b) => b.textContent === "Undo")).toBe(false);
  });

  it("shows the hub's refusal", async () => {
    mount({ id: "t1", status: "completed", files_changed: 1 }, { turnChanges: () => Promise.resolve(CHANGES), undoTurn: () => Promise.reject(new Error("a turn is running in this session")) });
    act(() => button("Undo").click());
    await settle();
    act(() => button("Undo changes").click());
    await settle();
    expect(dom.host.querySelector("[role=alert]")?.textContent).toContain("a turn is running");
  });
});

describe("AbandonedChanges", () => {
  it("offers to undo the file changes of the branch left behind, newest turn first", async () => {
    const store = createAppStore();
    store.getState().dispatch({
      type: "frame",
      sessionId: "s1",
      frame: {
        type: "event",
        event: {
          id: "01J0000000000000000000000B", type: "session.branched", ts: "2026-11-25T10:00:00Z", session_id: "s1", turn_id: null, actor: "user" as const,
          payload: {
            reason: "switch", message_id: "m1", head_id: "m1",
            session: { session_id: "s1", title: "t", workspace_path: "/w" } as Session,
            abandoned_turns: [{ turn_id: "t2", files_changed: 1 }, { turn_id: "t1", files_changed: 2 }],
          },
        },
      },
    });
    const undoTurn = vi.fn((id: string) => Promise.resolve({ restored: id === "t2" ? ["b.txt"] : ["a.txt", "c.txt"], skipped: [] }));
    const onAbandonedAnswered = vi.fn(() => store.getState().dispatch({ type: "abandonedAnswered", sessionId: "s1" }));
    renderInSession(dom.root, <AbandonedChanges />, { store, sessionId: "s1", undoTurn, onAbandonedAnswered });
    expect(dom.host.querySelector("[data-testid=abandoned-changes]")?.textContent).toContain("changed 3 files in the folder (2 turns)");
    await act(async () => {
      dom.host.querySelector<HTMLButtonElement>("[data-testid=undo-abandoned]")!.click();
      await Promise.resolve();
      await Promise.resolve();
      await Promise.resolve();
    });
    expect(undoTurn.mock.calls.map((c) => c[0])).toEqual(["t2", "t1"]);
    expect(onAbandonedAnswered).toHaveBeenCalledTimes(1);
    expect(dom.host.querySelector("[data-testid=undo-result]")?.textContent).toContain("Restored 3 files");
  });
});
