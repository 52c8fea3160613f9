// @vitest-environment jsdom
import { act } from "react";
import { describe, expect, it } from "vitest";
import { mountPerTest } from "../../testing/mount";
import { FakeHub } from "../../testing/fakes";
import type { DeviceRights, DevicesClient, DevicesView, TrustedDevice } from "../../transport/devices";
import type { HubClient } from "../../transport/hub";
import { DevicesSettings } from "./DevicesSettings";

const dom = mountPerTest();

/** A hub's trusted devices in memory, recording the calls. */
function fakeDevices(devices: TrustedDevice[]): DevicesClient & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  const view = (): DevicesView => ({ gateway: { url: "https://gw.example", hubId: "hub-1", state: "registered" }, devices: devices.map((d) => ({ ...d })), pending: [] });
  return {
    calls,
    list: () => Promise.resolve(view()),
    pair: (rights: DeviceRights) => {
      calls.push(["pair", rights]);
      return Promise.resolve({ token: "ahp_once", rights, expiresAt: "2026-11-27T21:00:00Z", hubId: "hub-1", link: "https://gw.example/#hub=hub-1&token=ahp_once" });
    },
    answer: () => Promise.resolve(),
    revoke: (id: string) => {
      calls.push(["revoke", id]);
      devices = devices.filter((d) => d.deviceId !== id);
      return Promise.resolve();
    },
    setRights: (id: string, rights: DeviceRights) => {
      calls.push(["setRights", id, rights]);
      devices = devices.map((d) => (d.deviceId === id ? { ...d, rights } : d));
      return Promise.resolve();
    },
  };
}

const laptop: TrustedDevice = { deviceId: "browser-laptop", rights: "full", addedAt: "2026-11-27T20:00:00Z", verified: true, meta: { userAgent: "Laptop Browser" } };
const phone: TrustedDevice = { deviceId: "browser-phone", rights: "read-only", addedAt: "2026-11-27T20:01:00Z", verified: false };

const click = (testid: string, text?: string) =>
  act(async () => {
    const buttons = [...dom.host.querySelectorAll<HTMLButtonElement>(testid.startsWith("[") ? testid : `[data-testid=${testid}]`)];
    (text ? buttons.find((b) => b.textContent === text) : buttons[0])!.click();
  });

describe("Settings → Devices", () => {
  it("lists the trusted devices with their rights, revokes one and switches another's rights", async () => {
    const devices = fakeDevices([laptop, phone]);
    const hub: HubClient = Object.assign(new FakeHub(), { devices });
    await act(async () => dom.root.render(<DevicesSettings hub={hub} savedUrl="https://gw.example" url="https://gw.example" setUrl={() => undefined} />));
    const rows = () => [...dom.host.querySelectorAll("[data-testid=trusted-device]")].map((li) => li.textContent ?? "");
    expect(rows()).toHaveLength(2);
    expect(rows()[0]).toContain("browser-laptop (Laptop Browser) · full · connected");
    expect(rows()[1]).toContain("browser-phone · read-only");
    expect(dom.host.querySelector("[data-testid=gateway-state]")!.textContent).toContain("https://gw.example: registered");

    await click("[data-testid=trusted-device] button", "Allow full control");
    expect(devices.calls).toContainEqual(["setRights", "browser-phone", "full"]);
    expect(rows()[1]).toContain("browser-phone · full");

    await click("[data-testid=trusted-device] button", "Revoke");
    expect(devices.calls).toContainEqual(["revoke", "browser-laptop"]);
    expect(rows()).toHaveLength(1);
  });

  it("pairs a device: the token and the link shown once", async () => {
    const devices = fakeDevices([]);
    const hub: HubClient = Object.assign(new FakeHub(), { devices });
    await act(async () => dom.root.render(<DevicesSettings hub={hub} savedUrl="" url="" setUrl={() => undefined} />));
    await click("pair-device");
    expect(devices.calls).toContainEqual(["pair", "full"]);
    expect(dom.host.querySelector("[data-testid=pairing-token]")!.textContent).toBe("ahp_once");
    expect(dom.host.querySelector("[data-testid=pairing-link]")!.textContent).toBe("https://gw.example/#hub=hub-1&token=ahp_once");
  });

  it("keeps the gateway URL in the dialog's form: no save of its own, marked until the one Save", async () => {
    const devices = fakeDevices([]);
    const hub: HubClient = Object.assign(new FakeHub(), { devices });
    let url = "";
    const render = () => dom.root.render(<DevicesSettings hub={hub} savedUrl="" url={url} setUrl={(u) => (url = u)} />);
    await act(async () => render());
    expect([...dom.host.querySelectorAll("button")].some((b) => b.textContent === "Save")).toBe(false);
    url = "https://gw.example";
    await act(async () => render());
    expect(dom.host.textContent).toContain("not saved yet");
  });

  it("renders nothing where devices cannot be managed (a page the gateway served)", async () => {
    await act(async () => dom.root.render(<DevicesSettings hub={new FakeHub()} savedUrl="" url="" setUrl={() => undefined} />));
    expect(dom.host.innerHTML).toBe("");
  });
});
