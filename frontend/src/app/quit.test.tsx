// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import { mountPerTest } from "../testing/mount";
import { QuitDialog } from "./QuitDialog";

const dom = mountPerTest();

describe("QuitDialog", () => {
  it("offers one Quit (which stops the turns) and Stay; Stay has the focus and Esc stays", () => {
    const onAnswer = vi.fn();
    act(() => dom.root.render(<QuitDialog running={2} onAnswer={onAnswer} />));
    const dialog = dom.host.querySelector("[data-testid=quit-confirm]")!;
    expect(dialog.textContent).toContain("2 turns are still running");
    expect([...dialog.querySelectorAll("button")].map((b) => b.textContent)).toEqual(["Quit", "Stay"]);
    expect(document.activeElement?.getAttribute("data-testid")).toBe("quit-keep");
    act(() => dom.host.querySelector<HTMLButtonElement>("[data-testid=quit]")!.click());
    act(() => {
      dialog.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    });
    expect(onAnswer.mock.calls).toEqual([["cancel"], ["keep"]]);
  });
});
