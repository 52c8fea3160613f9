import { describe, expect, it } from "vitest";
import { placedLines } from "./DiffView";

describe("placedLines (issue 34 row 5)", () => {
  it("numbers an edit as its file does, with the unchanged lines around it", () => {
    const lines = placedLines({ start_line: 5, old: "line e\n", new: "line E\nline E2\n", before: ["line b", "line c", "line d"], after: ["line f", "line g", "line h"] });
    expect(lines.map((l) => [l.kind, l.oldNo, l.newNo, l.text])).toEqual([
      ["context", 2, 2, "line b"],
      ["context", 3, 3, "line c"],
      ["context", 4, 4, "line d"],
      ["del", 5, null, "line e"],
      ["add", null, 5, "line E"],
      ["add", null, 6, "line E2"],
      ["context", 6, 7, "line f"],
      ["context", 7, 8, "line g"],
      ["context", 8, 9, "line h"],
    ]);
  });
});
