// Slash commands in the composer: the window's built-ins (compact, model,
// plan, title, clear, undo) and the custom commands and skills of the
// session's folder (listCommands, docs/workflows.md). Pure functions: what
// "/…" before the caret asks for, which commands match, and what a sent
// "/name args" names.

import type { CommandInfo } from "../../protocol";

/** A command the composer offers: a built-in (kind "builtin") or a custom command or skill. */
export interface SlashCommand {
  name: string;
  kind: "builtin" | "command" | "skill" | string;
  description: string;
  argumentHint?: string | undefined;
  /** "project" or "user" for a custom one. */
  source?: string | undefined;
  /** The shell lines it runs first (a custom command). */
  shell?: string[] | undefined;
  /** A repository's command the user must let run its shell lines. */
  needsTrust?: boolean | undefined;
  path?: string | undefined;
}

/** The window's own commands, in the order they are listed. */
export const BUILTIN_COMMANDS: readonly SlashCommand[] = [
  { name: "plan", kind: "builtin", description: "Switch to plan mode (only what reads runs); with text, send it", argumentHint: "[what to plan]" },
  { name: "compact", kind: "builtin", description: "Summarise older messages to free context" },
  { name: "model", kind: "builtin", description: "Change the session's model", argumentHint: "provider:model" },
  { name: "title", kind: "builtin", description: "Rename the session", argumentHint: "new title" },
  { name: "clear", kind: "builtin", description: "Start a new session in the same folder with the same model" },
  { name: "undo", kind: "builtin", description: "Undo the file changes of the last turn that made any" },
];

/** The custom commands and skills of a listCommands answer as slash commands (built-in names are the window's). */
export function customCommands(list: CommandInfo[]): SlashCommand[] {
  return list
    .filter((c) => !BUILTIN_COMMANDS.some((b) => b.name === c.name))
    .map((c) => ({ name: c.name, kind: c.kind, description: c.description, argumentHint: c.argument_hint, source: c.source, shell: c.shell, needsTrust: c.needs_trust, path: c.path }));
}

/** The command name being typed: "/" at the very start of the text, the caret still in the name. */
export function slashAt(text: string, caret: number): { query: string } | null {
  const m = /^\/([\w.:-]*)$/.exec(text.slice(0, caret));
  return m ? { query: m[1]! } : null;
}

/** The commands whose names start with query, then those containing it (case-insensitive), at most limit. */
export function matchCommands(all: readonly SlashCommand[], query: string, limit = 12): SlashCommand[] {
  const q = query.toLowerCase();
  const starts = all.filter((c) => c.name.toLowerCase().startsWith(q));
  const contains = all.filter((c) => !c.name.toLowerCase().startsWith(q) && c.name.toLowerCase().includes(q));
  return [...starts, ...contains].slice(0, limit);
}

/** "/name args" as sent: the name and the rest (trimmed); null when the text is not a slash command. */
export function parseSlash(text: string): { name: string; args: string } | null {
  const m = /^\/([\w.:-]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  return m ? { name: m[1]!, args: (m[2] ?? "").trim() } : null;
}
