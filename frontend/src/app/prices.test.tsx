// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { mountPerTest } from "../testing/mount";
import type { ModelPrice } from "../transport/hub";
import { priceKey, Prices } from "./Prices";
import { typeInto } from "../testing/input";

const dom = mountPerTest();

describe("Settings → Prices", () => {
  it("stages a price for an unknown model (keyed without the provider) and its removal, each marked not saved yet", async () => {
    expect(priceKey(" anthropic:claude-unknown-9 ")).toBe("claude-unknown-9");
    const saved: Record<string, ModelPrice> = { "old-model": { input: 1, output: 2 } };
    let staged: Record<string, ModelPrice> = saved;
    const render = () => act(() => dom.root.render(<Prices saved={saved} prices={staged} onChange={(p) => (staged = p)} />));
    render();
    const input = (label: string) => dom.host.querySelector<HTMLInputElement>(`input[aria-label="${label}"]`)!;
    const row = (k: string) => dom.host.querySelector(`[data-price="${k}"]`);
    expect(row("old-model")!.getAttribute("data-pending")).toBeNull();
    typeInto(input("Model"), "anthropic:claude-unknown-9");
    typeInto(input("Input price"), "3");
    typeInto(input("Output price"), "15");
    act(() => dom.host.querySelector<HTMLButtonElement>(".prices-add button")!.click());
    expect(staged).toEqual({ "old-model": { input: 1, output: 2 }, "claude-unknown-9": { input: 3, output: 15 } });
    render();
    expect(row("claude-unknown-9")!.querySelector('[data-testid="pending"]')!.textContent).toBe("added · not saved yet");

    typeInto(input("Input price"), "-1");
    typeInto(input("Model"), "x");
    typeInto(input("Output price"), "1");
    act(() => dom.host.querySelector<HTMLButtonElement>(".prices-add button")!.click());
    expect(dom.host.querySelector('[role="alert"]')?.textContent).toContain("≥ 0");

    act(() => dom.host.querySelector<HTMLButtonElement>('button[aria-label="Remove the price of old-model"]')!.click());
    expect(Object.keys(staged)).toEqual(["claude-unknown-9"]);
    render();
    expect(row("old-model")!.querySelector('[data-testid="pending"]')!.textContent).toBe("removed · not saved yet");
    act(() => dom.host.querySelector<HTMLButtonElement>('button[aria-label="Keep the price of old-model"]')!.click());
    render();
    expect(row("old-model")!.getAttribute("data-pending")).toBeNull();
  });
});
