// Renders (possibly still streaming) Markdown through IncrementalMarkdown:
// completed blocks keep identical HTML strings, so React leaves their DOM
// alone. While live, the trailing open block is plain pre-wrapped text in
// segments (no parse, highlight or sanitise per delta; only the last segment
// changes); completed blocks are grouped so a long message has few
// content-visibility containers.

import { memo, useMemo, useRef, useState, useSyncExternalStore, type MouseEvent, type ReactElement } from "react";
import { AppendReader, IncrementalMarkdown, SegmentedText, handleCopyClick, highlighterVersion, isImagePlaceholder, loadImages, onHighlighterLoaded, type GrowingText, type RenderedBlock } from "../markdown";

/** Props of MarkdownView. */
export interface MarkdownViewProps {
  /** The Markdown source: a finished string, or the chunk list of a block still streaming. */
  text: GrowingText;
  className?: string;
  /** The text is still streaming: show the open trailing block as plain text. */
  live?: boolean;
}

/** Completed blocks per group; a full group never changes and skips layout while off screen. */
export const BLOCK_GROUP = 16;

/** One segment of live plain text: a closed one never re-renders. */
const LiveSegment = memo(function LiveSegment({ text }: { text: string }) {
  return <div className="md-live-seg">{text}</div>;
});

function LiveSegments({ segments }: { segments: readonly string[] }) {
  return segments.map((seg, i) => <LiveSegment key={i} text={seg} />);
}

const Block = memo(function Block({ b, images }: { b: RenderedBlock; images: boolean }) {
  if (b.segments !== undefined) {
    return (
      <div className="md-block md-open md-live">
        <LiveSegments segments={b.segments} />
      </div>
    );
  }
  const html = images ? loadImages(b.html, document) : b.html;
  return <div className={b.open ? "md-block md-open" : "md-block"} dangerouslySetInnerHTML={{ __html: html }} />;
});

const Group = memo(
  function Group({ blocks, images }: { blocks: RenderedBlock[]; images: boolean }) {
    return (
      <div className="md-group">
        {blocks.map((b) => (
          <Block key={b.key} b={b} images={images} />
        ))}
      </div>
    );
  },
  // A full group's blocks are completed and their HTML memoised: equal strings (or the same plain segments) mean nothing changed.
  (prev, next) =>
    prev.images === next.images &&
    prev.blocks.length === next.blocks.length &&
    prev.blocks.every((b, i) => b === next.blocks[i] || (b.html === next.blocks[i]!.html && b.segments === next.blocks[i]!.segments)),
);

/**
 * Sanitised Markdown; one IncrementalMarkdown per mounted view. Remote images
 * show as placeholders until one of them is clicked, which loads the images
 * of this view (one message) only.
 */
export function MarkdownView({ text, className, live = false }: MarkdownViewProps) {
  const md = useRef<{ renderer: IncrementalMarkdown; highlight: number } | null>(null);
  // When highlight.js arrives (it loads on first use) the blocks render again, with colours.
  const highlight = useSyncExternalStore(onHighlighterLoaded, highlighterVersion);
  if (md.current?.highlight !== highlight) md.current = { renderer: new IncrementalMarkdown(), highlight };
  const [images, setImages] = useState(false);
  const blocks = useMemo(() => md.current!.renderer.update(text, { live }), [text, live, highlight]);
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    if (isImagePlaceholder(e.target)) {
      setImages(true);
      return;
    }
    handleCopyClick(e.target);
  };
  const open = blocks.at(-1)?.open ? blocks.at(-1) : undefined;
  const done = open ? blocks.length - 1 : blocks.length;
  const fullGroups = Math.floor(done / BLOCK_GROUP) * BLOCK_GROUP;
  const groups: ReactElement[] = [];
  for (let i = 0; i < fullGroups; i += BLOCK_GROUP) {
    groups.push(<Group key={`g${i}`} blocks={blocks.slice(i, i + BLOCK_GROUP)} images={images} />);
  }
  return (
    <div className={`md ${className ?? ""}`} onClick={onClick}>
      {groups}
      {blocks.slice(fullGroups, done).map((b) => (
        <Block key={b.key} b={b} images={images} />
      ))}
      {open && <Block key={open.key} b={open} images={images} />}
    </div>
  );
}

/** Plain text still streaming (a thinking block), shown in segments like a live Markdown tail. */
export function LiveText({ text, className }: { text: GrowingText; className?: string }) {
  const state = useRef<{ reader: AppendReader; buffer: SegmentedText } | null>(null);
  state.current ??= { reader: new AppendReader(), buffer: new SegmentedText() };
  const segments = useMemo(() => {
    const { reader, buffer } = state.current!;
    const { reset, pieces } = reader.read(text);
    if (reset) buffer.reset();
    for (const p of pieces) buffer.append(p);
    return buffer.segments();
  }, [text]);
  return (
    <div className={className}>
      <LiveSegments segments={segments} />
    </div>
  );
}
