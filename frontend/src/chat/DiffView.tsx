// A coloured line diff: removed lines red with "-", added green with "+",
// unchanged lines plain.

import { useMemo } from "react";
import { addedLines, diffLines, type DiffLine } from "./diff";

const MARK: Record<DiffLine["kind"], string> = { context: " ", add: "+", del: "-" };

/** Props of DiffView: old → new, or (old undefined) a new file's content. */
export interface DiffViewProps {
  path: string;
  old?: string;
  text: string;
}

/** The diff of an edit (old → text) or a written file (text, all added). */
export function DiffView({ path, old, text }: DiffViewProps) {
  const lines = useMemo(() => (old === undefined ? addedLines(text) : diffLines(old, text)), [old, text]);
  return (
    <figure className="diff" aria-label={`Changes to ${path}`}>
      <figcaption className="diff-path">
        {path}
        {old === undefined ? " (whole file)" : ""}
      </figcaption>
      <pre className="diff-lines">
        {lines.map((l, i) => (
          <span key={i} className={`diff-line diff-${l.kind}`}>
            <span className="diff-mark" aria-hidden="true">
              {MARK[l.kind]}
            </span>
            {l.text}
            {"\n"}
          </span>
        ))}
      </pre>
    </figure>
  );
}
