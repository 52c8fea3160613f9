// @vitest-environment jsdom
import { describe, expect, it, vi } from "vitest";
import { appendChunks, chunkList } from "../state/chunks";
import { IncrementalMarkdown, IMG_SRC_ATTR, MAX_MARKDOWN_CHARS, SEGMENT_CHARS, SegmentedText, createBlockRenderer, createSanitizer, handleCopyClick, isImagePlaceholder, isSpansOnly, loadHighlighter, loadImages, splitBlocks } from "./index";

function dom(html: string): HTMLElement {
  const div = document.createElement("div");
  div.innerHTML = html;
  return div;
}

/** Asserts rendered HTML has nothing executable. */
function expectInert(html: string): void {
  const root = dom(html);
  expect(root.querySelectorAll("script, iframe, object, embed, form, style, svg, math, frame, base, meta, link")).toHaveLength(0);
  for (const el of root.querySelectorAll("*")) {
    for (const attr of Array.from(el.attributes)) {
      expect(attr.name.startsWith("on"), `${el.tagName} ${attr.name}`).toBe(false);
      expect(attr.name).not.toBe("style");
      expect(/^\s*(javascript|vbscript|data):/i.test(attr.value), `${el.tagName} ${attr.name}=${attr.value}`).toBe(false);
    }
  }
}

describe("sanitiser", () => {
  const render = createBlockRenderer(createSanitizer());
  const vectors = [
    "<script>alert(1)</script>",
    "hello <img src=x onerror=alert(1)>",
    '<img src="javascript:alert(1)">',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    '<a href="javascript:alert(1)">x</a>',
    "<svg onload=alert(1)><circle r=1></svg>",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    '<iframe src="https://evil.example"></iframe>',
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    '<form action="https://evil.example"><input name=a><button>go</button></form>',
    '<div style="background:url(javascript:alert(1))" onclick="alert(1)">x</div>',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>',
    '<details open ontoggle=alert(1)>x</details>',
    "```html\n<script>alert(1)</script>\n```",
    '<a href="https://ok.example" onmouseover="alert(1)">ok</a>',
  ];
  for (const v of vectors) {
    it(`neutralises ${JSON.stringify(v).slice(0, 60)}`, () => expectInert(render(v)));
  }

  it("keeps safe links, opening them with noopener in a new tab", () => {
    const a = dom(render("[docs](https://example.com/x)")).querySelector("a");
    expect(a?.getAttribute("href")).toBe("https://example.com/x");
    expect(a?.getAttribute("target")).toBe("_blank");
    expect(a?.getAttribute("rel")).toBe("noopener noreferrer");
  });

  it("never renders a remote image: a placeholder names its host", () => {
    const html = render("see ![chart](http://127.0.0.1:8777/x.png?leak=SECRET) and <img src=https://evil.example/p.gif>");
    const root = dom(html);
    expect(root.querySelectorAll("img")).toHaveLength(0);
    const holders = root.querySelectorAll(`[${IMG_SRC_ATTR}]`);
    expect(holders).toHaveLength(2);
    expect(holders[0]!.tagName).toBe("BUTTON");
    expect(holders[0]!.textContent).toContain("127.0.0.1:8777");
    expect(holders[0]!.textContent).toContain("chart");
    expect(holders[1]!.textContent).toContain("evil.example");
    expect(isImagePlaceholder(holders[0]!)).toBe(true);
    expect(isImagePlaceholder(root)).toBe(false);
    // After the user's click: real images, without a referrer.
    const loaded = dom(loadImages(html, document)).querySelectorAll("img");
    expect(Array.from(loaded, (i) => i.getAttribute("src"))).toEqual(["http://127.0.0.1:8777/x.png?leak=SECRET", "https://evil.example/p.gif"]);
    expect(loaded[0]!.getAttribute("referrerpolicy")).toBe("no-referrer");
    expect(loaded[0]!.getAttribute("alt")).toBe("chart");
  });

  it("drops images without an http(s) source, keeping their alt text", () => {
    const root = dom(render("![local](/etc/passwd) ![rel](x.png)"));
    expect(root.querySelectorAll(`img, [${IMG_SRC_ATTR}]`)).toHaveLength(0);
    expect(root.textContent).toContain("local");
  });

  it("shows script in a code block as text", () => {
    const root = dom(render("```html\n<script>alert(1)</script>\n```"));
    expect(root.querySelector("pre code")?.textContent).toBe("<script>alert(1)</script>");
  });

  it("highlights code (once highlight.js has loaded) and offers a copy button", async () => {
    await loadHighlighter();
    const root = dom(render('```go\nfmt.Println("hi")\n```'));
    expect(root.querySelector("code.language-go .hljs-string")?.textContent).toBe('"hi"');
    const button = root.querySelector("[data-md-copy]");
    const writeText = vi.fn(() => Promise.resolve());
    expect(handleCopyClick(button, { writeText })).toBe('fmt.Println("hi")');
    expect(writeText).toHaveBeenCalledWith('fmt.Println("hi")');
    expect(handleCopyClick(root.querySelector("pre"), { writeText })).toBeNull();
    // The copy button sits in a header beside the language, not over the code.
    expect(root.querySelector(".md-code-head .md-lang")?.textContent).toBe("go");
    expect(root.querySelector("pre [data-md-copy]")).toBeNull();
  });

  it("draws task list boxes, keeps table alignment and blockquotes", () => {
    const root = dom(render("- [x] done\n- [ ] todo\n\n| a | b |\n|:-:|--:|\n| 1 | 2 |\n\n> quoted"));
    const boxes = [...root.querySelectorAll(".md-check")];
    expect(boxes.map((b) => b.getAttribute("aria-label"))).toEqual(["done", "not done"]);
    expect(boxes[0]!.classList.contains("is-checked")).toBe(true);
    expect(root.querySelector("input")).toBeNull();
    expect([...root.querySelectorAll("th")].map((c) => c.getAttribute("align"))).toEqual(["center", "right"]);
    expect(root.querySelector("blockquote")?.textContent?.trim()).toBe("quoted");
  });
});

describe("model output cannot borrow the app's looks or page state (issue 40 row 9)", () => {
  const render = createBlockRenderer(createSanitizer());
  it("drops class, style, role, aria-*, data-*, id, name, tabindex, accesskey, contenteditable and autofocus", () => {
    const html = render(
      '<div class="modal approval-prompt" role="dialog" aria-modal="true" aria-label="Approve bash?" style="position:fixed" id="composer" name="x" ' +
        'tabindex="0" accesskey="y" contenteditable="true" autofocus data-testid="tool-output" data-md-copy="" data-md-img="https://e.example/x.png">' +
        'Approve once <span class="btn approval-once" role="button">y</span></div>\n\n<p class="md-code" aria-hidden="true">text</p>',
    );
    const root = dom(html);
    expect(root.textContent).toContain("Approve once");
    for (const el of root.querySelectorAll("*")) {
      expect(Array.from(el.attributes, (a) => a.name), el.outerHTML).toEqual([]);
    }
    expect(root.querySelector('[aria-modal], [role], [class], [id], [data-md-copy], [data-md-img]')).toBeNull();
  });

  it("keeps the app's own code block and task box markup, added after sanitising", async () => {
    await loadHighlighter();
    const root = dom(render('- [x] done\n\n```go\nfmt.Println("hi")\n```'));
    expect(root.querySelector(".md-code .md-code-head .md-lang")?.textContent).toBe("go");
    expect(root.querySelector("code.hljs.language-go .hljs-string")?.textContent).toBe('"hi"');
    expect(root.querySelector("button.md-copy[data-md-copy]")?.getAttribute("aria-label")).toBe("Copy code");
    expect(root.querySelector('.md-check.is-checked[role="img"]')?.getAttribute("aria-label")).toBe("done");
    expect(root.querySelector("[data-md-slot]")).toBeNull();
  });

  it("puts highlight.js output into a slot only when it is text and class spans", () => {
    expect(isSpansOnly('<span class="hljs-string">&quot;hi&quot;</span> x &lt; y')).toBe(true);
    expect(isSpansOnly('<span class="a" onclick="x">y</span>')).toBe(false);
    expect(isSpansOnly("<img src=x onerror=alert(1)>")).toBe(false);
    expect(isSpansOnly('<span class="a"><b>y</b></span>')).toBe(false);
  });

  it("a slot the model writes itself stays empty", () => {
    const root = dom(render('```\ncode\n```\n\n<div data-md-slot="0-0"></div><span data-md-slot="x-0">y</span>'));
    expect(root.querySelectorAll(".md-code")).toHaveLength(1);
    expect(root.querySelector('[data-md-slot="0-0"]')?.innerHTML).toBe("");
  });
});

describe("incremental markdown", () => {
  it("splits at blank lines outside fences", () => {
    const text = "# T\n\npara\nmore\n\n```\na\n\nb\n```\n\ntail";
    const { done, openStart } = splitBlocks(text);
    expect(done.map((s) => text.slice(s.start, s.end))).toEqual(["# T\n", "para\nmore\n", "```\na\n\nb\n```\n"]);
    expect(text.slice(openStart)).toBe("tail");
  });

  it("parses each completed block once, re-parsing only the open tail per delta", () => {
    const inner = createBlockRenderer(createSanitizer());
    const spy = vi.fn((src: string) => inner(src));
    const md = new IncrementalMarkdown(spy);
    const full = "# Title\n\nFirst paragraph with **bold**.\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\n- one\n- two\n";
    let blocks = md.update("");
    const completedAt = new Map<string, number>();
    for (let i = 1; i <= full.length; i++) {
      blocks = md.update(full.slice(0, i));
      for (const b of blocks) if (!b.open && !completedAt.has(b.key)) completedAt.set(b.key, spy.mock.calls.length);
    }
    const srcs = spy.mock.calls.map((c) => c[0]);
    const done = ["# Title\n", "First paragraph with **bold**.\n", "```ts\nconst a = 1;\n\nconst b = 2;\n```\n"];
    done.forEach((block, i) => {
      // once a block is complete it is never rendered again ...
      const after = srcs.slice(completedAt.get(`b${i}`));
      expect(after.filter((s) => s === block), block).toHaveLength(0);
    });
    // ... each update renders at most one new completed block plus the open tail, never the whole message.
    expect(spy.mock.calls.length).toBeLessThanOrEqual(full.length + done.length);
    expect(srcs.filter((s) => s.includes("# Title") && s.includes("First"))).toHaveLength(0);
    expect(blocks.map((b) => b.open)).toEqual([false, false, false, true]);
    expect(dom(blocks.map((b) => b.html).join("")).querySelectorAll("h1, strong, pre, li")).toHaveLength(5);
  });

  it("re-splits when the text is replaced (message.complete mismatch) and reuses memoised blocks", () => {
    const spy = vi.fn((src: string) => `<p>${src.length}</p>`);
    const md = new IncrementalMarkdown(spy);
    md.update("aaa\n\nbbb\n\nccc");
    const calls = spy.mock.calls.length;
    const blocks = md.update("aaa\n\nbXb\n\nccc");
    expect(blocks).toHaveLength(3);
    expect(spy.mock.calls.slice(calls).map((c) => c[0])).toEqual(["bXb\n", "ccc"]);
  });
});

describe("IncrementalMarkdown live tail", () => {
  it("returns the open block as raw text while live and renders it once final", () => {
    let renders = 0;
    const md = new IncrementalMarkdown((src) => (renders++, `<p>${src.trim()}</p>`));
    const live = md.update("first\n\n**bold", { live: true });
    expect(live.map((b) => [b.html, b.segments?.join(""), b.open])).toEqual([
      ["<p>first</p>", undefined, false],
      ["", "**bold", true],
    ]);
    expect(renders).toBe(1); // the tail was not rendered
    const done = md.update("first\n\n**bold**");
    expect(done.at(-1)).toEqual({ key: "b1", html: "<p>**bold**</p>", open: true });
    expect(renders).toBe(2); // the completed block came from the memo
  });
});


describe("IncrementalMarkdown over a chunk list (a streaming message)", () => {
  const stream = (texts: string[]) => texts.reduce((l, t) => appendChunks(l, t), chunkList());

  it("reads only the chunks it has not seen, renders each completed block once, and keeps closed live segments", () => {
    const spy = vi.fn((src: string) => `<p>${src.trim()}</p>`);
    const md = new IncrementalMarkdown(spy);
    const words = Array.from({ length: 3000 }, (_, i) => `w${i} `);
    let l = stream(["# Title\n", "\n"]);
    let blocks = md.update(l, { live: true });
    expect(blocks).toEqual([{ key: "b0", html: "<p># Title</p>", open: false }]);
    const done = blocks[0];
    let closedSeen: string[] = [];
    for (const w of words) {
      l = appendChunks(l, w);
      blocks = md.update(l, { live: true });
      const segs = blocks[1]!.segments!;
      // Closed segments are the very same strings from one update to the next: React leaves them alone.
      closedSeen.forEach((s, i) => expect(segs[i]).toBe(s));
      closedSeen = segs.slice(0, -1);
    }
    expect(blocks[0]).toBe(done);
    expect(spy).toHaveBeenCalledTimes(1); // the live tail is never rendered
    const segs = blocks[1]!.segments!;
    expect(segs.join("")).toBe(words.join(""));
    expect(segs.length).toBeGreaterThan(3);
    for (const s of segs) expect(s.length).toBeLessThanOrEqual(SEGMENT_CHARS);
    for (const s of segs.slice(0, -1)) expect(s.endsWith(" ")).toBe(true); // cut after a space, not inside a word
  });

  it("does not start over when the final text equals the streamed chunks: only the tail is rendered", () => {
    const spy = vi.fn((src: string) => `<p>${src.trim()}</p>`);
    const md = new IncrementalMarkdown(spy);
    const parts = ["first ", "para\n\nsecond", " para\n\n", "tail **x", "**"];
    const live = md.update(stream(parts), { live: true });
    expect(spy.mock.calls.map((c) => c[0])).toEqual(["first para\n", "second para\n"]);
    const final = md.update(parts.join(""));
    expect(final.slice(0, 2)).toEqual(live.slice(0, 2));
    expect(final[0]).toBe(live[0]);
    expect(spy.mock.calls.map((c) => c[0])).toEqual(["first para\n", "second para\n", "tail **x**"]);
    expect(final[2]).toEqual({ key: "b2", html: "<p>tail **x**</p>", open: true });
    // A different final text (message.complete corrected it) starts over, reusing memoised blocks.
    md.update("first para\n\nother");
    expect(spy.mock.calls.slice(3).map((c) => c[0])).toEqual(["other"]);
  });

  it("keeps a block over MAX_MARKDOWN_CHARS as plain text, also when final", () => {
    const spy = vi.fn((src: string) => `<p>${src.length}</p>`);
    const md = new IncrementalMarkdown(spy);
    const huge = "word ".repeat(MAX_MARKDOWN_CHARS / 4);
    const blocks = md.update(`small\n\n${huge}\n\n${huge}`);
    expect(spy.mock.calls.map((c) => c[0])).toEqual(["small\n"]);
    expect(blocks.map((b) => [b.open, b.html, b.segments?.join("")])).toEqual([
      [false, "<p>6</p>", undefined],
      [false, "", `${huge}\n`],
      [true, "", huge],
    ]);
  });
});

describe("SegmentedText", () => {
  it("closes segments after a newline, else a space, else at the limit", () => {
    const t = new SegmentedText();
    const line = "x".repeat(SEGMENT_CHARS - 100) + "\n";
    t.append(line + "y".repeat(200));
    expect(t.segments()).toEqual([line, "y".repeat(200)]);
    t.reset();
    t.append("z".repeat(SEGMENT_CHARS * 2 + 5));
    expect(t.segments().map((s) => s.length)).toEqual([SEGMENT_CHARS, SEGMENT_CHARS, 5]);
    expect(t.length).toBe(SEGMENT_CHARS * 2 + 5);
  });
});
