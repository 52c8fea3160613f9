// Incremental Markdown: the message is split into top-level blocks at blank
// lines outside fenced code. Completed blocks are rendered once and memoised;
// on each delta only the trailing open block is re-scanned and re-rendered.
// Trade-off: constructs spanning blank lines (loose lists, reference links
// defined in another block) render per block.

import { createBlockRenderer, type BlockRenderer } from "./render";

/** One rendered block. key is stable for the block's position. */
export interface RenderedBlock {
  key: string;
  html: string;
  /** True for the trailing block that may still grow. */
  open: boolean;
  /**
   * Set (and html empty) for the open block of a live update: its raw source,
   * to be shown as plain text until the block closes.
   */
  text?: string;
}

/** Options of IncrementalMarkdown.update. */
export interface UpdateOptions {
  /**
   * The text is still streaming: the open trailing block is returned as raw
   * text (not parsed, highlighted or sanitised) so a delta costs no Markdown
   * work. Pass false for the final text to render the tail as Markdown.
   */
  live?: boolean;
}

interface Span {
  start: number;
  end: number;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Splits text[from..] into blocks. Returns the completed blocks (each followed
 * by a blank line outside a fence) and the start of the trailing open block.
 */
export function splitBlocks(text: string, from = 0): { done: Span[]; openStart: number } {
  const done: Span[] = [];
  let blockStart = -1;
  let fence: string | null = null;
  let pos = from;
  while (pos < text.length) {
    const nl = text.indexOf("\n", pos);
    if (nl === -1) break; // the last line is incomplete: it belongs to the open block
    const line = text.slice(pos, nl);
    const m = FENCE.exec(line);
    if (fence !== null) {
      if (m && m[1]!.startsWith(fence[0]!) && m[1]!.length >= fence.length && line.trim() === m[1]) fence = null;
    } else if (line.trim() === "") {
      if (blockStart !== -1) done.push({ start: blockStart, end: pos });
      blockStart = -1;
    } else {
      if (blockStart === -1) blockStart = pos;
      if (m) fence = m[1]!;
    }
    pos = nl + 1;
  }
  return { done, openStart: blockStart === -1 ? pos : blockStart };
}

/** Renders a growing Markdown string incrementally. One instance per message. */
export class IncrementalMarkdown {
  private text = "";
  private doneSpans: Span[] = [];
  private doneHtml: string[] = [];
  private scanFrom = 0;
  private readonly cache = new Map<string, string>();
  private readonly render: BlockRenderer;

  /** render defaults to marked + highlight.js + the strict sanitiser. */
  constructor(render: BlockRenderer = createBlockRenderer()) {
    this.render = render;
  }

  /**
   * Updates to the message's full current text and returns its blocks. An
   * appended text re-renders only the open tail; any other change re-splits,
   * still reusing memoised HTML of unchanged completed blocks.
   */
  update(text: string, opts: UpdateOptions = {}): RenderedBlock[] {
    if (!text.startsWith(this.text)) {
      this.doneSpans = [];
      this.doneHtml = [];
      this.scanFrom = 0;
    }
    this.text = text;
    const { done, openStart } = splitBlocks(text, this.scanFrom);
    for (const span of done) {
      const src = text.slice(span.start, span.end);
      let html = this.cache.get(src);
      if (html === undefined) {
        html = this.render(src);
        this.cache.set(src, html);
      }
      this.doneSpans.push(span);
      this.doneHtml.push(html);
    }
    // Resume the next scan at the open block's start: its lines are re-examined
    // (the fence state of a completed prefix is always "closed").
    this.scanFrom = openStart;
    const blocks: RenderedBlock[] = this.doneHtml.map((html, i) => ({ key: `b${i}`, html, open: false }));
    const tail = text.slice(openStart);
    if (tail.trim() !== "") {
      const key = `b${blocks.length}`;
      blocks.push(opts.live ? { key, html: "", text: tail, open: true } : { key, html: this.render(tail), open: true });
    }
    return blocks;
  }
}
