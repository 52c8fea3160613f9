// What the window does for plan mode, the todo list and slash commands
// (docs/workflows.md): the open session's custom commands, skills and
// agents (listCommands, asked again after a few seconds), a sent "/name
// args" — a built-in (plan, compact, model, title, clear, undo) or a
// custom command (runCommand; a repository's command that runs shell
// lines only after the user agreed) — the user's todo edits and "Build it".

import { BUILTIN_COMMANDS, customCommands, parseSlash, type SlashCommand } from "../chat/commands";
import type { ApprovalMode, AttachmentRef, CommandList, Todo } from "../protocol";
import { sessionRecord } from "../state";
import type { HubClient } from "../transport/hub";
import type { AppController } from "./controller";

/** How long a listCommands answer is reused. */
export const COMMAND_LIST_TTL_MS = 5_000;

const EMPTY: CommandList = { commands: [], agents: [], problems: [] };

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Asks the user whether a repository command may run its shell lines (the trust dialog). */
export type ConfirmTrust = (c: SlashCommand) => Promise<boolean>;

/** The workflow actions of one controller. */
export class Workflows {
  private cached: { id: string; at: number; list: Promise<CommandList> } | null = null;

  constructor(
    private readonly ctl: AppController,
    private readonly hub: HubClient,
    private readonly now: () => number = () => Date.now(),
  ) {}

  private get id(): string | null {
    return this.ctl.store.getState().ui.selectedId;
  }

  /** The open session's commands, skills and agents (empty when none is open or the hub cannot list them). */
  list(): Promise<CommandList> {
    const id = this.id;
    if (!id) return Promise.resolve(EMPTY);
    const c = this.cached;
    if (c && c.id === id && this.now() - c.at < COMMAND_LIST_TTL_MS) return c.list;
    const list = this.hub.listCommands(id).catch((err: unknown) => {
      console.debug("[app] could not list the commands", message(err));
      return EMPTY;
    });
    this.cached = { id, at: this.now(), list };
    return list;
  }

  /** The slash commands "/" offers: the built-ins, then the folder's commands and skills. */
  async slashCommands(): Promise<SlashCommand[]> {
    return [...BUILTIN_COMMANDS, ...customCommands((await this.list()).commands)];
  }

  /** The @-completions of query: the agents as agent-NAME, then the folder's files. */
  async mentions(query: string): Promise<string[]> {
    const [list, files] = await Promise.all([this.list(), this.ctl.listFiles(query)]);
    const q = query.toLowerCase();
    const agents = list.agents.map((a) => `agent-${a.name}`).filter((a) => q === "" || a.toLowerCase().includes(q));
    return [...agents, ...files];
  }

  /**
   * Sends text from the composer: a slash command runs (a custom one that
   * needs trust asks confirm first; refused: false); anything else is a
   * message.
   */
  async send(text: string, attachments: AttachmentRef[], confirm: ConfirmTrust): Promise<boolean> {
    const slash = attachments.length === 0 ? parseSlash(text) : null;
    if (slash && BUILTIN_COMMANDS.some((b) => b.name === slash.name)) return this.builtin(slash.name, slash.args);
    const custom = slash ? (await this.slashCommands()).find((c) => c.name === slash.name && c.kind !== "builtin") : undefined;
    if (!slash || !custom) {
      await this.ctl.send(text, attachments);
      return true;
    }
    if (custom.needsTrust && !(await confirm(custom))) return false;
    return this.runCommand(custom.name, slash.args, custom.needsTrust === true, text);
  }

  /** Runs a built-in command. */
  private async builtin(name: string, args: string): Promise<boolean> {
    const id = this.id;
    if (!id) return false;
    switch (name) {
      case "plan":
        await this.ctl.setApprovalMode("plan");
        if (args) await this.ctl.send(args);
        return true;
      case "compact":
        await this.ctl.compact();
        return true;
      case "model":
        if (!args) {
          const ids = this.ctl.store.getState().ui.models.filter((m) => m.configured).map((m) => m.id);
          this.ctl.notify(`Usage: /model provider:model${ids.length ? ` (configured: ${ids.slice(0, 6).join(", ")})` : ""}`);
          return false;
        }
        return this.ctl.updateSession({ model: args });
      case "title":
        if (!args) {
          this.ctl.notify("Usage: /title new title");
          return false;
        }
        await this.ctl.rename(id, args);
        return true;
      case "clear":
        return this.clear();
      case "undo":
        return this.undoLast();
    }
    return false;
  }

  /** Runs /name args in the open session (trust: the user let its shell lines run). */
  async runCommand(name: string, args: string, trust: boolean, typed = `/${name} ${args}`.trim()): Promise<boolean> {
    const id = this.id;
    if (!id) return false;
    this.cached = null; // trust changes what the list says; a refusal may mean the file changed since it was listed
    try {
      const r = await this.hub.runCommand(id, name, args, trust);
      this.ctl.noteSubmitted(id, r.turn_id, typed, r.queued);
      return true;
    } catch (err) {
      this.ctl.notify(`Could not run /${name}: ${message(err)}`);
      return false;
    }
  }

  /** /clear: a new session in the open one's folder, with its model, opened. */
  async clear(): Promise<boolean> {
    const id = this.id;
    const rec = id ? sessionRecord(this.ctl.store.getState(), id) : undefined;
    if (!rec) return false;
    try {
      const s = await this.hub.createSession({ workspace_path: rec.workspace_path, ...(rec.active_model ? { model: rec.active_model } : {}) });
      await this.ctl.refreshSessions();
      this.ctl.open(s.session_id);
      return true;
    } catch (err) {
      this.ctl.notify(`Could not start a new session: ${message(err)}`);
      return false;
    }
  }

  /** /undo: undoes the file changes of the newest turn of the open session that made any. */
  async undoLast(): Promise<boolean> {
    const id = this.id;
    const chat = id ? this.ctl.store.getState().chat[id] : undefined;
    const last = [...(chat?.order ?? [])].reverse().map((m) => chat!.messages[m]?.turnOutcome).find((t) => t && (t.files_changed ?? 0) > 0);
    if (!last || last.files_undone) {
      this.ctl.notify(last ? "The last turn that changed files is already undone." : "No turn of this session changed files.");
      return false;
    }
    try {
      const u = await this.ctl.undoTurn(last.id);
      const skipped = u.skipped.length ? `; left ${u.skipped.length} alone (${u.skipped.map((s) => `${s.path}: ${s.reason}`).join(", ")})` : "";
      this.ctl.notify(`Restored ${u.restored.length} ${u.restored.length === 1 ? "file" : "files"} to before the turn${skipped}.`);
      return true;
    } catch (err) {
      this.ctl.notify(`Could not undo: ${message(err)}`);
      return false;
    }
  }

  /** Replaces the open session's todo list (the user's edit). */
  async setTodos(todos: Todo[]): Promise<boolean> {
    const id = this.id;
    if (!id) return false;
    try {
      await this.hub.setTodos(id, todos);
      return true;
    } catch (err) {
      this.ctl.notify(`Could not change the todo list: ${message(err)}`);
      return false;
    }
  }

  /** "Build it": the open session builds its presented plan (plan: the user's edited text) in mode. */
  async buildPlan(mode: ApprovalMode, plan?: string): Promise<boolean> {
    const id = this.id;
    if (!id) return false;
    try {
      const r = await this.hub.buildPlan(id, mode, plan);
      this.ctl.noteSubmitted(id, r.turn_id, "Build it", r.queued);
      await this.ctl.refreshSessions();
      return true;
    } catch (err) {
      this.ctl.notify(`Could not build the plan: ${message(err)}`);
      return false;
    }
  }
}
