// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { mountPerTest } from "../testing/mount";
import { FakeHub } from "../testing/fakes";
import { priceKey, Prices } from "./Prices";
import { typeInto } from "../testing/input";

const dom = mountPerTest();

describe("Settings → Prices", () => {
  it("sets a price for an unknown model (keyed without the provider) and removes it", async () => {
    expect(priceKey(" anthropic:claude-unknown-9 ")).toBe("claude-unknown-9");
    const hub = new FakeHub();
    let saved: Record<string, unknown> = {};
    act(() => dom.root.render(<Prices hub={hub} prices={{}} onSaved={(p) => (saved = p)} />));
    const input = (label: string) => dom.host.querySelector<HTMLInputElement>(`input[aria-label="${label}"]`)!;
    typeInto(input("Model"), "anthropic:claude-unknown-9");
    typeInto(input("Input price"), "3");
    typeInto(input("Output price"), "15");
    await act(async () => dom.host.querySelector<HTMLButtonElement>(".prices-add button")!.click());
    expect(hub.calls).toContainEqual(["updateSettings", { prices: { "claude-unknown-9": { input: 3, output: 15 } } }]);
    expect(saved).toEqual({ "claude-unknown-9": { input: 3, output: 15 } });
    typeInto(input("Input price"), "-1");
    typeInto(input("Model"), "x");
    typeInto(input("Output price"), "1");
    await act(async () => dom.host.querySelector<HTMLButtonElement>(".prices-add button")!.click());
    expect(dom.host.querySelector('[role="alert"]')?.textContent).toContain("≥ 0");
    act(() => dom.root.render(<Prices hub={hub} prices={{ "claude-unknown-9": { input: 3, output: 15 } }} onSaved={(p) => (saved = p)} />));
    await act(async () => dom.host.querySelector<HTMLButtonElement>('button[aria-label="Remove the price of claude-unknown-9"]')!.click());
    expect(hub.calls.at(-1)).toEqual(["updateSettings", { prices: {} }]);
  });
});
