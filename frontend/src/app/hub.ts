// Typed wrappers over the hub RPC methods (ipc/rpc/methods.go).

import { decodeHistoryMessage, type HistoryMessage, type ModelInfo, type Session } from "../protocol";

export type { ModelInfo };
import type { RpcClient } from "../transport/rpc";

/** The answer to a turn submission (ipc.SubmitResult). */
export interface SubmitResult {
  turn_id: string;
  queued: boolean;
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
  submitTurn(id: string, content: string): Promise<SubmitResult>;
  cancelTurn(id: string, turnId?: string | null): Promise<void>;
  compactSession(id: string): Promise<void>;
  /** The session's conversation as a Markdown or JSON document. */
  exportSession(id: string, format: ExportFormat): Promise<ExportResult>;
  /** Messages older than beforeId (newest page when beforeId is null), oldest first. */
  messagesBefore(id: string, beforeId: string | null, limit: number): Promise<HistoryPage>;
  getSettings(): Promise<SettingsView>;
  updateSettings(patch: SettingsView): Promise<SettingsView>;
  listModels(): Promise<ModelInfo[]>;
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
    submitTurn(id, content) {
      return rpc.call<SubmitResult>("submitTurn", { agentId: id, content });
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
  };
}
