// Incremental Markdown: the message is split into top-level blocks at blank
// lines outside fenced code. Completed blocks are rendered once and memoised;
// appended text is scanned once (a line when it completes), so a message of
// n characters costs O(n) to split however many updates it takes. While the
// message streams, the trailing open block is shown as plain text in
// segments of at most SEGMENT_CHARS: an update re-renders only the last
// segment, never the whole block. The source is a string (a finished
// message: appending to it continues the scan) or a chunk list (a streaming
// one: only the chunks not seen yet are read).
// Trade-off: constructs spanning blank lines (loose lists, reference links
// defined in another block) render per block.

import { chunksOf, extendsList, type ChunkList } from "../state/chunks";
import { createBlockRenderer, type BlockRenderer } from "./render";

/** One rendered block. key is stable for the block's position. */
export interface RenderedBlock {
  key: string;
  html: string;
  /** True for the trailing block that may still grow. */
  open: boolean;
  /**
   * Set (and html empty) for a block shown as plain text: the open block of a
   * live update (until it closes), or a block over MAX_MARKDOWN_CHARS. Its
   * source in segments; every one but the last never changes.
   */
  segments?: string[];
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

/** Characters of a live segment before it is closed (then it never changes). */
export const SEGMENT_CHARS = 4096;

/**
 * A block longer than this shows as plain text, also when final: parsing,
 * sanitising and laying out one huge paragraph or code block would freeze
 * the window for a second or more, while plain segments off screen cost
 * nothing (content-visibility).
 */
export const MAX_MARKDOWN_CHARS = 128 * 1024;

/**
 * Splits text[from..] into blocks. Returns the completed blocks (each followed
 * by a blank line outside a fence) and the start of the trailing open block.
 */
export function splitBlocks(text: string, from = 0): { done: Span[]; openStart: number } {
  const scan = new BlockScanner();
  const done: Span[] = [];
  let pos = from;
  let blockStart = -1;
  for (const line of text.slice(from).split(/(?<=\n)/)) {
    if (!line.endsWith("\n")) break; // the last line is incomplete: it belongs to the open block
    const kind = scan.line(line.slice(0, -1));
    if (kind === "close" && blockStart !== -1) done.push({ start: blockStart, end: pos });
    if (kind === "close" || kind === "blank") blockStart = -1;
    else if (blockStart === -1) blockStart = pos;
    pos += line.length;
  }
  return { done, openStart: blockStart === -1 ? pos : blockStart };
}

/** The fence state of a Markdown scan, one complete line at a time. */
class BlockScanner {
  private fence: string | null = null;
  private inBlock = false;

  /** What a complete line (without its newline) does: joins the open block, is a blank line between blocks, or closes the block. */
  line(line: string): "block" | "blank" | "close" {
    const m = FENCE.exec(line);
    if (this.fence !== null) {
      if (m && m[1]!.startsWith(this.fence[0]!) && m[1]!.length >= this.fence.length && line.trim() === m[1]) this.fence = null;
      return "block";
    }
    if (line.trim() === "") {
      const closes = this.inBlock;
      this.inBlock = false;
      return closes ? "close" : "blank";
    }
    this.inBlock = true;
    if (m) this.fence = m[1]!;
    return "block";
  }

  reset(): void {
    this.fence = null;
    this.inBlock = false;
  }
}

/**
 * Plain text growing at its end, kept as segments: once a segment reaches
 * SEGMENT_CHARS it is closed (preferably after a newline or a space) and never
 * changes, so showing an append re-renders only the last one.
 */
export class SegmentedText {
  private closed: string[] = [];
  private pieces: string[] = [];
  private size = 0;
  private total = 0;

  /** Characters held. */
  get length(): number {
    return this.total;
  }

  /** Appends text. */
  append(text: string): void {
    if (text === "") return;
    this.pieces.push(text);
    this.size += text.length;
    this.total += text.length;
    if (this.size >= SEGMENT_CHARS) this.closeSegments();
  }

  /** The segments, oldest first (the last one may still grow). */
  segments(): string[] {
    return this.pieces.length === 0 ? this.closed.slice() : [...this.closed, this.pieces.join("")];
  }

  /** Empties it. */
  reset(): void {
    this.closed = [];
    this.pieces = [];
    this.size = 0;
    this.total = 0;
  }

  /** Closes full segments: each ends after its last newline (or else space) in its second half, or at SEGMENT_CHARS. */
  private closeSegments(): void {
    const text = this.pieces.join("");
    const half = SEGMENT_CHARS / 2;
    let start = 0;
    while (text.length - start >= SEGMENT_CHARS) {
      const window = text.slice(start, start + SEGMENT_CHARS);
      let cut = window.lastIndexOf("\n") + 1;
      if (cut < half) cut = window.lastIndexOf(" ") + 1;
      if (cut < half) cut = SEGMENT_CHARS;
      this.closed.push(window.slice(0, cut));
      start += cut;
    }
    const rest = text.slice(start);
    this.pieces = rest === "" ? [] : [rest];
    this.size = rest.length;
  }
}

/** A growing source: a finished string, or the chunk list of a block still streaming. */
export type GrowingText = string | ChunkList;

/** Whether text begins with the chunks of l, in order (compared in place, nothing joined). */
function startsWithChunks(text: string, l: ChunkList): boolean {
  if (text.length < l.length) return false;
  let at = 0;
  for (const c of chunksOf(l)) {
    if (!text.startsWith(c, at)) return false;
    at += c.length;
  }
  return true;
}

/** Reads a growing source by what is new: what was appended since the last read, or all of it (reset) when it was replaced. */
export class AppendReader {
  private seen: { text: string } | { chunks: ChunkList } = { text: "" };

  /** The pieces not read yet; reset means the source no longer extends what was read, and pieces are all of it. */
  read(source: GrowingText): { reset: boolean; pieces: string[] } {
    const seen = this.seen;
    if (typeof source === "string") {
      this.seen = { text: source };
      if ("text" in seen && source.startsWith(seen.text)) return { reset: false, pieces: [source.slice(seen.text.length)] };
      // A message that finished streaming: its final text usually is exactly what its chunks were.
      if ("chunks" in seen && startsWithChunks(source, seen.chunks)) return { reset: false, pieces: [source.slice(seen.chunks.length)] };
      return { reset: true, pieces: [source] };
    }
    this.seen = { chunks: source };
    if ("chunks" in seen && extendsList(source, seen.chunks)) return { reset: false, pieces: chunksOf(source, seen.chunks.count) };
    return { reset: true, pieces: chunksOf(source) };
  }
}

/** Renders a growing Markdown source incrementally. One instance per message. */
export class IncrementalMarkdown {
  private readonly render: BlockRenderer;
  private readonly cache = new Map<string, string>();
  private readonly scanner = new BlockScanner();
  /** Completed blocks, rendered. */
  private done: RenderedBlock[] = [];
  /** Complete lines of the open block, each with its newline. */
  private blockLines: string[] = [];
  /** Pieces of the current (incomplete) line. */
  private line: string[] = [];
  /** The open block's text as shown while live. */
  private readonly live = new SegmentedText();
  /** Whether the open block has a non-blank character (else there is no open block to show). */
  private openHasText = false;
  private readonly reader = new AppendReader();

  /** render defaults to marked + highlight.js + the strict sanitiser. */
  constructor(render: BlockRenderer = createBlockRenderer()) {
    this.render = render;
  }

  /**
   * Updates to the message's full current source and returns its blocks.
   * Text appended to what was read before is scanned alone; any other
   * change starts over, still reusing memoised HTML of unchanged blocks.
   */
  update(source: GrowingText, opts: UpdateOptions = {}): RenderedBlock[] {
    const { reset, pieces } = this.reader.read(source);
    if (reset) this.reset();
    for (const p of pieces) this.feed(p);
    if (!this.openHasText) return this.done.slice();
    const key = `b${this.done.length}`;
    const plain = opts.live || this.live.length > MAX_MARKDOWN_CHARS;
    const open: RenderedBlock = plain
      ? { key, html: "", open: true, segments: this.live.segments() }
      : { key, html: this.render(this.blockLines.join("") + this.line.join("")), open: true };
    return [...this.done, open];
  }

  /** A completed block: its memoised HTML, or plain segments when it is too large for Markdown. */
  private renderDone(key: string, src: string): RenderedBlock {
    if (src.length > MAX_MARKDOWN_CHARS) {
      const text = new SegmentedText();
      text.append(src);
      return { key, html: "", open: false, segments: text.segments() };
    }
    let html = this.cache.get(src);
    if (html === undefined) {
      html = this.render(src);
      this.cache.set(src, html);
    }
    return { key, html, open: false };
  }

  private reset(): void {
    this.scanner.reset();
    this.done = [];
    this.blockLines = [];
    this.line = [];
    this.live.reset();
    this.openHasText = false;
  }

  /** Reads appended text: complete lines go through the scanner, the rest waits for its newline. */
  private feed(text: string): void {
    let pos = 0;
    while (pos < text.length) {
      const nl = text.indexOf("\n", pos);
      const end = nl === -1 ? text.length : nl + 1;
      const piece = text.slice(pos, end);
      this.live.append(piece);
      if (!this.openHasText && piece.trim() !== "") this.openHasText = true;
      if (nl === -1) {
        this.line.push(piece);
        break;
      }
      this.line.push(piece);
      this.completeLine(this.line.join(""));
      this.line = [];
      pos = end;
    }
  }

  private completeLine(line: string): void {
    const kind = this.scanner.line(line.slice(0, -1));
    if (kind === "block") {
      this.blockLines.push(line);
      return;
    }
    if (kind === "close") {
      this.done.push(this.renderDone(`b${this.done.length}`, this.blockLines.join("")));
      this.blockLines = [];
    }
    this.live.reset();
    this.openHasText = false;
  }
}
