// Showing commands and paths as they are (visible.ts): hidden characters as
// visible escapes with a "hidden Unicode" warning, and a long command folded
// after its first lines behind a "N more lines" button.

import { useState } from "react";
import { describeHidden, foldLines, hiddenChars, lineInfo, revealPieces, type Newlines } from "./visible";

/** Props of Revealed. */
export interface RevealedProps {
  text: string;
  /** "keep" (default): line feeds break lines; "escape": shown as ⟨U+000A⟩ (paths, one-line fields). */
  newlines?: Newlines;
}

/** text with every hidden character shown as a marked escape ("⟨U+202E⟩"), never as itself. */
export function Revealed({ text, newlines = "keep" }: RevealedProps) {
  const pieces = revealPieces(text, { newlines });
  if (pieces.length === 1 && pieces[0]!.kind === "text") return <>{text}</>;
  return (
    <>
      {pieces.map((p, i) =>
        p.kind === "text" ? (
          p.text
        ) : (
          <span key={i} className="hidden-char" title={`${p.escape.slice(1, -1)} ${p.name}`}>
            {p.escape}
          </span>
        ),
      )}
    </>
  );
}

/** Props of HiddenBadge. */
export interface HiddenBadgeProps {
  /** Texts the badge speaks for whose line feeds are line breaks (a command, the lines of a diff). */
  texts?: readonly string[];
  /** Texts the badge speaks for whose line feeds are hidden too (paths, one-line fields). */
  paths?: readonly string[];
}

/** A warning when the texts or paths hold hidden characters, naming them; nothing otherwise. */
export function HiddenBadge({ texts = [], paths = [] }: HiddenBadgeProps) {
  const cps = [...new Set([...hiddenChars(paths, { newlines: "escape" }), ...hiddenChars(texts)])];
  if (cps.length === 0) return null;
  const list = describeHidden(cps);
  return (
    <span className="hidden-unicode" role="note" data-testid="hidden-unicode" title={`Shown as escapes:\n${list}`} aria-label={`hidden Unicode: ${list.replace(/\n/g, "; ")}`}>
      ⚠ hidden Unicode
    </span>
  );
}

/** Lines a command shows before its "N more lines" button. */
export const COMMAND_FOLD_LINES = 8;

/**
 * A command as the approval prompt shows it: its line count when it has
 * more than one, a hidden-Unicode warning, the first COMMAND_FOLD_LINES
 * lines and a visible "N more lines" button for the rest.
 */
export function CommandView({ command }: { command: string }) {
  const [open, setOpen] = useState(false);
  const { lines } = lineInfo(command);
  const fold = foldLines(command, COMMAND_FOLD_LINES);
  return (
    <div className="command-view" data-lines={lines}>
      {(lines > 1 || hiddenChars([command]).length > 0) && (
        <p className="command-meta">
          {lines > 1 && <span className="command-lines" data-testid="command-lines">{lines} lines</span>}
          <HiddenBadge texts={[command]} />
        </p>
      )}
      <pre className="approval-command">
        <code>
          <Revealed text={open ? command : fold.head} />
        </code>
      </pre>
      {fold.restLines > 0 && (
        <button type="button" className="btn btn-xs command-more" data-testid="command-more" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Show the first lines only" : `▸ ${fold.restLines} more line${fold.restLines === 1 ? "" : "s"}`}
        </button>
      )}
    </div>
  );
}
