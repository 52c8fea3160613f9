// Renders (possibly still streaming) Markdown through IncrementalMarkdown:
// completed blocks keep identical HTML strings, so React leaves their DOM alone.

import { useMemo, useRef, type MouseEvent } from "react";
import { IncrementalMarkdown, handleCopyClick } from "../markdown";

/** Props of MarkdownView. */
export interface MarkdownViewProps {
  text: string;
  className?: string;
}

/** Sanitised Markdown; one IncrementalMarkdown per mounted view. */
export function MarkdownView({ text, className }: MarkdownViewProps) {
  const md = useRef<IncrementalMarkdown | null>(null);
  md.current ??= new IncrementalMarkdown();
  const blocks = useMemo(() => md.current!.update(text), [text]);
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    handleCopyClick(e.target);
  };
  return (
    <div className={`md ${className ?? ""}`} onClick={onClick}>
      {blocks.map((b) => (
        <div key={b.key} className={b.open ? "md-block md-open" : "md-block"} dangerouslySetInnerHTML={{ __html: b.html }} />
      ))}
    </div>
  );
}
