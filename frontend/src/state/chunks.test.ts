import { describe, expect, it } from "vitest";
import { appendChunks, chunkList, chunkText, chunksOf, extendsList } from "./chunks";

describe("ChunkList", () => {
  it("accumulates deltas in one shared array: appending never copies or joins", () => {
    let l = chunkList();
    const first = appendChunks(l, "a");
    l = first;
    for (let i = 0; i < 10_000; i++) l = appendChunks(l, `${i} `);
    expect(l.store).toBe(first.store); // the same array all along: O(1) per delta
    expect(l.count).toBe(10_001);
    expect(l.length).toBe(chunkText(l).length);
    expect(chunkText(l).startsWith("a0 1 2 ")).toBe(true);
  });

  it("keeps every version immutable: an older one never sees later chunks", () => {
    const v1 = appendChunks(chunkList("x"), "y");
    const v2 = appendChunks(v1, "z");
    expect(chunkText(v1)).toBe("xy");
    expect(chunkText(v2)).toBe("xyz");
    expect(chunksOf(v2, v1.count)).toEqual(["z"]); // a reader that had v1 reads only the new chunk
    expect(extendsList(v2, v1)).toBe(true);
  });

  it("copies on a fork (appending to an older version), leaving the newer one intact", () => {
    const v1 = appendChunks(chunkList("x"), "y");
    const v2 = appendChunks(v1, "z");
    const fork = appendChunks(v1, "w");
    expect(fork.store).not.toBe(v2.store);
    expect(chunkText(fork)).toBe("xyw");
    expect(chunkText(v2)).toBe("xyz");
    expect(extendsList(fork, v1)).toBe(true);
    expect(extendsList(fork, v2)).toBe(false);
    expect(extendsList(v1, v2)).toBe(false);
  });

  it("skips empty texts (the list is unchanged)", () => {
    const l = chunkList("a");
    expect(appendChunks(l, "", "")).toBe(l);
    expect(chunkList("")).toEqual({ store: [], count: 0, length: 0 });
  });
});
