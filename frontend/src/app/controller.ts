// The application controller: one chat store for every session, the session
// list, which session is open (and its transport), history paging and the
// user's actions. Components read the two stores and call these methods.

import { createStore, type StoreApi } from "zustand/vanilla";
import { isKnownEvent, type ServerFrame, type Session } from "../protocol";
import { createChatStore, type ChatStore, type SessionState } from "../state";
import type { Transport } from "../transport/types";
import { ActionBatcher, defaultScheduler, type FrameScheduler } from "./batcher";
import type { ExportFormat, ExportResult, HubClient, ModelInfo } from "./hub";

/** UI state outside the per-session chat state. */
export interface UiState {
  sessions: Session[];
  sessionsLoaded: boolean;
  selectedId: string | null;
  models: ModelInfo[];
  /** A failed user action, shown as a dismissible notice. */
  notice: string | null;
  loadingOlder: boolean;
}

/** Controller options. */
export interface ControllerOptions {
  hub: HubClient;
  /** A new transport for one session stream. */
  transport: () => Transport;
  schedule?: FrameScheduler;
  /**
   * Session-list refresh interval (default 10 s; 0 disables polling). The
   * records of subscribed sessions (session.created / session.updated events)
   * apply at once; the poll catches changes of sessions nobody subscribed to.
   */
  pollMs?: number;
  /** Called when the open session changes (e.g. to update location.hash). */
  onSelect?: (id: string | null) => void;
  /** History page size when scrolling up (default 100). */
  pageSize?: number;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Whether the session shows as running in the sidebar. */
export function sessionRunning(s: Session, live: SessionState | undefined): boolean {
  if (live && live.connection === "connected") return live.turn.running;
  return Boolean(s.current_turn_id);
}

/** Drives the UI: see the file comment. */
export class AppController {
  /** Per-session chat state (the pure reducer). */
  readonly chat: StoreApi<ChatStore>;
  /** Sessions, selection, models and notices. */
  readonly ui: StoreApi<UiState>;
  private readonly hub: HubClient;
  private readonly makeTransport: () => Transport;
  private readonly batcher: ActionBatcher;
  private readonly pollMs: number;
  private readonly pageSize: number;
  private readonly onSelect: (id: string | null) => void;
  private transport: Transport | null = null;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private unsubLive: (() => void) | null = null;
  /** The session records last merged from live state, by id. */
  private liveSeen = new Map<string, Session | null>();
  /** When each id's live record was merged (liveSeq at the time), so a slower list answer does not undo it. */
  private liveAt = new Map<string, number>();
  private liveSeq = 0;
  /** Workers seen in delegate.started but not yet in a session list answer, by id. */
  private pendingWorkers = new Map<string, Session>();
  private disposed = false;

  constructor(opts: ControllerOptions) {
    this.hub = opts.hub;
    this.makeTransport = opts.transport;
    this.pollMs = opts.pollMs ?? 10_000;
    this.pageSize = opts.pageSize ?? 100;
    this.onSelect = opts.onSelect ?? (() => undefined);
    this.chat = createChatStore();
    this.ui = createStore<UiState>()(() => ({ sessions: [], sessionsLoaded: false, selectedId: null, models: [], notice: null, loadingOlder: false }));
    this.batcher = new ActionBatcher((actions) => this.chat.getState().dispatchAll(actions), opts.schedule ?? defaultScheduler());
  }

  /** Loads sessions and models, opens initialId (or the newest top-level session) and starts polling. */
  async start(initialId: string | null): Promise<void> {
    const [sessions] = await Promise.all([this.refreshSessions(), this.loadModels()]);
    if (this.disposed) return;
    const wanted = initialId && sessions.some((s) => s.session_id === initialId) ? initialId : null;
    const first = wanted ?? newestTopLevel(sessions)?.session_id ?? null;
    if (first) this.open(first);
    if (this.pollMs > 0) this.pollTimer = setInterval(() => void this.refreshSessions(), this.pollMs);
    this.unsubLive = this.chat.subscribe(() => this.mergeLive());
    this.mergeLive();
  }

  /**
   * Applies session records that arrived as events (session.created /
   * session.updated of the subscribed session and of workers whose events
   * reach it) to the session list: titles, cost and the running state show
   * at once instead of at the next poll. A deleted session leaves the list.
   */
  private mergeLive(): void {
    const changed: { id: string; rec: Session | null }[] = [];
    for (const [id, st] of Object.entries(this.chat.getState().sessions)) {
      const rec = st.deleted ? null : st.session;
      if (rec === undefined || (rec === null && !st.deleted)) continue;
      if (this.liveSeen.get(id) === rec) continue;
      this.liveSeen.set(id, rec);
      this.liveAt.set(id, ++this.liveSeq);
      changed.push({ id, rec });
    }
    if (changed.length === 0) return;
    let sessions = this.ui.getState().sessions;
    for (const { id, rec } of changed) sessions = upsert(sessions, id, rec);
    if (sessions !== this.ui.getState().sessions) this.ui.setState({ sessions });
  }

  /** Stops polling and closes the open transport. */
  dispose(): void {
    this.disposed = true;
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    this.pollTimer = null;
    this.unsubLive?.();
    this.transport?.close();
    this.transport = null;
    this.batcher.dispose();
  }

  /** Re-reads the session list; failures become a notice. */
  async refreshSessions(): Promise<Session[]> {
    const asked = this.liveSeq;
    try {
      let sessions = await this.hub.listSessions();
      // Records that arrived live while the list was in flight are newer than it.
      for (const [id, at] of this.liveAt) {
        if (at > asked) sessions = upsert(sessions, id, this.liveSeen.get(id) ?? null);
      }
      // A worker announced by delegate.started stays listed until the hub lists it.
      for (const [id, rec] of this.pendingWorkers) {
        if (sessions.some((x) => x.session_id === id)) this.pendingWorkers.delete(id);
        else sessions = [...sessions, rec];
      }
      sessions = sortSessions(sessions);
      this.ui.setState({ sessions, sessionsLoaded: true });
      return sessions;
    } catch (err) {
      this.ui.setState({ sessionsLoaded: true, notice: `Could not list sessions: ${message(err)}` });
      return this.ui.getState().sessions;
    }
  }

  /** Reads the model list (context windows for the meter). */
  async loadModels(): Promise<void> {
    try {
      this.ui.setState({ models: await this.hub.listModels() });
    } catch (err) {
      this.notify(`Could not list models: ${message(err)}`);
    }
  }

  /** Opens a session: streams it into the chat store, resuming from its cursor. */
  open(id: string): void {
    if (this.disposed) return;
    if (this.ui.getState().selectedId === id && this.transport) return;
    this.batcher.flush();
    this.transport?.close();
    const t = this.makeTransport();
    this.transport = t;
    this.ui.setState({ selectedId: id });
    this.onSelect(id);
    // A session the list does not show yet (a worker opened from its card): list it now, not at the next poll.
    if (!this.ui.getState().sessions.some((s) => s.session_id === id)) void this.refreshSessions();
    t.connect(id, {
      cursor: () => {
        this.batcher.flush();
        return this.chat.getState().sessions[id]?.lastEventId ?? null;
      },
      frame: (frame) => {
        this.noticeWorker(frame);
        this.batcher.push({ type: "frame", sessionId: id, frame });
      },
      state: (state) => this.batcher.push({ type: "connection", sessionId: id, state }),
    });
  }

  /**
   * A delegate.started for a worker the list does not show yet: insert a
   * placeholder under its parent at once and re-read the list (the placeholder
   * stays until a list answer includes the worker). A compaction.completed
   * re-reads the list too (the session's cost changed).
   */
  private noticeWorker(frame: ServerFrame): void {
    if (frame.type !== "event" || !isKnownEvent(frame.event)) return;
    // compaction.completed changes the session's totals without a session.updated: re-read the list.
    if (frame.event.type === "compaction.completed") {
      void this.refreshSessions();
      return;
    }
    if (frame.event.type !== "delegate.started") return;
    const ev = frame.event;
    const wid = ev.payload.worker_session_id;
    if (!wid || this.pendingWorkers.has(wid) || this.ui.getState().sessions.some((x) => x.session_id === wid)) return;
    const parent = this.ui.getState().sessions.find((x) => x.session_id === ev.session_id);
    const rec = workerPlaceholder(wid, ev.session_id, ev.payload.task, ev.ts, ev.payload.depth, parent);
    this.pendingWorkers.set(wid, rec);
    this.ui.setState({ sessions: upsert(this.ui.getState().sessions, wid, rec) });
    void this.refreshSessions();
  }

  /** Closes the open session (nothing selected). */
  private closeCurrent(): void {
    this.batcher.flush();
    this.transport?.close();
    this.transport = null;
    this.ui.setState({ selectedId: null });
    this.onSelect(null);
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
    const wasOpen = this.ui.getState().selectedId === id;
    if (wasOpen) this.closeCurrent();
    const sessions = await this.refreshSessions();
    if (wasOpen) {
      const next = newestTopLevel(sessions.filter((s) => s.session_id !== id));
      if (next) this.open(next.session_id);
    }
  }

  /** Submits text to the open session; a submission during a running turn shows as queued. */
  async send(text: string): Promise<void> {
    const id = this.ui.getState().selectedId;
    if (!id || text.trim() === "") return;
    try {
      const r = await this.hub.submitTurn(id, text);
      this.batcher.flush();
      this.chat.getState().dispatch({ type: "turnSubmitted", sessionId: id, turnId: r.turn_id, content: text, queued: r.queued });
    } catch (err) {
      this.notify(`Could not send: ${message(err)}`);
    }
  }

  /** Cancels the open session's running turn. */
  async cancel(): Promise<void> {
    const id = this.ui.getState().selectedId;
    if (!id) return;
    this.batcher.flush();
    const turn = this.chat.getState().sessions[id]?.turn.currentTurnId ?? null;
    try {
      await this.hub.cancelTurn(id, turn);
    } catch (err) {
      this.notify(`Could not stop: ${message(err)}`);
    }
  }

  /** Cancels a queued submission of the open session before it starts. */
  async cancelQueued(turnId: string): Promise<void> {
    const id = this.ui.getState().selectedId;
    if (!id) return;
    try {
      await this.hub.cancelTurn(id, turnId);
    } catch (err) {
      this.notify(`Could not remove the queued message: ${message(err)}`);
    }
  }

  /** Exports the open session (Markdown or JSON); null (and a notice) when it fails. */
  async exportOpen(format: ExportFormat): Promise<ExportResult | null> {
    const id = this.ui.getState().selectedId;
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
    const id = this.ui.getState().selectedId;
    if (!id) return;
    try {
      await this.hub.compactSession(id);
    } catch (err) {
      this.notify(`Could not compact: ${message(err)}`);
    }
  }

  /** Loads the page of history before the oldest loaded message of the open session. */
  async loadOlder(): Promise<void> {
    const id = this.ui.getState().selectedId;
    if (!id || this.ui.getState().loadingOlder) return;
    const s = this.chat.getState().sessions[id];
    const oldest = s?.order[0];
    if (!s || !s.hasMoreHistory || !oldest) return;
    this.ui.setState({ loadingOlder: true });
    try {
      const page = await this.hub.messagesBefore(id, oldest, this.pageSize);
      this.batcher.flush();
      this.chat.getState().dispatch({ type: "history", sessionId: id, messages: page.messages, hasMore: page.hasMore });
    } catch (err) {
      this.notify(`Could not load older messages: ${message(err)}`);
    } finally {
      this.ui.setState({ loadingOlder: false });
    }
  }

  /** Clears the visible error of the open session. */
  clearError(): void {
    const id = this.ui.getState().selectedId;
    if (id) this.chat.getState().dispatch({ type: "clearError", sessionId: id });
  }

  /** Shows a notice. */
  notify(text: string | null): void {
    this.ui.setState({ notice: text });
  }

  /** The context window of a model id ("provider:model"), or null when unknown. */
  contextWindow(model: string | null | undefined): number | null {
    if (!model) return null;
    const m = this.ui.getState().models.find((x) => x.id === model);
    return m && m.context_window > 0 ? m.context_window : null;
  }

  /** Resolves once the open session (if any) shows its state and no turn runs, or after maxMs. */
  settled(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      let unsubChat = () => {};
      let unsubUi = () => {};
      const done = () => {
        clearTimeout(timer);
        unsubChat();
        unsubUi();
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      const check = () => {
        const ui = this.ui.getState();
        if (!ui.sessionsLoaded) return;
        if (ui.selectedId === null) return done();
        const s = this.chat.getState().sessions[ui.selectedId];
        if (s && s.connection === "connected" && !s.turn.running) done();
      };
      unsubChat = this.chat.subscribe(check);
      unsubUi = this.ui.subscribe(check);
      check();
    });
  }
}

/** Sessions newest first (by created_at). */
function sortSessions(list: Session[]): Session[] {
  return [...list].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}

/** list with id's record replaced, added (rec set, not listed) or removed (rec null); the same array when nothing changes. */
function upsert(list: Session[], id: string, rec: Session | null): Session[] {
  const i = list.findIndex((s) => s.session_id === id);
  if (rec === null) return i < 0 ? list : list.filter((s) => s.session_id !== id);
  if (i >= 0) {
    if (list[i] === rec) return list;
    const next = list.slice();
    next[i] = rec;
    return next;
  }
  return sortSessions([...list, rec]);
}

/** A session record for a worker known only from its delegate.started event. */
export function workerPlaceholder(id: string, parentId: string, task: string, ts: string, depth: number, parent?: Session): Session {
  const line = task.split("\n")[0]!.trim();
  return {
    session_id: id,
    title: line.length > 80 ? `${line.slice(0, 79)}…` : line || "Worker",
    workspace_path: parent?.workspace_path ?? "",
    active_model: parent?.active_model ?? "",
    parent_session_id: parentId,
    created_at: ts,
    turn_count: 0,
    cost_so_far_usd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    context_start_offset: 0,
    depth,
  };
}

/** The newest session without a parent (workers open from their delegation card). */
export function newestTopLevel(sessions: Session[]): Session | undefined {
  return sessions.filter((s) => !s.parent_session_id).sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0];
}
