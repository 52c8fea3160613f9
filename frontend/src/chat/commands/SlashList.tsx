// The slash-command completions: each command's name, argument hint,
// description and where it comes from; a repository command that runs
// shell commands says so. The chosen one is scrolled into view.

import { useEffect, useRef } from "react";
import type { useSlashCommands } from "./useSlashCommands";
import type { SlashCommand } from "./slash";

/** Where a command comes from, as its badge says it. */
function origin(c: SlashCommand): string {
  if (c.kind === "builtin") return "built-in";
  return `${c.kind === "skill" ? "skill" : "command"} · ${c.source ?? ""}`;
}

/** The list of matching commands above the composer. */
export function SlashList({ options, active, pick }: ReturnType<typeof useSlashCommands>) {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => {
    const li = list.current?.children[active];
    if (li instanceof HTMLElement) li.scrollIntoView?.({ block: "nearest" }); // the chosen one stays in view (jsdom has no scrollIntoView)
  }, [active]);
  return (
    <ul ref={list} className="slash-list" role="listbox" id="slash-list" aria-label="Commands">
      {options.map((c, i) => (
        <li
          key={c.name}
          role="option"
          aria-selected={i === active}
          className={i === active ? "is-active" : undefined}
          data-testid="slash-option"
          data-kind={c.kind}
          onMouseDown={(e) => (e.preventDefault(), pick(c))}
        >
          <span className="slash-name">/{c.name}</span>
          <span className="slash-hint">{c.argumentHint ?? ""}</span>
          <span className="slash-desc">{c.description}</span>
          <span className="slash-origin">{origin(c)}</span>
          {c.shell && c.shell.length > 0 && (
            <span className="slash-shell" title={`Runs first: ${c.shell.join("; ")}`}>
              runs {c.shell.length === 1 ? "a command" : `${c.shell.length} commands`}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
