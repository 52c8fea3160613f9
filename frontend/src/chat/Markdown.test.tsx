// @vitest-environment jsdom
// highlight.js loads on first use: a code block shows escaped text at once
// and its colours when the module has arrived, without a new text.
import { act } from "react";
import { describe, expect, it } from "vitest";
import { highlighterVersion, loadHighlighter } from "../markdown";
import { mountPerTest } from "../testing/mount";
import { MarkdownView } from "./Markdown";

const dom = mountPerTest();

describe("MarkdownView", () => {
  it("renders code at once and highlights it when highlight.js has loaded", async () => {
    expect(highlighterVersion()).toBe(0); // a fresh module: nothing loaded yet
    act(() => dom.root.render(<MarkdownView text={'```go\nfmt.Println("hi")\n```'} />));
    expect(dom.host.querySelector("pre code")?.textContent).toBe('fmt.Println("hi")');
    expect(dom.host.querySelector(".hljs-string")).toBeNull();
    await act(async () => {
      await loadHighlighter();
    });
    expect(dom.host.querySelector("code.language-go .hljs-string")?.textContent).toBe('"hi"');
  });
});
