// A coloured line diff with line numbers: removed lines red with "-" and
// their old number, added green with "+" and their new number, unchanged
// lines plain with both. Hidden characters in the path and the lines show
// as escapes, with a warning in the header (Reveal.tsx). An edit placed in
// its file (FileSpotContext: the approval prompt of an edit_file call)
// shows the file's own line numbers and the unchanged lines around it.

import { createContext, useContext, useMemo } from "react";
import type { EditContext } from "../protocol";
import { addedLines, diffLines, type DiffLine } from "./diff";
import { revealText } from "./visible";
import { HiddenBadge, Revealed } from "./Reveal";

/**
 * Where the edit a DiffView of old → text shows is in its file, when known
 * (ToolCard provides its prompt's; nothing provides it elsewhere).
 */
export const FileSpotContext = createContext<EditContext | null>(null);

/** The lines of an edit placed in its file, numbered as there: context, the change, context. */
export function placedLines(spot: EditContext): NumberedLine[] {
  const context = (text: string): DiffLine => ({ kind: "context", text });
  return numberLines([...spot.before.map(context), ...diffLines(spot.old, spot.new), ...spot.after.map(context)], spot.start_line - spot.before.length);
}

const MARK: Record<DiffLine["kind"], string> = { context: " ", add: "+", del: "-" };

/** A diff line with its line numbers in the old and the new file (null where it has none). */
export interface NumberedLine extends DiffLine {
  oldNo: number | null;
  newNo: number | null;
}

/** Numbers diff lines from start (the first line's number in both files). */
export function numberLines(lines: readonly DiffLine[], start = 1): NumberedLine[] {
  let o = start;
  let n = start;
  return lines.map((l) => ({ ...l, oldNo: l.kind === "add" ? null : o++, newNo: l.kind === "del" ? null : n++ }));
}

/** Props of DiffView: old → new, or (old undefined) a new file's content. */
export interface DiffViewProps {
  path: string;
  old?: string;
  text: string;
  /** The line the change starts at in the file (edit_file reports it); 1 when unknown. */
  startLine?: number;
}

/** The diff of an edit (old → text) or a written file (text, all added). */
export function DiffView({ path, old, text, startLine = 1 }: DiffViewProps) {
  const spot = useContext(FileSpotContext);
  const placed = old !== undefined ? spot : null;
  const lines = useMemo(
    () => (placed ? placedLines(placed) : numberLines(old === undefined ? addedLines(text) : diffLines(old, text), startLine)),
    [placed, old, text, startLine],
  );
  const added = lines.filter((l) => l.kind === "add").length;
  const removed = lines.filter((l) => l.kind === "del").length;
  const last = lines.reduce((n, l) => Math.max(n, l.oldNo ?? 0, l.newNo ?? 0), 1);
  const width = `${String(last).length + 0.5}ch`;
  const texts = useMemo(() => lines.map((l) => l.text), [lines]);
  return (
    <figure className="diff" aria-label={`Changes to ${revealText(path, { newlines: "escape" })}`} data-placed={placed ? "true" : undefined}>
      <figcaption className="diff-path">
        <span>
          <Revealed text={path} newlines="escape" />
          {old === undefined ? " (whole file)" : ""}
        </span>
        <HiddenBadge paths={[path]} texts={texts} />
        <span className="diff-stat">
          <span className="diff-stat-add">+{added}</span> <span className="diff-stat-del">−{removed}</span>
        </span>
      </figcaption>
      <pre className="diff-lines">
        {lines.map((l, i) => (
          <span key={i} className={`diff-line diff-${l.kind}`}>
            <span className="diff-no" style={{ width }} aria-hidden="true">
              {l.oldNo ?? ""}
            </span>
            <span className="diff-no" style={{ width }} aria-hidden="true">
              {l.newNo ?? ""}
            </span>
            <span className="diff-mark" aria-hidden="true">
              {MARK[l.kind]}
            </span>
            <span className="diff-text">
              <Revealed text={l.text} />
            </span>
            {"\n"}
          </span>
        ))}
      </pre>
    </figure>
  );
}
