// @vitest-environment jsdom
import { afterEach, describe, expect, it } from "vitest";
import { DEVICE_KEY, PAIRING_KEY, deviceId, servedByGateway, takePairing, unpairedMessage } from "./gatewaybackend";

afterEach(() => {
  localStorage.clear();
  window.history.replaceState(null, "", "/");
});

describe("the gateway page's pairing", () => {
  it("takes the pairing from the link, keeps it and clears the address bar (the token stays out of history and logs)", () => {
    window.history.replaceState(null, "", "/?x=1#hub=hub-1&token=ahp_secret");
    expect(takePairing(window)).toEqual({ hubId: "hub-1", token: "ahp_secret" });
    expect(window.location.hash).toBe("");
    expect(window.location.href).not.toContain("ahp_secret");
    expect(window.location.search).toBe("?x=1");
    // A later visit without the link uses what was kept.
    expect(takePairing(window)).toEqual({ hubId: "hub-1", token: "ahp_secret" });
  });

  it("has no pairing without a link or with a kept value that is not one", () => {
    expect(takePairing(window)).toBeNull();
    localStorage.setItem(PAIRING_KEY, "{not json");
    expect(takePairing(window)).toBeNull();
    localStorage.setItem(PAIRING_KEY, JSON.stringify({ hubId: 7, token: "t" }));
    expect(takePairing(window)).toBeNull();
  });

  it("makes the device id once and keeps it", () => {
    const id = deviceId(window);
    expect(id).toMatch(/^browser-[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(deviceId(window)).toBe(id);
    expect(localStorage.getItem(DEVICE_KEY)).toBe(id);
  });

  it("knows a page the gateway served, and names the hubs online when unpaired", () => {
    expect(servedByGateway(document)).toBe(false);
    const meta = document.createElement("meta");
    meta.name = "agenthub-backend";
    meta.content = "gateway";
    document.head.append(meta);
    expect(servedByGateway(document)).toBe(true);
    meta.remove();
    expect(unpairedMessage(["hub-1", "hub-2"])).toContain("Hubs online here: hub-1, hub-2.");
    expect(unpairedMessage([])).toContain("No hub is connected to this gateway right now.");
  });
});
