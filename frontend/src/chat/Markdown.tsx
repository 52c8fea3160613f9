// Renders (possibly still streaming) Markdown through IncrementalMarkdown:
// completed blocks keep identical HTML strings, so React leaves their DOM
// alone. While live, the trailing open block is plain pre-wrapped text (no
// parse, highlight or sanitise per delta); completed blocks are grouped so a
// long message has few content-visibility containers.

import { memo, useMemo, useRef, useState, type MouseEvent, type ReactElement } from "react";
import { IncrementalMarkdown, handleCopyClick, isImagePlaceholder, loadImages, type RenderedBlock } from "../markdown";

/** Props of MarkdownView. */
export interface MarkdownViewProps {
  text: string;
  className?: string;
  /** The text is still streaming: show the open trailing block as plain text. */
  live?: boolean;
}

/** Completed blocks per group; a full group never changes and skips layout while off screen. */
export const BLOCK_GROUP = 16;

const Block = memo(function Block({ b, images }: { b: RenderedBlock; images: boolean }) {
  if (b.text !== undefined) return <div className="md-block md-open md-live">{b.text}</div>;
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
  // A full group's blocks are completed and their HTML memoised: equal strings mean nothing changed.
  (prev, next) =>
    prev.images === next.images && prev.blocks.length === next.blocks.length && prev.blocks.every((b, i) => b.html === next.blocks[i]!.html),
);

/**
 * Sanitised Markdown; one IncrementalMarkdown per mounted view. Remote images
 * show as placeholders until one of them is clicked, which loads the images
 * of this view (one message) only.
 */
export function MarkdownView({ text, className, live = false }: MarkdownViewProps) {
  const md = useRef<IncrementalMarkdown | null>(null);
  md.current ??= new IncrementalMarkdown();
  const [images, setImages] = useState(false);
  const blocks = useMemo(() => md.current!.update(text, { live }), [text, live]);
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    if (isImagePlaceholder(e.target)) {
      setImages(true);
      return;
    }
    handleCopyClick(e.target);
  };
  const done = blocks.filter((b) => !b.open);
  const open = blocks.find((b) => b.open);
  const fullGroups = Math.floor(done.length / BLOCK_GROUP) * BLOCK_GROUP;
  const groups: ReactElement[] = [];
  for (let i = 0; i < fullGroups; i += BLOCK_GROUP) {
    groups.push(<Group key={`g${i}`} blocks={done.slice(i, i + BLOCK_GROUP)} images={images} />);
  }
  return (
    <div className={`md ${className ?? ""}`} onClick={onClick}>
      {groups}
      {done.slice(fullGroups).map((b) => (
        <Block key={b.key} b={b} images={images} />
      ))}
      {open && <Block key={open.key} b={open} images={images} />}
    </div>
  );
}
