// The keyed collections Settings edits in its form and saves with Save
// (MCP servers, price overrides): how an entry staged in the form differs
// from what is saved, so each list can mark what Save will change. Pure.

/** What Save will do to one entry: add it, remove it, or change it. */
export type Pending = "added" | "removed" | "changed";

/** Whether a and b are the same JSON value (object keys in any order). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** What Save will do to key: undefined when the staged entry is the saved one. */
export function pendingOf<T>(saved: Record<string, T> | undefined, staged: Record<string, T> | undefined, key: string): Pending | undefined {
  const [s, f] = [saved?.[key], staged?.[key]];
  if (s === undefined) return f === undefined ? undefined : "added";
  if (f === undefined) return "removed";
  return sameValue(s, f) ? undefined : "changed";
}

/** One entry of a staged list: its key, the value shown (staged, or saved when removed) and what Save will do. */
export interface StagedEntry<T> {
  key: string;
  value: T;
  pending: Pending | undefined;
}

/** Every entry saved or staged, sorted by key; removed ones stay listed (marked) until Save. */
export function stagedEntries<T>(saved: Record<string, T> | undefined, staged: Record<string, T> | undefined): StagedEntry<T>[] {
  const keys = [...new Set([...Object.keys(saved ?? {}), ...Object.keys(staged ?? {})])].sort((a, b) => a.localeCompare(b));
  return keys.map((key) => ({ key, value: (staged?.[key] ?? saved?.[key]) as T, pending: pendingOf(saved, staged, key) }));
}

/** staged with key set to value. */
export function withEntry<T>(staged: Record<string, T> | undefined, key: string, value: T): Record<string, T> {
  return { ...staged, [key]: value };
}

/** staged without key. */
export function withoutEntry<T>(staged: Record<string, T> | undefined, key: string): Record<string, T> {
  const next = { ...staged };
  delete next[key];
  return next;
}

/** The words a list shows beside an entry Save will change. */
export function pendingText(p: Pending): string {
  switch (p) {
    case "added":
      return "added · not saved yet";
    case "removed":
      return "removed · not saved yet";
    default:
      return "changed · not saved yet";
  }
}
