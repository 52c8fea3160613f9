// The global keyboard shortcuts: one table, read by the key handler and
// the help dialog. Chosen not to collide with the browser's own (Ctrl+N and
// Ctrl+T open windows and tabs in the dashboard, so new session is Ctrl+Alt+N).

/** What a shortcut does. */
export type ShortcutAction = "new-session" | "search" | "focus-composer" | "stop" | "toggle-sidebar" | "help";

/** One shortcut: its keys as shown, and how a keydown matches it. */
export interface Shortcut {
  action: ShortcutAction;
  keys: string;
  description: string;
  /** Also fires while typing in a text field. */
  inFields: boolean;
  match: (e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">) => boolean;
}

const ctrl = (e: Pick<KeyboardEvent, "ctrlKey" | "metaKey">) => e.ctrlKey || e.metaKey;

/** Every global shortcut, in the order the help dialog lists them. */
export const SHORTCUTS: readonly Shortcut[] = [
  { action: "new-session", keys: "Ctrl+Alt+N", description: "New session", inFields: true, match: (e) => ctrl(e) && e.altKey && e.key.toLowerCase() === "n" },
  { action: "search", keys: "Ctrl+K", description: "Search sessions and messages", inFields: true, match: (e) => ctrl(e) && !e.altKey && e.key.toLowerCase() === "k" },
  { action: "focus-composer", keys: "Ctrl+/", description: "Focus the message box", inFields: true, match: (e) => ctrl(e) && e.key === "/" },
  { action: "stop", keys: "Ctrl+.", description: "Stop the running turn (Esc in the message box)", inFields: true, match: (e) => ctrl(e) && e.key === "." },
  { action: "toggle-sidebar", keys: "Ctrl+B", description: "Show or hide the sidebar", inFields: true, match: (e) => ctrl(e) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "b" },
  { action: "help", keys: "?", description: "Show these shortcuts", inFields: false, match: (e) => e.key === "?" && !ctrl(e) && !e.altKey },
];

/** Keys that work inside lists and prompts (listed in the help dialog only). */
export const LOCAL_KEYS: readonly { keys: string; description: string }[] = [
  { keys: "Enter / Shift+Enter", description: "Send / new line in the message box" },
  { keys: "↑ ↓ Home End", description: "Move between sessions in the sidebar" },
  { keys: "F2 / Delete", description: "Rename / delete the focused session" },
  { keys: "y / a / n", description: "Allow once / always / deny a waiting tool call (also from the message box while it is empty)" },
  { keys: "Esc", description: "Close a dialog, clear the search, stop the turn from the message box" },
];

/** Whether the element takes typed text (shortcuts without inFields stay out of it). */
export function isTextField(el: Element | null): boolean {
  if (!el) return false;
  const tag = el.tagName;
  return tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && !["checkbox", "radio", "button", "submit"].includes((el as HTMLInputElement).type)) || (el as HTMLElement).isContentEditable;
}

/** The shortcut a keydown triggers, if any. */
export function shortcutFor(e: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey" | "shiftKey">, target: Element | null): ShortcutAction | null {
  for (const s of SHORTCUTS) {
    if (s.match(e) && (s.inFields || !isTextField(target))) return s.action;
  }
  return null;
}
