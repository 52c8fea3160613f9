// The application controller: the one store (state/store.ts) and the effects
// around it — the session list poll, which session is open (and its
// transport), history paging and the user's actions. Every change of state
// is an action through the pure reducer; streamed frames are batched per
// animation frame. Components read the store and call these methods.

import type { StoreApi } from "zustand/vanilla";
import { isKnownEvent, type ApprovalAnswer, type ApprovalMode, type AttachmentRef, type PermissionRule, type ServerFrame, type Session, type TurnChanges, type TurnUndone } from "../protocol";
import { createAppStore, newestTopLevel, sessionRecord, toolCallOf, type Action, type AppState, type AppStore } from "../state";
import { RpcError, type Transport } from "../transport/types";
import { ActionBatcher, defaultScheduler, type FrameScheduler } from "./batcher";
import type { ExportFormat, ExportResult, HubClient, InstructionFile, SearchHit, SessionUpdate, ToolOutputChunk } from "../transport/hub";
import { Workflows } from "./workflows";

/** Controller options. */
export interface ControllerOptions {
  hub: HubClient;
  /** A new transport for one session stream. */
  transport: () => Transport;
  schedule?: FrameScheduler;
  /**
   * Session-list refresh interval (default 10 s; 0 disables polling). The
   * records of streamed sessions apply at once, as events; the poll catches
   * changes of sessions nobody streams.
   */
  pollMs?: number;
  /** Called when the open session changes (e.g. to update location.hash). */
  onSelect?: (id: string | null) => void;
  /** History page size when scrolling up (default 100). */
  pageSize?: number;
}

/**
 * What the output panel searches for a hit of query: the query itself when
 * it is one term ("row-377"), else its longest word (the hub matched words,
 * the panel matches text).
 */
export function outputQuery(query: string): string {
  const q = query.trim();
  if (q !== "" && !/\s/.test(q)) return q;
  const words = q.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return words.reduce((a, b) => (b.length > a.length ? b : a), "");
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Drives the UI: see the file comment. */
export class AppController {
  /** The page's state: sessions, chat, ui. */
  readonly store: StoreApi<AppStore>;
  /** Plan mode, the todo list and slash commands (workflows.ts). */
  readonly workflows: Workflows;
  private readonly hub: HubClient;
  private readonly makeTransport: () => Transport;
  private readonly batcher: ActionBatcher;
  private readonly pollMs: number;
  private readonly pageSize: number;
  private readonly onSelect: (id: string | null) => void;
  private transport: Transport | null = null;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  /** Numbers list requests in the order they were sent (a late answer to an older one is dropped). */
  private listRequests = 0;
  /** False once the hub said it has no listPendingApprovals (not asked again). */
  private canListApprovals = true;
  private disposed = false;

  constructor(opts: ControllerOptions) {
    this.hub = opts.hub;
    this.makeTransport = opts.transport;
    this.pollMs = opts.pollMs ?? 10_000;
    this.pageSize = opts.pageSize ?? 100;
    this.onSelect = opts.onSelect ?? (() => undefined);
    this.store = createAppStore();
    this.batcher = new ActionBatcher((actions) => this.store.getState().dispatchAll(actions), opts.schedule ?? defaultScheduler());
    this.workflows = new Workflows(this, opts.hub);
  }

  private get state(): AppState {
    return this.store.getState();
  }

  private dispatch(a: Action): void {
    this.store.getState().dispatch(a);
  }

  /** Loads sessions and models, opens initialId (or the newest top-level session) and starts polling. */
  async start(initialId: string | null): Promise<void> {
    const [sessions] = await Promise.all([this.refreshSessions(), this.loadModels()]);
    if (this.disposed) return;
    const wanted = initialId && sessions.some((s) => s.session_id === initialId) ? initialId : null;
    const first = wanted ?? newestTopLevel(sessions)?.session_id ?? null;
    if (first) this.open(first);
    if (this.pollMs > 0) this.pollTimer = setInterval(() => void this.refreshSessions(), this.pollMs);
  }

  /** Stops polling and closes the open transport. */
  dispose(): void {
    this.disposed = true;
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
    this.transport?.close();
    this.transport = null;
    this.batcher.dispose();
  }

  /** Re-reads the session list; failures become a notice. Resolves with the list as shown. */
  async refreshSessions(): Promise<Session[]> {
    this.batcher.flush(); // events already received count as older than the answer
    const request = ++this.listRequests;
    const askedAt = this.state.sessions.version;
    try {
      const sessions = await this.hub.listSessions();
      this.dispatch({ type: "sessionsListed", sessions, request, askedAt });
    } catch (err) {
      this.dispatch({ type: "sessionsFailed", notice: `Could not list sessions: ${message(err)}` });
    }
    return this.state.sessions.records;
  }

  /** Reads the model list (context windows for the meter). */
  async loadModels(): Promise<void> {
    try {
      this.dispatch({ type: "modelsLoaded", models: await this.hub.listModels() });
    } catch (err) {
      this.notify(`Could not list models: ${message(err)}`);
    }
  }

  /** Opens a session: streams it into the store, resuming from its cursor. */
  open(id: string): void {
    if (this.disposed) return;
    if (this.state.ui.selectedId === id && this.transport) return;
    this.batcher.flush();
    this.transport?.close();
    const t = this.makeTransport();
    this.transport = t;
    this.dispatch({ type: "selected", sessionId: id });
    this.onSelect(id);
    // A session the list does not show yet (a worker opened from its card): list it now, not at the next poll.
    if (!sessionRecord(this.state, id)) void this.refreshSessions();
    t.connect(id, {
      cursor: () => {
        this.batcher.flush();
        return this.state.chat[id]?.lastEventId ?? null;
      },
      frame: (frame) => {
        this.followUp(id, frame);
        this.batcher.push({ type: "frame", sessionId: id, frame });
      },
      state: (state) => this.batcher.push({ type: "connection", sessionId: id, state }),
    });
  }

  /**
   * Reads what a frame implies but does not carry: the approvals waiting in
   * a snapshot's session (a snapshot has messages, not the request events);
   * the list after a delegate.started of a worker the list does not show yet
   * (the reducer lists a placeholder meanwhile) or a compaction.completed (the
   * session's cost changed without a session.updated).
   */
  private followUp(sessionId: string, frame: ServerFrame): void {
    if (frame.type === "snapshot" && (frame.session.pending_approvals ?? 0) > 0) void this.loadApprovals(sessionId);
    if (frame.type !== "event" || !isKnownEvent(frame.event)) return;
    const ev = frame.event;
    if (ev.type === "compaction.completed" || ev.type === "session.forked") void this.refreshSessions();
    // A new path: read it afresh now, and again once the branch's turn has
    // ended (its messages then carry their siblings, ‹ n/m ›).
    if (ev.type === "session.branched") {
      if (ev.payload.reason !== "switch") this.branchTurns.add(sessionId);
      queueMicrotask(() => this.resync(sessionId));
    }
    if ((ev.type === "turn.completed" || ev.type === "turn.cancelled") && this.branchTurns.delete(sessionId)) queueMicrotask(() => this.resync(sessionId));
    if (ev.type !== "delegate.started") return;
    const wid = ev.payload.worker_session_id;
    const { sessions } = this.state;
    if (wid && !sessions.placeholders[wid] && !sessionRecord(this.state, wid)) void this.refreshSessions();
  }

  /** Sessions whose branch turn (regenerate, edit) runs: read again when it ends. */
  private readonly branchTurns = new Set<string>();

  /** Reads the open session afresh (a new snapshot): its path changed. */
  private resync(sessionId: string): void {
    if (this.disposed || this.state.ui.selectedId !== sessionId) return;
    this.batcher.flush();
    this.transport?.close();
    this.transport = null;
    this.dispatch({ type: "resync", sessionId });
    this.open(sessionId);
  }

  /** Runs op on the selected session: true when it did, false when none is selected or op failed (then a notice "Could not <what>: …"). */
  private async onSelected(what: string, op: (sessionId: string) => Promise<unknown>): Promise<boolean> {
    const id = this.state.ui.selectedId;
    if (!id) return false;
    try {
      await op(id);
      return true;
    } catch (err) {
      this.notify(`Could not ${what}: ${message(err)}`);
      return false;
    }
  }

  /** Answers a message's user message again (a sibling answer); false and a notice when refused. */
  async regenerate(messageId: string): Promise<boolean> {
    return this.onSelected("regenerate", (id) => this.hub.regenerate(id, messageId));
  }

  /** Runs a failed or interrupted turn again in place: a new version of its user message (‹ n/m ›); false and a notice when refused. */
  async retryTurn(messageId: string): Promise<boolean> {
    return this.onSelected("retry", (id) => this.hub.retryTurn(id, messageId));
  }

  /** Sends a changed copy of a user message (a sibling branch); false and a notice when refused. */
  async editAndResend(messageId: string, text: string): Promise<boolean> {
    if (text.trim() === "") return false;
    return this.onSelected("send the edit", (id) => this.hub.editMessage(id, messageId, text));
  }

  /** Closes the offer to undo the file changes of a branch left behind. */
  answerAbandoned(): void {
    const id = this.state.ui.selectedId;
    if (id) this.dispatch({ type: "abandonedAnswered", sessionId: id });
  }

  /** Shows the branch through messageId. */
  async switchBranch(messageId: string): Promise<void> {
    await this.onSelected("switch branches", (id) => this.hub.switchBranch(id, messageId));
  }

  /** Copies the path up to messageId into a new session and opens it. */
  async fork(messageId: string): Promise<void> {
    await this.onSelected("fork", async (id) => {
      const s = await this.hub.forkSession(id, messageId);
      await this.refreshSessions();
      this.open(s.session_id);
    });
  }

  /** Closes the open session (nothing selected). */
  private closeCurrent(): void {
    this.batcher.flush();
    this.transport?.close();
    this.transport = null;
    this.dispatch({ type: "selected", sessionId: null });
    this.onSelect(null);
  }

  /**
   * Opens the new-session view: the session is created by its first message
   * (sendNew), so clicking "New session" stores nothing.
   */
  startDraft(): void {
    if (this.disposed) return;
    if (this.state.ui.selectedId !== null) this.closeCurrent();
    this.dispatch({ type: "draft" });
  }

  /** Creates a session with the draft's options, opens it and submits its first message; false (and a notice) when it failed. */
  async sendNew(text: string, opts: { model?: string; workspace_path?: string } = {}, attachments: AttachmentRef[] = []): Promise<boolean> {
    if (text.trim() === "" && attachments.length === 0) return false;
    const req: { model?: string; workspace_path?: string } = {};
    if (opts.model?.trim()) req.model = opts.model.trim();
    if (opts.workspace_path?.trim()) req.workspace_path = opts.workspace_path.trim();
    let s: Session;
    try {
      s = await this.hub.createSession(req);
    } catch (err) {
      this.notify(`Could not create a session: ${message(err)}`);
      return false;
    }
    if (this.state.ui.notice?.startsWith("Could not create a session")) this.notify(null); // fixed: the old refusal goes
    await this.refreshSessions();
    this.open(s.session_id);
    // Submit once the stream is attached, so the whole first turn arrives live
    // (a snapshot carries messages, not a worker's streamed output).
    await this.until((st) => st.chat[s.session_id]?.connection === "connected", 10_000);
    await this.send(text, attachments);
    return true;
  }

  /** Full-text search over every session; failures become a notice and no hits. */
  async search(query: string, limit = 20): Promise<SearchHit[]> {
    try {
      return await this.hub.search(query, limit);
    } catch (err) {
      this.notify(`Search failed: ${message(err)}`);
      return [];
    }
  }

  /**
   * Opens a session at one of its messages (a search hit): pages older
   * history in until the message is loaded (at most maxPages pages), then
   * asks the list to scroll to it and highlight it.
   */
  async jumpTo(sessionId: string, messageId: string, query = "", toolUseId?: string, maxPages = 50): Promise<void> {
    this.open(sessionId);
    await this.until((st) => st.chat[sessionId]?.connection === "connected" && (st.chat[sessionId]?.order.length ?? 0) > 0, 20_000);
    for (let i = 0; i < maxPages; i++) {
      const s = this.state.chat[sessionId];
      if (!s || this.state.ui.selectedId !== sessionId || s.messages[messageId] || (toolUseId && s.tools[toolUseId]) || !s.hasMoreHistory) break;
      await this.loadOlder();
    }
    if (this.state.ui.selectedId !== sessionId) return;
    // A hit in a tool's output: the message that made the call, its card's output panel open at the match.
    const s = this.state.chat[sessionId];
    const card = toolUseId ? s?.tools[toolUseId] : undefined;
    const call = card?.messageId ? { messageId: card.messageId, toolUseId: card.toolUseId } : s ? toolCallOf(s, messageId) : null;
    const focus = call ? { sessionId, messageId: call.messageId, toolUseId: call.toolUseId, query: outputQuery(query) } : { sessionId, messageId };
    this.dispatch({ type: "focusMessage", focus });
  }

  /** Clears the message highlight of a search hit. */
  clearFocus(): void {
    if (this.state.ui.focus) this.dispatch({ type: "focusMessage", focus: null });
  }

  /** Changes the open session's model or folder (between turns); false (and a notice) when the hub refused. */
  async updateSession(update: SessionUpdate): Promise<boolean> {
    return this.onSelected("change the session", async (id) => {
      await this.hub.updateSession(id, update);
      if (this.state.ui.notice?.startsWith("Could not change the session")) this.notify(null); // fixed: the old refusal goes
      await this.refreshSessions();
    });
  }

  /** Reads a slice of a tool call's stored output in the open session (errors reject: the panel shows them). */
  readToolOutput(toolUseId: string, offset: number, length?: number): Promise<ToolOutputChunk> {
    const id = this.state.ui.selectedId;
    if (!id) return Promise.reject(new Error("no session is open"));
    return this.hub.readToolOutput(id, toolUseId, offset, length);
  }

  /** The files a turn of the open session changed (errors reject: the panel shows them). */
  turnChanges(turnId: string): Promise<TurnChanges> {
    const id = this.state.ui.selectedId;
    if (!id) return Promise.reject(new Error("no session is open"));
    return this.hub.getTurnChanges(id, turnId);
  }

  /** Undoes a turn's file changes in the open session (errors reject: the panel shows them). */
  undoTurn(turnId: string): Promise<TurnUndone> {
    const id = this.state.ui.selectedId;
    if (!id) return Promise.reject(new Error("no session is open"));
    return this.hub.undoTurn(id, turnId);
  }

  /** The open session folder's files matching query, for @-completion ([] when none or on failure). */
  async listFiles(query: string): Promise<string[]> {
    const id = this.state.ui.selectedId;
    if (!id) return [];
    try {
      return await this.hub.listFiles(id, query);
    } catch (err) {
      console.debug("[app] could not list files", message(err));
      return [];
    }
  }

  /** A folder's files matching query before its session exists (the new-session view's @-completion; [] on failure). */
  async listFolderFiles(folder: string, query: string): Promise<string[]> {
    try {
      return await this.hub.listFolderFiles(folder, query);
    } catch (err) {
      console.debug("[app] could not list the folder's files", message(err));
      return [];
    }
  }

  /** The instruction files a session's next turn reads ([] when the hub cannot say). */
  async instructions(id: string): Promise<InstructionFile[]> {
    try {
      return await this.hub.getInstructions(id);
    } catch (err) {
      console.debug("[app] could not list the instruction files", message(err));
      return [];
    }
  }

  /** Resolves once pred holds for the state, or after maxMs. */
  private until(pred: (st: AppState) => boolean, maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      let unsubscribe = () => {};
      const done = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      unsubscribe = this.store.subscribe(() => {
        if (pred(this.state)) done();
      });
      this.batcher.flush();
      if (pred(this.state)) done();
    });
  }

  /** Creates a session and opens it. */
  async newSession(title?: string): Promise<Session | null> {
    try {
      const s = await this.hub.createSession(title ? { title } : {});
      await this.refreshSessions();
      this.open(s.session_id);
      return s;
    } catch (err) {
      this.notify(`Could not create a session: ${message(err)}`);
      return null;
    }
  }

  /** Renames a session. */
  async rename(id: string, title: string): Promise<void> {
    const t = title.trim();
    if (!t) return;
    try {
      await this.hub.renameSession(id, t);
      await this.refreshSessions();
    } catch (err) {
      this.notify(`Could not rename: ${message(err)}`);
    }
  }

  /** Deletes a session (the caller has confirmed); opens the next one if it was open. */
  async remove(id: string): Promise<void> {
    try {
      await this.hub.deleteSession(id);
    } catch (err) {
      this.notify(`Could not delete: ${message(err)}`);
      return;
    }
    const wasOpen = this.state.ui.selectedId === id;
    if (wasOpen) this.closeCurrent();
    const sessions = await this.refreshSessions();
    if (wasOpen) {
      const next = newestTopLevel(sessions.filter((s) => s.session_id !== id));
      if (next) this.open(next.session_id);
    }
  }

  /** Submits text to the open session; a submission during a running turn shows as queued. */
  async send(text: string, attachments: AttachmentRef[] = []): Promise<void> {
    const id = this.state.ui.selectedId;
    if (!id || (text.trim() === "" && attachments.length === 0)) return;
    try {
      const r = await this.hub.submitTurn(id, text, attachments.map((a) => ({ id: a.id, ...(a.name ? { name: a.name } : {}) })));
      this.noteSubmitted(id, r.turn_id, text, r.queued);
    } catch (err) {
      this.notify(`Could not send: ${message(err)}`);
    }
  }

  /** Shows a submission the hub took (queued: behind a running turn), after the events already received. */
  noteSubmitted(sessionId: string, turnId: string, content: string, queued: boolean): void {
    this.batcher.flush();
    this.dispatch({ type: "turnSubmitted", sessionId, turnId, content, queued });
  }

  /** Cancels the open session's running turn. */
  async cancel(): Promise<void> {
    const id = this.state.ui.selectedId;
    if (!id) return;
    this.batcher.flush();
    const turn = this.state.chat[id]?.turn.currentTurnId ?? null;
    try {
      await this.hub.cancelTurn(id, turn);
    } catch (err) {
      this.notify(`Could not stop: ${message(err)}`);
    }
  }

  /** Cancels a queued submission of the open session before it starts. */
  async cancelQueued(turnId: string): Promise<void> {
    const id = this.state.ui.selectedId;
    if (!id) return;
    try {
      await this.hub.cancelTurn(id, turnId);
    } catch (err) {
      this.notify(`Could not remove the queued message: ${message(err)}`);
    }
  }

  /** Exports the open session (Markdown or JSON); null (and a notice) when it fails. */
  async exportOpen(format: ExportFormat): Promise<ExportResult | null> {
    const id = this.state.ui.selectedId;
    if (!id) return null;
    try {
      return await this.hub.exportSession(id, format);
    } catch (err) {
      this.notify(`Could not export: ${message(err)}`);
      return null;
    }
  }

  /** Compacts the open session's context now. */
  async compact(): Promise<void> {
    const id = this.state.ui.selectedId;
    if (!id) return;
    try {
      await this.hub.compactSession(id);
    } catch (err) {
      this.notify(`Could not compact: ${message(err)}`);
    }
  }

  /** Asks the hub which approvals wait in a session and shows their prompts. */
  async loadApprovals(id: string): Promise<void> {
    if (!this.canListApprovals) return;
    try {
      const approvals = await this.hub.listPendingApprovals(id);
      this.batcher.flush(); // the snapshot that asked for it applies first
      this.dispatch({ type: "approvalsListed", sessionId: id, approvals });
    } catch (err) {
      if (err instanceof RpcError && err.code === "METHOD_NOT_FOUND") this.canListApprovals = false;
      console.debug("[app] could not list the pending approvals", message(err));
    }
  }

  /** Answers a waiting call of the open session (rule: for "always", the rule to store; allowGitWrites: this call may write .git); resolves false (and shows a notice) when the hub refused. */
  async approve(toolUseId: string, answer: ApprovalAnswer, text = "", rule?: PermissionRule, allowGitWrites = false): Promise<boolean> {
    const id = this.state.ui.selectedId;
    if (!id) return false;
    try {
      await this.hub.approveTool(id, toolUseId, answer, text || undefined, rule, allowGitWrites);
      return true;
    } catch (err) {
      this.notify(`Could not answer the approval: ${message(err)}`);
      return false;
    }
  }

  /** Sets the open session's approval mode. */
  async setApprovalMode(mode: ApprovalMode): Promise<void> {
    const id = this.state.ui.selectedId;
    if (!id) return;
    try {
      await this.hub.setApprovalMode(id, mode);
      await this.refreshSessions();
    } catch (err) {
      this.notify(`Could not change the approval mode: ${message(err)}`);
    }
  }

  /** Loads the page of history before the oldest loaded message of the open session. */
  async loadOlder(): Promise<void> {
    const id = this.state.ui.selectedId;
    if (!id || this.state.ui.loadingOlder) return;
    const s = this.state.chat[id];
    const oldest = s?.order[0];
    if (!s || !s.hasMoreHistory || !oldest) return;
    this.dispatch({ type: "loadingOlder", loading: true });
    try {
      const page = await this.hub.messagesBefore(id, oldest, this.pageSize);
      this.batcher.flush();
      this.dispatch({ type: "history", sessionId: id, messages: page.messages, hasMore: page.hasMore });
    } catch (err) {
      this.notify(`Could not load older messages: ${message(err)}`);
    } finally {
      this.dispatch({ type: "loadingOlder", loading: false });
    }
  }

  /** Clears the visible error of the open session. */
  clearError(): void {
    const id = this.state.ui.selectedId;
    if (id) this.dispatch({ type: "clearError", sessionId: id });
  }

  /** Shows a notice (null hides it). */
  notify(text: string | null): void {
    this.dispatch({ type: "notice", text });
  }

  /** The context window of a model id ("provider:model"), or null when unknown. */
  contextWindow(model: string | null | undefined): number | null {
    if (!model) return null;
    const m = this.state.ui.models.find((x) => x.id === model);
    return m && m.context_window > 0 ? m.context_window : null;
  }

  /** Resolves once the open session (if any) shows its state and no turn runs, or after maxMs. */
  settled(maxMs: number): Promise<void> {
    return this.until(({ sessions, ui, chat }) => {
      if (!sessions.loaded) return false;
      if (ui.selectedId === null) return true;
      const s = chat[ui.selectedId];
      return s !== undefined && s.connection === "connected" && !s.turn.running;
    }, maxMs);
  }
}
