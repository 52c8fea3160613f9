// Light/dark theme: "system" follows the OS; the choice is kept in localStorage.

/** A theme choice. */
export type Theme = 'system' | 'light' | 'dark';

const KEY = 'agenthub.theme';
const ORDER: Theme[] = ['system', 'light', 'dark'];

/** Reads the saved theme ("system" when none or storage is unavailable). */
export function loadTheme(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): Theme {
  try {
    const v = storage?.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

/** Applies and saves a theme: data-theme on the root element ("system" removes it). */
export function applyTheme(t: Theme, root: HTMLElement = document.documentElement, storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage): void {
  if (t === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', t);
  try {
    storage?.setItem(KEY, t);
  } catch {
    // private mode: the choice lasts for this page only
  }
}

/** The next theme in the cycle system → light → dark. */
export function nextTheme(t: Theme): Theme {
  return ORDER[(ORDER.indexOf(t) + 1) % ORDER.length]!;
}
