// Renders (possibly still streaming) Markdown through IncrementalMarkdown:
// completed blocks keep identical HTML strings, so React leaves their DOM
// alone. While live, the trailing open block is plain pre-wrapped text (no
// parse, highlight or sanitise per delta); completed blocks are grouped so a
// long message has few content-visibility containers.

import { memo, useMemo, useRef, type MouseEvent, type ReactElement } from "react";
import { IncrementalMarkdown, handleCopyClick, type RenderedBlock } from "../markdown";

/** Props of MarkdownView. */
export interface MarkdownViewProps {
  text: string;
  className?: string;
  /** The text is still streaming: show the open trailing block as plain text. */
  live?: boolean;
}

/** Completed blocks per group; a full group never changes and skips layout while off screen. */
export const BLOCK_GROUP = 16;

const Block = memo(function Block({ b }: { b: RenderedBlock }) {
  if (b.text !== undefined) return <div className="md-block md-open md-live">{b.text}</div>;
  return <div className={b.open ? "md-block md-open" : "md-block"} dangerouslySetInnerHTML={{ __html: b.html }} />;
});

const Group = memo(
  function Group({ blocks }: { blocks: RenderedBlock[] }) {
    return (
      <div className="md-group">
        {blocks.map((b) => (
          <Block key={b.key} b={b} />
        ))}
      </div>
    );
  },
  // A full group's blocks are completed and their HTML memoised: equal strings mean nothing changed.
  (prev, next) => prev.blocks.length === next.blocks.length && prev.blocks.every((b, i) => b.html === next.blocks[i]!.html),
);

/** Sanitised Markdown; one IncrementalMarkdown per mounted view. */
export function MarkdownView({ text, className, live = false }: MarkdownViewProps) {
  const md = useRef<IncrementalMarkdown | null>(null);
  md.current ??= new IncrementalMarkdown();
  const blocks = useMemo(() => md.current!.update(text, { live }), [text, live]);
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    handleCopyClick(e.target);
  };
  const done = blocks.filter((b) => !b.open);
  const open = blocks.find((b) => b.open);
  const fullGroups = Math.floor(done.length / BLOCK_GROUP) * BLOCK_GROUP;
  const groups: ReactElement[] = [];
  for (let i = 0; i < fullGroups; i += BLOCK_GROUP) {
    groups.push(<Group key={`g${i}`} blocks={done.slice(i, i + BLOCK_GROUP)} />);
  }
  return (
    <div className={`md ${className ?? ""}`} onClick={onClick}>
      {groups}
      {done.slice(fullGroups).map((b) => (
        <Block key={b.key} b={b} />
      ))}
      {open && <Block key={open.key} b={open} />}
    </div>
  );
}
