// The window's zoom (View → Zoom in / Zoom out / Actual size, Ctrl+= Ctrl+-
// Ctrl+0 in the native menu): a CSS zoom factor on the page, remembered.

/** Where the zoom factor is kept. */
export const ZOOM_KEY = "agenthub.zoom";
/** Zoom steps, in percent of the normal size. */
export const ZOOM_STEPS = [50, 67, 75, 80, 90, 100, 110, 125, 150, 175, 200];

/** The remembered zoom (percent), 100 when none or invalid. */
export function loadZoom(): number {
  const z = Number(globalThis.localStorage?.getItem(ZOOM_KEY));
  return ZOOM_STEPS.includes(z) ? z : 100;
}

/** The zoom after a menu action: one step in or out, or back to 100. */
export function nextZoom(z: number, action: string): number {
  const i = ZOOM_STEPS.indexOf(z);
  const at = i < 0 ? ZOOM_STEPS.indexOf(100) : i;
  switch (action) {
    case "zoom-in":
      return ZOOM_STEPS[Math.min(at + 1, ZOOM_STEPS.length - 1)]!;
    case "zoom-out":
      return ZOOM_STEPS[Math.max(at - 1, 0)]!;
    default:
      return 100;
  }
}

/** Applies and remembers z (percent). */
export function applyZoom(z: number): void {
  document.documentElement.style.setProperty("zoom", z === 100 ? "" : `${z}%`);
  globalThis.localStorage?.setItem(ZOOM_KEY, String(z));
}
