// Test doubles for the app layer: an in-memory HubClient and a Transport
// that plays recorded server frames (the real wire traces). Used by the
// Vitest suites only.

import type { ApprovalAnswer, ApprovalMode, AttachmentRef, TurnChanges, TurnUndone, HistoryMessage, MCPServerStatus, PermissionRule, ServerFrame, Session, ToolApprovalRequested } from "../protocol";
import { RpcError } from "../transport/types";
import type { ConnectionState, Transport, TransportHandlers } from "../transport/types";
import type { ConnectionTest, ExportFormat, ExportResult, HistoryPage, HubClient, InstructionFile, ModelInfo, SearchHit, SessionUpdate, SettingsView, SubmitResult, ToolOutputChunk } from "../transport/hub";

/** A session record with defaults. */
export function session(id: string, over: Partial<Session> = {}): Session {
  return {
    session_id: id,
    title: `Session ${id}`,
    workspace_path: "/w",
    active_model: "anthropic:claude-sonnet-4-6",
    parent_session_id: "",
    created_at: "2026-05-08T14:00:00Z",
    turn_count: 0,
    cost_so_far_usd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    context_start_offset: 0,
    depth: 0,
    ...over,
  };
}

/** An in-memory hub that records calls. */
export class FakeHub implements HubClient {
  sessions: Session[] = [];
  calls: [string, ...unknown[]][] = [];
  history: HistoryMessage[] = [];
  submitQueued = false;
  settings: SettingsView = {};
  /** What listMcpServers answers. */
  mcpServers: MCPServerStatus[] = [];
  /** Answers of listPendingApprovals by session id; null: the hub has no such method. */
  pending: Record<string, ToolApprovalRequested[]> | null = {};
  /** Permission rules by workspace. */
  rules: Record<string, PermissionRule[]> = {};
  /** Workspaces whose .git sandboxed bash may write. */
  gitWrites = new Set<string>();
  models: ModelInfo[] = [{ id: "anthropic:claude-sonnet-4-6", provider: "anthropic", context_window: 200_000, configured: true }];
  private next = 0;

  listSessions(): Promise<Session[]> {
    this.calls.push(["listSessions"]);
    return Promise.resolve(this.sessions.map((s) => ({ ...s })));
  }
  /** What search answers. */
  hits: SearchHit[] = [];
  /** Tool outputs by tool_use_id (readToolOutput). */
  outputs: Record<string, string> = {};
  /** What getInstructions answers. */
  instructions: InstructionFile[] = [];
  /** The folder's files listFiles filters (by substring). */
  files: string[] = [];

  createSession(req: { title?: string; model?: string; workspace_path?: string } = {}): Promise<Session> {
    this.calls.push(["createSession", req]);
    const s = session(`new${++this.next}`, { title: req.title ?? "New session", created_at: `2027-01-01T00:00:0${this.next}Z`, ...(req.model ? { active_model: req.model } : {}), ...(req.workspace_path ? { workspace_path: req.workspace_path } : {}) });
    this.sessions.push(s);
    return Promise.resolve(s);
  }
  renameSession(id: string, title: string): Promise<Session> {
    this.calls.push(["renameSession", id, title]);
    const s = this.sessions.find((x) => x.session_id === id)!;
    s.title = title;
    return Promise.resolve(s);
  }
  deleteSession(id: string): Promise<void> {
    this.calls.push(["deleteSession", id]);
    this.sessions = this.sessions.filter((s) => s.session_id !== id);
    return Promise.resolve();
  }
  /** The attachments of each submitTurn call, in order ([] for none). */
  attachments: AttachmentRef[][] = [];
  submitTurn(id: string, content: string, attachments?: AttachmentRef[]): Promise<SubmitResult> {
    this.calls.push(["submitTurn", id, content]);
    this.attachments.push(attachments ?? []);
    return Promise.resolve({ turn_id: `turn${++this.next}`, queued: this.submitQueued });
  }
  cancelTurn(id: string, turnId?: string | null): Promise<void> {
    this.calls.push(["cancelTurn", id, turnId ?? null]);
    return Promise.resolve();
  }
  compactSession(id: string): Promise<void> {
    this.calls.push(["compactSession", id]);
    return Promise.resolve();
  }
  exportSession(id: string, format: ExportFormat): Promise<ExportResult> {
    this.calls.push(["exportSession", id, format]);
    const s = this.sessions.find((x) => x.session_id === id);
    if (!s) return Promise.reject(new Error(`session ${id} not found`));
    return Promise.resolve(
      format === "json"
        ? { format, media_type: "application/json", content: JSON.stringify({ session: s, messages: this.history }) }
        : { format, media_type: "text/markdown; charset=utf-8", content: `# ${s.title}\n` },
    );
  }
  messagesBefore(id: string, beforeId: string | null, limit: number): Promise<HistoryPage> {
    this.calls.push(["messagesBefore", id, beforeId, limit]);
    return Promise.resolve({ messages: this.history, hasMore: false });
  }
  getSettings(): Promise<SettingsView> {
    return Promise.resolve({ ...this.settings });
  }
  updateSettings(patch: SettingsView): Promise<SettingsView> {
    this.calls.push(["updateSettings", patch]);
    this.settings = { ...this.settings, ...patch };
    return Promise.resolve({ ...this.settings });
  }
  listModels(): Promise<ModelInfo[]> {
    return Promise.resolve(this.models);
  }
  approveTool(id: string, toolUseId: string, answer: ApprovalAnswer, message?: string, rule?: PermissionRule, allowGitWrites?: boolean): Promise<void> {
    this.calls.push(["approveTool", id, toolUseId, answer, message ?? null, ...(rule ? [rule] : []), ...(allowGitWrites ? [true] : [])]);
    return Promise.resolve();
  }
  setApprovalMode(id: string, mode: ApprovalMode): Promise<Session> {
    this.calls.push(["setApprovalMode", id, mode]);
    const s = this.sessions.find((x) => x.session_id === id);
    if (!s) return Promise.reject(new RpcError("AGENT_NOT_FOUND", id));
    s.approval_mode = mode;
    return Promise.resolve({ ...s });
  }
  setSandboxOptions(id: string, readWorkspaceOnly: boolean, network: boolean): Promise<Session> {
    this.calls.push(["setSandboxOptions", id, readWorkspaceOnly, network]);
    const s = this.sessions.find((x) => x.session_id === id);
    if (!s) return Promise.reject(new RpcError("AGENT_NOT_FOUND", id));
    s.sandbox_read_workspace_only = readWorkspaceOnly;
    s.sandbox_no_network = !network;
    return Promise.resolve({ ...s });
  }
  listPendingApprovals(id: string): Promise<ToolApprovalRequested[]> {
    this.calls.push(["listPendingApprovals", id]);
    if (this.pending === null) return Promise.reject(new RpcError("METHOD_NOT_FOUND", "listPendingApprovals"));
    return Promise.resolve(this.pending[id] ?? []);
  }
  listMcpServers(): Promise<MCPServerStatus[]> {
    this.calls.push(["listMcpServers"]);
    return Promise.resolve(this.mcpServers.map((s) => ({ ...s, tools: [...s.tools] })));
  }
  search(query: string, limit = 20): Promise<SearchHit[]> {
    this.calls.push(["search", query, limit]);
    return Promise.resolve(this.hits.slice(0, limit));
  }
  updateSession(id: string, update: SessionUpdate): Promise<Session> {
    this.calls.push(["updateSession", id, update]);
    const s = this.sessions.find((x) => x.session_id === id);
    if (!s) return Promise.reject(new RpcError("AGENT_NOT_FOUND", id));
    if (update.model !== undefined) s.active_model = update.model;
    if (update.workspace_path !== undefined) s.workspace_path = update.workspace_path;
    return Promise.resolve({ ...s });
  }
  readToolOutput(id: string, toolUseId: string, offset: number, length = 256 * 1024): Promise<ToolOutputChunk> {
    this.calls.push(["readToolOutput", id, toolUseId, offset]);
    const text = this.outputs[toolUseId];
    if (text === undefined) return Promise.reject(new RpcError("RPC_ERROR", `tool call not found: ${toolUseId}`));
    const slice = text.slice(offset, offset + length);
    const next = offset + slice.length;
    return Promise.resolve({ text: slice, offset, next, size: text.length, eof: next >= text.length });
  }
  regenerate(id: string, messageId: string): Promise<SubmitResult> {
    this.calls.push(["regenerate", id, messageId]);
    return Promise.resolve({ turn_id: `turn${++this.next}`, queued: false });
  }
  listFolderFiles(folder: string, query: string): Promise<string[]> {
    this.calls.push(["listFolderFiles", folder, query]);
    return Promise.resolve([]);
  }
  testConnection(provider: string): Promise<ConnectionTest> {
    this.calls.push(["testConnection", provider]);
    return Promise.resolve({ provider, ok: true, model: `${provider}:test`, duration_ms: 1 });
  }
  retryTurn(id: string, messageId: string): Promise<SubmitResult> {
    this.calls.push(["retryTurn", id, messageId]);
    return Promise.resolve({ turn_id: `turn${++this.next}`, queued: false });
  }
  editMessage(id: string, messageId: string, content: string): Promise<SubmitResult> {
    this.calls.push(["editMessage", id, messageId, content]);
    return Promise.resolve({ turn_id: `turn${++this.next}`, queued: false });
  }
  switchBranch(id: string, messageId: string): Promise<Session> {
    this.calls.push(["switchBranch", id, messageId]);
    const s = this.sessions.find((x) => x.session_id === id);
    return s ? Promise.resolve({ ...s }) : Promise.reject(new RpcError("AGENT_NOT_FOUND", id));
  }
  forkSession(id: string, messageId: string): Promise<Session> {
    this.calls.push(["forkSession", id, messageId]);
    const src = this.sessions.find((x) => x.session_id === id);
    if (!src) return Promise.reject(new RpcError("AGENT_NOT_FOUND", id));
    const s = { ...src, session_id: `fork${++this.next}`, title: `Fork of ${src.title}` };
    this.sessions.push(s);
    return Promise.resolve(s);
  }
  /** Turn changes by turn id (getTurnChanges / undoTurn). */
  changes: Record<string, TurnChanges> = {};
  getTurnChanges(id: string, turnId: string): Promise<TurnChanges> {
    this.calls.push(["getTurnChanges", id, turnId]);
    return Promise.resolve(this.changes[turnId] ?? { turn_id: turnId, workspace: "", changes: [] });
  }
  undoTurn(id: string, turnId: string): Promise<TurnUndone> {
    this.calls.push(["undoTurn", id, turnId]);
    const c = this.changes[turnId];
    if (!c || c.changes.length === 0) return Promise.reject(new RpcError("INVALID_PARAMS", "the turn changed no files"));
    const undone = { restored: c.changes.map((x) => x.path), skipped: [] };
    c.undone = undone;
    return Promise.resolve(undone);
  }
  listFiles(id: string, query: string, limit = 12): Promise<string[]> {
    this.calls.push(["listFiles", id, query]);
    return Promise.resolve(this.files.filter((f) => f.includes(query)).slice(0, limit));
  }
  getInstructions(id: string): Promise<InstructionFile[]> {
    this.calls.push(["getInstructions", id]);
    return Promise.resolve(this.instructions.map((f) => ({ ...f })));
  }
  getPermissionRules(workspace: string): Promise<PermissionRule[]> {
    this.calls.push(["getPermissionRules", workspace]);
    return Promise.resolve([...(this.rules[workspace] ?? [])]);
  }
  setPermissionRules(workspace: string, rules: PermissionRule[]): Promise<PermissionRule[]> {
    this.calls.push(["setPermissionRules", workspace, rules]);
    this.rules[workspace] = [...rules];
    return Promise.resolve([...rules]);
  }
  getGitWrites(workspace: string): Promise<boolean> {
    this.calls.push(["getGitWrites", workspace]);
    return Promise.resolve(this.gitWrites.has(workspace));
  }
  setGitWrites(workspace: string, allow: boolean): Promise<boolean> {
    this.calls.push(["setGitWrites", workspace, allow]);
    if (allow) this.gitWrites.add(workspace);
    else this.gitWrites.delete(workspace);
    return Promise.resolve(allow);
  }
}

/** A transport that plays frames given per session id when connected. */
export class ScriptedTransport implements Transport {
  handlers: TransportHandlers | null = null;
  sessionId = "";
  /** The cursor the client gave at connect. */
  cursor: string | null = null;
  closed = false;
  constructor(private readonly script: (sessionId: string) => ServerFrame[]) {}
  connect(sessionId: string, h: TransportHandlers): void {
    this.sessionId = sessionId;
    this.cursor = h.cursor();
    this.handlers = h;
    h.state("connecting");
    for (const f of this.script(sessionId)) {
      h.frame(f);
      if (f.type === "snapshot") h.state("connected");
    }
  }
  /** Delivers more frames, as the server would. */
  push(...frames: ServerFrame[]): void {
    for (const f of frames) this.handlers?.frame(f);
  }
  setState(s: ConnectionState): void {
    this.handlers?.state(s);
  }
  close(): void {
    this.closed = true;
  }
}

/** A frame scheduler the test runs by hand (tick runs every pending frame callback). */
export function manualScheduler() {
  const pending: (() => void)[] = [];
  return {
    schedule: (cb: () => void) => {
      pending.push(cb);
      return () => {
        const i = pending.indexOf(cb);
        if (i >= 0) pending.splice(i, 1);
      };
    },
    tick: () => pending.splice(0).forEach((cb) => cb()),
  };
}
