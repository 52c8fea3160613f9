// Slash-command completion in the composer: typing "/" at the start lists
// the commands (name, description, argument hint); ↑ ↓ choose, Enter or
// Tab insert "/name " (Enter on a name typed in full sends it), Esc closes. The list is asked for once per "/"
// (the folder's files may change between uses).

import { useEffect, useState, type KeyboardEvent } from "react";
import type { MentionText } from "../useMentions";
import { matchCommands, slashAt, type SlashCommand } from "./slash";

/** The completion state of t; commands absent means no completion. */
export function useSlashCommands(commands: (() => Promise<SlashCommand[]>) | undefined, t: MentionText) {
  const { text, caret, area } = t;
  const at = commands ? slashAt(text, caret) : null;
  const typing = at !== null;
  const [all, setAll] = useState<SlashCommand[]>([]);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  useEffect(() => {
    if (!typing || !commands) {
      setDismissed(false);
      return undefined;
    }
    let live = true;
    void commands().then(
      (cs) => live && setAll(cs),
      () => live && setAll([]),
    );
    return () => {
      live = false;
    };
  }, [typing, commands]);
  const options = at ? matchCommands(all, at.query) : [];
  const open = at !== null && !dismissed && options.length > 0;
  useEffect(() => setActive(0), [at?.query]);
  const pick = (c: SlashCommand) => {
    const insert = `/${c.name} `;
    t.setText(insert + text.slice(caret).replace(/^\S*\s?/, ""));
    t.setCaret(insert.length);
    setDismissed(true);
    requestAnimationFrame(() => area.current?.setSelectionRange(insert.length, insert.length));
  };
  /** Handles a key while the list is open; true when it was the list's. */
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      setActive((active + (e.key === "ArrowDown" ? 1 : options.length - 1)) % options.length);
    } else if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey) {
      const c = options[active] ?? options[0]!;
      if (e.key === "Enter" && text.trim() === `/${c.name}`) return false; // typed in full: Enter sends it
      pick(c);
    } else if (e.key === "Escape") {
      setDismissed(true);
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  };
  return { open, options, active, pick, onKey };
}
