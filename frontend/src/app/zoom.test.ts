import { describe, expect, it } from "vitest";
import { nextZoom } from "./zoom";

describe("zoom", () => {
  it("steps in and out within its bounds and resets", () => {
    expect(nextZoom(100, "zoom-in")).toBe(110);
    expect(nextZoom(100, "zoom-out")).toBe(90);
    expect(nextZoom(200, "zoom-in")).toBe(200);
    expect(nextZoom(50, "zoom-out")).toBe(50);
    expect(nextZoom(150, "zoom-reset")).toBe(100);
    expect(nextZoom(33, "zoom-in")).toBe(110);
  });
});
