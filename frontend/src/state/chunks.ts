// ChunkList: the text of a block still streaming, as the list of its deltas.
// Appending is O(1) amortised and never rebuilds the text, so a message of
// n deltas costs O(n) to accumulate (string concatenation would make every
// reader flatten an ever longer string). Versions share one append-only
// array: a version owns its first `count` entries and never sees later ones,
// so each stays immutable as far as anyone can observe; appending to an
// older version (a fork) copies its entries first.

/** The text of a streaming block: read it with chunksOf / chunkText. */
export interface ChunkList {
  /** Shared append-only storage; this version is entries [0, count). Read through chunksOf. */
  readonly store: string[];
  /** How many chunks this version holds. */
  readonly count: number;
  /** Total characters of this version. */
  readonly length: number;
}

/** A list holding text as its only chunk (empty text: no chunk). */
export function chunkList(text = ""): ChunkList {
  return text === "" ? { store: [], count: 0, length: 0 } : { store: [text], count: 1, length: text.length };
}

/** l with texts appended (empty ones skipped); l itself is unchanged. */
export function appendChunks(l: ChunkList, ...texts: string[]): ChunkList {
  let store = l.store;
  let count = l.count;
  let length = l.length;
  for (const t of texts) {
    if (t === "") continue;
    if (store.length !== count) store = store.slice(0, count); // l is not the newest version: fork
    store.push(t);
    count++;
    length += t.length;
  }
  return count === l.count ? l : { store, count, length };
}

/** The chunks of l from index `from` on (the ones a reader has not seen yet). */
export function chunksOf(l: ChunkList, from = 0): string[] {
  return l.store.slice(from, l.count);
}

/** The whole text of l (O(length): for a finished block or a test, not per delta). */
export function chunkText(l: ChunkList): string {
  return chunksOf(l).join("");
}

/** Whether a reader that consumed `seen` (an earlier version) can continue from it into l: l extends seen. */
export function extendsList(l: ChunkList, seen: ChunkList): boolean {
  if (seen.count > l.count) return false;
  if (seen.store === l.store) return true;
  // A fork copied the shared prefix: the same strings at the same places.
  for (let i = 0; i < seen.count; i++) if (seen.store[i] !== l.store[i]) return false;
  return true;
}
