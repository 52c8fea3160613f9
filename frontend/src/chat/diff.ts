// Line diffs for approval prompts: what an edit_file call replaces (old →
// new) and what a write_file call writes (all added). Pure functions.

/** One line of a diff. */
export interface DiffLine {
  kind: "context" | "add" | "del";
  text: string;
}

/** Above this many old × new lines the diff is not searched: the old text shows removed, the new added. */
export const MAX_DIFF_CELLS = 4_000_000;

/** The lines of text ("" has none; a final newline ends the last line rather than starting one). */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * The line diff of a → b: a longest common subsequence of lines kept as
 * context, the rest removed (from a) and added (from b), removals first
 * within each change.
 */
export function diffLines(a: string, b: string): DiffLine[] {
  const x = splitLines(a);
  const y = splitLines(b);
  // Common prefix and suffix cost nothing; only the middle is searched.
  let pre = 0;
  while (pre < x.length && pre < y.length && x[pre] === y[pre]) pre++;
  let suf = 0;
  while (suf < x.length - pre && suf < y.length - pre && x[x.length - 1 - suf] === y[y.length - 1 - suf]) suf++;
  const head = x.slice(0, pre).map((text): DiffLine => ({ kind: "context", text }));
  const tail = x.slice(x.length - suf).map((text): DiffLine => ({ kind: "context", text }));
  return [...head, ...diffMiddle(x.slice(pre, x.length - suf), y.slice(pre, y.length - suf)), ...tail];
}

function diffMiddle(x: string[], y: string[]): DiffLine[] {
  const del = (text: string): DiffLine => ({ kind: "del", text });
  const add = (text: string): DiffLine => ({ kind: "add", text });
  if (x.length === 0 || y.length === 0 || x.length * y.length > MAX_DIFF_CELLS) return [...x.map(del), ...y.map(add)];
  // lcs[i][j]: the LCS length of x[i:] and y[j:], in one flat array.
  const w = y.length + 1;
  const lcs = new Uint32Array((x.length + 1) * w);
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) {
      lcs[i * w + j] = x[i] === y[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      out.push({ kind: "context", text: x[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) out.push(del(x[i++]!));
    else out.push(add(y[j++]!));
  }
  while (i < x.length) out.push(del(x[i++]!));
  while (j < y.length) out.push(add(y[j++]!));
  return out;
}

/** The diff of a new file's content: every line added. */
export function addedLines(content: string): DiffLine[] {
  return splitLines(content).map((text) => ({ kind: "add", text }));
}
