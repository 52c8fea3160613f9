// What a command or path really says (issue 32 row 8). Characters that draw
// nothing or reorder what follows — bidi controls (a U+202E makes
// "notes‮hs.txt" read "notestxt.sh"), zero-width and other invisible
// format characters, tag characters that smuggle ASCII, control characters
// (\r, ESC) — are shown as visible escapes ("⟨U+202E⟩"), as code hosts do
// for hidden Unicode, and a multi-line command says how many lines it has.
// Pure functions; the components are Reveal.tsx.

/** Named hidden characters (the rest are described by their range). */
const NAMES: Readonly<Record<number, string>> = {
  0x09: "CHARACTER TABULATION",
  0x0a: "LINE FEED",
  0x0d: "CARRIAGE RETURN",
  0x1b: "ESCAPE",
  0xad: "SOFT HYPHEN",
  0x034f: "COMBINING GRAPHEME JOINER",
  0x061c: "ARABIC LETTER MARK",
  0x115f: "HANGUL CHOSEONG FILLER",
  0x1160: "HANGUL JUNGSEONG FILLER",
  0x180e: "MONGOLIAN VOWEL SEPARATOR",
  0x200b: "ZERO WIDTH SPACE",
  0x200c: "ZERO WIDTH NON-JOINER",
  0x200d: "ZERO WIDTH JOINER",
  0x200e: "LEFT-TO-RIGHT MARK",
  0x200f: "RIGHT-TO-LEFT MARK",
  0x2028: "LINE SEPARATOR",
  0x2029: "PARAGRAPH SEPARATOR",
  0x202a: "LEFT-TO-RIGHT EMBEDDING",
  0x202b: "RIGHT-TO-LEFT EMBEDDING",
  0x202c: "POP DIRECTIONAL FORMATTING",
  0x202d: "LEFT-TO-RIGHT OVERRIDE",
  0x202e: "RIGHT-TO-LEFT OVERRIDE",
  0x2060: "WORD JOINER",
  0x2061: "FUNCTION APPLICATION",
  0x2062: "INVISIBLE TIMES",
  0x2063: "INVISIBLE SEPARATOR",
  0x2064: "INVISIBLE PLUS",
  0x2066: "LEFT-TO-RIGHT ISOLATE",
  0x2067: "RIGHT-TO-LEFT ISOLATE",
  0x2068: "FIRST STRONG ISOLATE",
  0x2069: "POP DIRECTIONAL ISOLATE",
  0x3164: "HANGUL FILLER",
  0xfeff: "ZERO WIDTH NO-BREAK SPACE",
  0xffa0: "HALFWIDTH HANGUL FILLER",
};

/**
 * Every hidden character but the line feed: C0 controls but tab and line
 * feed, DEL and C1 controls, the soft hyphen, the combining grapheme
 * joiner, the Arabic letter mark, Hangul and Khmer fillers, Mongolian
 * variation selectors, zero-width characters and bidi marks (U+200B–200F),
 * line and paragraph separators, bidi embeddings and overrides
 * (U+202A–202E), invisible operators and bidi isolates (U+2060–206F),
 * variation selectors, the BOM, interlinear annotations, shorthand format
 * controls, musical formatting, tag characters and the variation selector
 * supplement.
 */
const HIDDEN =
  "\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F\\u00AD\\u034F\\u061C\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F" +
  "\\u200B-\\u200F\\u2028-\\u202E\\u2060-\\u2064\\u2066-\\u206F\\u3164\\uFE00-\\uFE0F\\uFEFF\\uFFA0\\uFFF9-\\uFFFB" +
  "\\u{1BCA0}-\\u{1BCA3}\\u{1D173}-\\u{1D17A}\\u{E0000}-\\u{E007F}\\u{E0100}-\\u{E01EF}";

/** Bidi controls: they reorder the text around them. */
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

/** How line feeds count: kept as line breaks (a command, an output) or hidden (a path, a one-line field). */
export type Newlines = "keep" | "escape";

/** Options of the reveal functions. */
export interface RevealOptions {
  /** "keep" (default) leaves line feeds alone; "escape" shows them as ⟨U+000A⟩. */
  newlines?: Newlines;
}

const KEEP = new RegExp(`[${HIDDEN}]`, "u");
const ESCAPE = new RegExp(`[${HIDDEN}\\n]`, "u");
const KEEP_ALL = new RegExp(`[${HIDDEN}]`, "gu");
const ESCAPE_ALL = new RegExp(`[${HIDDEN}\\n]`, "gu");

function pattern(opts: RevealOptions, global: boolean): RegExp {
  const esc = opts.newlines === "escape";
  const re = global ? (esc ? ESCAPE_ALL : KEEP_ALL) : esc ? ESCAPE : KEEP;
  re.lastIndex = 0;
  return re;
}

/** The escape shown for code point cp: "⟨U+202E⟩". */
export function escapeOf(cp: number): string {
  return `⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩`;
}

/** A name for code point cp ("RIGHT-TO-LEFT OVERRIDE", "TAG CHARACTER", …). */
export function hiddenName(cp: number): string {
  const named = NAMES[cp];
  if (named) return named;
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return "CONTROL CHARACTER";
  if (cp >= 0xe0000 && cp <= 0xe007f) return "TAG CHARACTER";
  if ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0x180b && cp <= 0x180f) || cp >= 0xe0100) return "VARIATION SELECTOR";
  return "INVISIBLE FORMAT CHARACTER";
}

/** Whether code point cp is a bidi control (it reorders text, not just hides). */
export function isBidiControl(cp: number): boolean {
  return BIDI.test(String.fromCodePoint(cp));
}

/** One piece of revealed text: plain text, or one hidden character with its escape. */
export type Piece = { kind: "text"; text: string } | { kind: "hidden"; cp: number; escape: string; name: string };

/** Whether s holds a hidden character. */
export function hasHidden(s: string, opts: RevealOptions = {}): boolean {
  return pattern(opts, false).test(s);
}

/** s split into plain text and an escape for every hidden character, in order. */
export function revealPieces(s: string, opts: RevealOptions = {}): Piece[] {
  if (!hasHidden(s, opts)) return s === "" ? [] : [{ kind: "text", text: s }];
  const out: Piece[] = [];
  let at = 0;
  for (const m of s.matchAll(pattern(opts, true))) {
    if (m.index > at) out.push({ kind: "text", text: s.slice(at, m.index) });
    const cp = m[0].codePointAt(0)!;
    out.push({ kind: "hidden", cp, escape: escapeOf(cp), name: hiddenName(cp) });
    at = m.index + m[0].length;
  }
  if (at < s.length) out.push({ kind: "text", text: s.slice(at) });
  return out;
}

/** s with every hidden character replaced by its escape (for titles, labels and Markdown sources). */
export function revealText(s: string, opts: RevealOptions = {}): string {
  if (!hasHidden(s, opts)) return s;
  return s.replace(pattern(opts, true), (c) => escapeOf(c.codePointAt(0)!));
}

/** The distinct hidden characters of texts, in order of first appearance. */
export function hiddenChars(texts: readonly string[], opts: RevealOptions = {}): number[] {
  const seen = new Set<number>();
  for (const s of texts) {
    if (!hasHidden(s, opts)) continue;
    for (const m of s.matchAll(pattern(opts, true))) seen.add(m[0].codePointAt(0)!);
  }
  return [...seen];
}

/** One line per hidden character: "U+202E RIGHT-TO-LEFT OVERRIDE (reorders text)". */
export function describeHidden(cps: readonly number[]): string {
  return cps.map((cp) => `${escapeOf(cp).slice(1, -1)} ${hiddenName(cp)}${isBidiControl(cp) ? " (reorders text)" : ""}`).join("\n");
}

/** The lines of a command: its first line, how many lines it has, and how many follow the first (a trailing line feed ends a line, it starts none). */
export function lineInfo(s: string): { first: string; lines: number; more: number } {
  const body = s.endsWith("\n") ? s.slice(0, -1) : s;
  const nl = body.indexOf("\n");
  let lines = 1;
  for (let i = nl; i !== -1; i = body.indexOf("\n", i + 1)) lines++;
  return { first: nl === -1 ? body : body.slice(0, nl), lines, more: lines - 1 };
}

/** "(+60 lines)" for a command of 61 lines; "" for one line. */
export function moreLinesLabel(s: string): string {
  const { more } = lineInfo(s);
  return more === 0 ? "" : `(+${more} line${more === 1 ? "" : "s"})`;
}

/** The first maxLines lines of s (head, without the line feed that ends them), and the rest after them. */
export function foldLines(s: string, maxLines: number): { head: string; rest: string; restLines: number } {
  const { lines } = lineInfo(s);
  if (lines <= maxLines) return { head: s, rest: "", restLines: 0 };
  let cut = -1;
  for (let n = 0; n < maxLines; n++) cut = s.indexOf("\n", cut + 1);
  return { head: s.slice(0, cut), rest: s.slice(cut + 1), restLines: lines - maxLines };
}
