// Typed wrappers over the hub RPC methods (ipc/rpc/methods.go).

import {
  decodeHistoryMessage,
  decodeMCPServers,
  decodePendingApprovals,
  decodeGitWrites,
  decodePermissionRules,
  type ApprovalAnswer,
  type ApprovalMode,
  type AttachmentRef,
  type CommandList,
  type HistoryMessage,
  type MCPServerStatus,
  type ModelInfo,
  type PermissionRule,
  type Session,
  type Todo,
  type ToolApprovalRequested,
  type TurnChanges,
  type TurnUndone,
} from "../protocol";

export type { ModelInfo };
import type { RpcClient } from "./rpc";
import { createDevicesClient, type DevicesClient } from "./devices";

/** The answer to a turn submission (ipc.SubmitResult). */
export interface SubmitResult {
  turn_id: string;
  queued: boolean;
}

/** One MCP server as kept in settings.json's mcp_servers (app/mcp.ServerConfig). */
export interface MCPServerConfig {
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  /** Only sessions in this directory (or below) get the server's tools. */
  workspace?: string;
  disabled?: boolean;
}

/** A model's price override in USD per million tokens (llm.Price). */
export interface ModelPrice {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

/** Settings as the hub returns them: secrets masked (app.Settings JSON). */
export interface SettingsView {
  provider?: string;
  model?: string;
  anthropic_api_key?: string;
  anthropic_base_url?: string;
  openai_api_key?: string;
  openai_base_url?: string;
  dashboard_enabled?: boolean;
  dashboard_listen?: string;
  /** The gateway this hub connects to as a device ("" = none). */
  gateway_url?: string;
  /** The approval mode of new sessions (ask | auto-edits | auto-all). */
  approval_mode?: string;
  /** The MCP servers by name; a patch carrying it replaces the whole set. */
  mcp_servers?: Record<string, MCPServerConfig>;
  /** Read-only: one line on what the bash sandbox enforces on this kernel. */
  sandbox?: string;
  /** Read-only: the sandbox's protections active on this machine, one line each. */
  sandbox_protections?: string[];
  /** Variables added to bash's environment (which otherwise has none of the app's). */
  tool_env?: Record<string, string>;
  /** Read-only: where API keys are stored (the system keyring or a file). */
  keys_stored_in?: string;
  /** Read-only: a stored key that could not be read (it has to be entered again). */
  keys_error?: string;
  /** Read-only: where each overridable value comes from (env | flag | settings | default). */
  sources?: Record<string, string>;
  /** Whether sessions are named by the model after their first turn (default on). */
  auto_title?: boolean;
  /** Price overrides by model name (without the provider prefix); a patch carrying it replaces them all. */
  prices?: Record<string, ModelPrice>;
}

/** The answer of testConnection (ipc.ConnectionTest): one tiny call to a provider. */
export interface ConnectionTest {
  provider: string;
  ok: boolean;
  model?: string;
  duration_ms: number;
  error?: string;
}

/** One full-text search hit (ipc.SearchHit). */
export interface SearchHit {
  session_id: string;
  message_id: string;
  /** Text around the match; the matched words are found again by the UI to highlight them. */
  snippet: string;
  role?: string;
  offset?: number;
  session_title?: string;
  /** A hit in a tool's output: the call (its card opens the output at the match). */
  tool_use_id?: string;
}

/** A slice of a tool call's stored output (rpc.ToolOutputChunk). */
export interface ToolOutputChunk {
  text: string;
  offset: number;
  next: number;
  size: number;
  eof: boolean;
}

/** One instruction file a session's turns read (ipc.InstructionFile). */
export interface InstructionFile {
  path: string;
  size: number;
  /** Bytes the system prompt carries (less than size: cut). */
  kept: number;
  scope: "global" | "project" | string;
}

/** What updateSession changes (absent fields stay). */
export interface SessionUpdate {
  model?: string;
  workspace_path?: string;
}

/** An export format of exportSession. */
export type ExportFormat = "markdown" | "json";

/** The answer to exportSession (rpc.ExportResult): the document as text. */
export interface ExportResult {
  format: ExportFormat;
  media_type: string;
  content: string;
}

/** One `before` page of history. */
export interface HistoryPage {
  messages: HistoryMessage[];
  hasMore: boolean;
}

/** The hub operations the UI uses. */
export interface HubClient {
  listSessions(): Promise<Session[]>;
  createSession(req?: { title?: string; model?: string; workspace_path?: string }): Promise<Session>;
  renameSession(id: string, title: string): Promise<Session>;
  deleteSession(id: string): Promise<void>;
  /** Submits a message; attachments are uploads (Backend.uploadAttachment) it carries. */
  submitTurn(id: string, content: string, attachments?: AttachmentRef[]): Promise<SubmitResult>;
  cancelTurn(id: string, turnId?: string | null): Promise<void>;
  compactSession(id: string): Promise<void>;
  /** The session's conversation as a Markdown or JSON document. */
  exportSession(id: string, format: ExportFormat): Promise<ExportResult>;
  /** Messages older than beforeId (newest page when beforeId is null), oldest first. */
  messagesBefore(id: string, beforeId: string | null, limit: number): Promise<HistoryPage>;
  getSettings(): Promise<SettingsView>;
  updateSettings(patch: SettingsView): Promise<SettingsView>;
  listModels(): Promise<ModelInfo[]>;
  /** Answers a waiting tool call (the session is the call's or an ancestor's). */
  approveTool(id: string, toolUseId: string, answer: ApprovalAnswer, message?: string, rule?: PermissionRule, allowGitWrites?: boolean): Promise<void>;
  /** Sets a session's approval mode; resolves with the record. */
  setApprovalMode(id: string, mode: ApprovalMode): Promise<Session>;
  /** Sets a session's bash sandbox options; resolves with the record. */
  setSandboxOptions(id: string, readWorkspaceOnly: boolean, network: boolean): Promise<Session>;
  /**
   * The approvals waiting in a session, its own calls' and (worker_session_id
   * set) its workers'. listPendingApprovals is asked of the hub after a
   * snapshot whose record counts pending_approvals: the snapshot carries
   * messages, not the request events.
   */
  listPendingApprovals(id: string): Promise<ToolApprovalRequested[]>;
  /** A workspace's permission rules. */
  getPermissionRules(workspace: string): Promise<PermissionRule[]>;
  /** Replaces a workspace's permission rules; resolves with them as stored. */
  setPermissionRules(workspace: string, rules: PermissionRule[]): Promise<PermissionRule[]>;
  /** Whether sandboxed bash may write the workspace's .git (off by default). */
  getGitWrites(workspace: string): Promise<boolean>;
  /** Turns git writes for the workspace on or off; resolves with the stored value. */
  setGitWrites(workspace: string, allow: boolean): Promise<boolean>;
  /** The state of every configured MCP server. */
  listMcpServers(): Promise<MCPServerStatus[]>;
  /** Full-text search over every message of every session, newest first. */
  search(query: string, limit?: number): Promise<SearchHit[]>;
  /** Changes a session's model or folder between turns; resolves with the record. */
  updateSession(id: string, update: SessionUpdate): Promise<Session>;
  /** Reads up to length bytes of a tool call's stored output from offset. */
  readToolOutput(id: string, toolUseId: string, offset: number, length?: number): Promise<ToolOutputChunk>;
  /** The instruction files (AGENTS.md / CLAUDE.md) the session's next turn reads, outermost first. */
  getInstructions(id: string): Promise<InstructionFile[]>;
  /** The files a turn changed, with their content before and after (docs/undo.md). */
  getTurnChanges(id: string, turnId: string): Promise<TurnChanges>;
  /** Restores the files a turn changed; files changed since are left alone (skipped, with the reason). */
  undoTurn(id: string, turnId: string): Promise<TurnUndone>;
  /** Answers a user message (or the one whose turn produced messageId) again, as a sibling branch. */
  regenerate(id: string, messageId: string): Promise<SubmitResult>;
  /** The files of a folder no session has yet matching query (@-completion in a new session's first message; "" = the default folder). */
  listFolderFiles(folder: string, query: string, limit?: number): Promise<string[]>;
  /** Makes one tiny call to a provider with the credentials configured now (Settings' "Test connection"). */
  testConnection(provider: string): Promise<ConnectionTest>;
  /** Runs a user message's turn again as a new version of it (an exact copy, a sibling branch). */
  retryTurn(id: string, messageId: string): Promise<SubmitResult>;
  /** Sends a changed copy of a user message as a sibling branch. */
  editMessage(id: string, messageId: string, content: string): Promise<SubmitResult>;
  /** Moves the current path to the newest branch through messageId. */
  switchBranch(id: string, messageId: string): Promise<Session>;
  /** A new session whose history is a copy of the path up to messageId. */
  forkSession(id: string, messageId: string): Promise<Session>;
  /** The session folder's files matching query (fuzzy, .gitignore respected), best first. */
  listFiles(id: string, query: string, limit?: number): Promise<string[]>;
  /** The custom commands, skills and agents of a session's folder (docs/workflows.md). */
  listCommands(id: string): Promise<CommandList>;
  /** Runs /name args as a turn; trust lets a repository command's shell lines run. */
  runCommand(id: string, name: string, args: string, trust?: boolean): Promise<SubmitResult>;
  /** Replaces the session's todo list (the user's edit). */
  setTodos(id: string, todos: Todo[]): Promise<Session>;
  /** "Build it": builds the presented plan (edited text: plan) in mode. */
  buildPlan(id: string, mode: ApprovalMode, plan?: string): Promise<SubmitResult>;
  /** The devices that reach the hub through a gateway (the hub's own user only; devices.ts). */
  devices?: DevicesClient;
}

/** compactSession waits for the model's summary; exportSession may build a large document. */
export const COMPACT_TIMEOUT_MS = 5 * 60_000;
export const EXPORT_TIMEOUT_MS = 60_000;

function list<T>(v: unknown, key: string): T[] {
  const x = (v as Record<string, unknown> | null)?.[key];
  return Array.isArray(x) ? (x as T[]) : [];
}

/** Creates a HubClient over an RpcClient. */
export function createHubClient(rpc: RpcClient): HubClient {
  return {
    devices: createDevicesClient(rpc),
    async listSessions() {
      return list<Session>(await rpc.call("listSessions"), "sessions");
    },
    createSession(req = {}) {
      return rpc.call<Session>("createSession", req);
    },
    renameSession(id, title) {
      return rpc.call<Session>("renameSession", { agentId: id, title });
    },
    async deleteSession(id) {
      await rpc.call("deleteSession", { agentId: id });
    },
    submitTurn(id, content, attachments) {
      return rpc.call<SubmitResult>("submitTurn", { agentId: id, content, ...(attachments?.length ? { attachments } : {}) });
    },
    async cancelTurn(id, turnId) {
      await rpc.call("cancelTurn", { agentId: id, ...(turnId ? { turnId } : {}), reason: "user_cancel" });
    },
    async compactSession(id) {
      await rpc.call("compactSession", { agentId: id }, COMPACT_TIMEOUT_MS);
    },
    exportSession(id, format) {
      return rpc.call<ExportResult>("exportSession", { agentId: id, format }, EXPORT_TIMEOUT_MS);
    },
    async messagesBefore(id, beforeId, limit) {
      const page = await rpc.call<{ messages?: unknown[]; has_more?: boolean }>("getAgentMessages", {
        agentId: id,
        before: beforeId ?? "",
        limit,
      });
      const messages = (page.messages ?? []).map(decodeHistoryMessage).filter((m): m is HistoryMessage => m !== null);
      return { messages, hasMore: page.has_more === true };
    },
    async getSettings() {
      return (await rpc.call<SettingsView>("getSettings")) ?? {};
    },
    async updateSettings(patch) {
      return (await rpc.call<SettingsView>("updateSettings", patch)) ?? {};
    },
    async listModels() {
      return list<ModelInfo>(await rpc.call("listModels"), "models");
    },
    async approveTool(id, toolUseId, answer, message, rule, allowGitWrites) {
      await rpc.call("approveTool", {
        session_id: id,
        tool_use_id: toolUseId,
        decision: answer,
        ...(message ? { message } : {}),
        ...(rule ? { rule } : {}),
        ...(allowGitWrites ? { allow_git_writes: true } : {}),
      });
    },
    setApprovalMode(id, mode) {
      return rpc.call<Session>("setApprovalMode", { session_id: id, mode });
    },
    setSandboxOptions(id, readWorkspaceOnly, network) {
      return rpc.call<Session>("setSandboxOptions", { session_id: id, read_workspace_only: readWorkspaceOnly, network });
    },
    async listPendingApprovals(id) {
      return decodePendingApprovals(await rpc.call("listPendingApprovals", { session_id: id }));
    },
    async getPermissionRules(workspace) {
      return decodePermissionRules(await rpc.call("getPermissionRules", { workspace }));
    },
    async setPermissionRules(workspace, rules) {
      return decodePermissionRules(await rpc.call("setPermissionRules", { workspace, rules }));
    },
    async getGitWrites(workspace) {
      return decodeGitWrites(await rpc.call("getPermissionRules", { workspace }));
    },
    async setGitWrites(workspace, allow) {
      return decodeGitWrites(await rpc.call("setGitWrites", { workspace, allow }));
    },
    async listMcpServers() {
      return decodeMCPServers(await rpc.call("listMcpServers"));
    },
    async search(query, limit = 20) {
      return list<SearchHit>(await rpc.call("search", { query, limit }), "hits");
    },
    updateSession(id, update) {
      return rpc.call<Session>("updateSession", { session_id: id, ...update });
    },
    async listFiles(id, query, limit = 12) {
      return list<string>(await rpc.call("listFiles", { session_id: id, query, limit }), "files");
    },
    async getInstructions(id) {
      return list<InstructionFile>(await rpc.call("getInstructions", { session_id: id }), "files");
    },
    regenerate(id, messageId) {
      return rpc.call<SubmitResult>("regenerate", { session_id: id, message_id: messageId });
    },
    async listFolderFiles(folder, query, limit = 20) {
      return list<string>(await rpc.call("listFiles", { workspace_path: folder, query, limit }), "files");
    },
    testConnection(provider) {
      return rpc.call<ConnectionTest>("testConnection", { provider });
    },
    retryTurn(id, messageId) {
      return rpc.call<SubmitResult>("retryTurn", { session_id: id, message_id: messageId });
    },
    editMessage(id, messageId, content) {
      return rpc.call<SubmitResult>("editMessage", { session_id: id, message_id: messageId, content });
    },
    switchBranch(id, messageId) {
      return rpc.call<Session>("switchBranch", { session_id: id, message_id: messageId });
    },
    forkSession(id, messageId) {
      return rpc.call<Session>("forkSession", { session_id: id, message_id: messageId });
    },
    getTurnChanges(id, turnId) {
      return rpc.call<TurnChanges>("getTurnChanges", { session_id: id, turn_id: turnId });
    },
    undoTurn(id, turnId) {
      return rpc.call<TurnUndone>("undoTurn", { session_id: id, turn_id: turnId });
    },
    async listCommands(id) {
      const l = await rpc.call<Partial<CommandList>>("listCommands", { session_id: id });
      return { commands: l?.commands ?? [], agents: l?.agents ?? [], problems: l?.problems ?? [] };
    },
    runCommand(id, name, args, trust) {
      return rpc.call<SubmitResult>("runCommand", { session_id: id, name, arguments: args, ...(trust ? { trust: true } : {}) });
    },
    setTodos(id, todos) {
      return rpc.call<Session>("setTodos", { session_id: id, todos });
    },
    buildPlan(id, mode, plan) {
      return rpc.call<SubmitResult>("buildPlan", { session_id: id, mode, ...(plan !== undefined ? { plan } : {}) });
    },
    readToolOutput(id, toolUseId, offset, length) {
      return rpc.call<ToolOutputChunk>("readToolOutput", { session_id: id, tool_use_id: toolUseId, offset, ...(length ? { length } : {}) });
    },
  };
}
