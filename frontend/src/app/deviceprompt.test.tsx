// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it, vi } from "vitest";
import { mountPerTest } from "../testing/mount";
import { DevicePrompt, usePendingDevices } from "./DevicePrompt";
import type { DevicesClient, PendingDevice } from "../transport/devices";

const dom = mountPerTest();

const phone: PendingDevice = { deviceId: "browser-01a2", rights: "full", meta: { userAgent: "Phone Browser" }, requestedAt: "", expiresAt: "" };

describe("DevicePrompt", () => {
  it("asks to allow the device by its name and agent; Deny has the focus, Esc denies", () => {
    const onAnswer = vi.fn();
    act(() => dom.root.render(<DevicePrompt device={phone} onAnswer={onAnswer} />));
    const dialog = dom.host.querySelector("[data-testid=device-confirm]")!;
    expect(dialog.textContent).toContain("Allow browser-01a2 (Phone Browser) to control this hub?");
    expect(document.activeElement?.getAttribute("data-testid")).toBe("device-deny");
    act(() => dom.host.querySelector<HTMLButtonElement>("[data-testid=device-allow]")!.click());
    act(() => dom.host.querySelector<HTMLButtonElement>("[data-testid=device-allow-readonly]")!.click());
    act(() => {
      dialog.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    });
    expect(onAnswer.mock.calls).toEqual([[true], [true, "read-only"], [false]]);
  });

  it("a token for watching only asks to let it watch, and offers no full control", () => {
    act(() => dom.root.render(<DevicePrompt device={{ ...phone, rights: "read-only" }} onAnswer={() => {}} />));
    expect(dom.host.textContent).toContain("to watch this hub?");
    expect(dom.host.querySelector("[data-testid=device-allow-readonly]")).toBeNull();
  });
});

describe("usePendingDevices", () => {
  function Probe({ devices, subscribe }: { devices: DevicesClient; subscribe?: (cb: (p: PendingDevice[]) => void) => () => void }) {
    const [pending] = usePendingDevices(devices, subscribe);
    return <span data-testid="n">{pending.map((p) => p.deviceId).join(",")}</span>;
  }
  const client = (pending: PendingDevice[]): DevicesClient => ({
    list: () => Promise.resolve({ gateway: { url: "", hubId: "", state: "off" }, devices: [], pending }),
    pair: () => Promise.reject(new Error("unused")),
    answer: () => Promise.resolve(),
    revoke: () => Promise.resolve(),
    setRights: () => Promise.resolve(),
  });

  it("takes what the window's event pushes", async () => {
    let push: (p: PendingDevice[]) => void = () => {};
    await act(async () => dom.root.render(<Probe devices={client([])} subscribe={(cb) => ((push = cb), () => {})} />));
    act(() => push([phone]));
    expect(dom.host.querySelector("[data-testid=n]")!.textContent).toBe("browser-01a2");
  });

  it("asks the hub when nothing pushes (the dashboard page)", async () => {
    await act(async () => dom.root.render(<Probe devices={client([phone])} />));
    expect(dom.host.querySelector("[data-testid=n]")!.textContent).toBe("browser-01a2");
  });
});
