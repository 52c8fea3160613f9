// The open session: header (title, model, usage and cost, context meter,
// compact), status banners, the virtualised messages, errors and the composer.

import { useStore } from "zustand";
import { Composer, CompactionNotice, ConnectionBanner, ContextMeter, MessageList, formatCost, formatUsage } from "../chat";
import type { SessionState } from "../state";
import type { AppController } from "./controller";
import { ExportMenu } from "./ExportMenu";

/** Props of ChatPane. */
export interface ChatPaneProps {
  ctl: AppController;
  sessionId: string;
  /** The hub's default model (a session with no model of its own uses it). */
  defaultModel: string;
}

/** Tokens in context after the last call, or from the newest assistant message's usage when no call was seen live. */
export function contextUsed(s: SessionState | undefined): number | null {
  if (!s) return null;
  if (s.contextTokens !== null) return s.contextTokens;
  for (let i = s.order.length - 1; i >= 0; i--) {
    const u = s.messages[s.order[i]!]?.usage;
    if (u) return u.input_tokens + (u.cache_read_tokens ?? 0) + (u.cache_write_tokens ?? 0) + u.output_tokens;
  }
  return null;
}

/** The chat view of one session. */
export function ChatPane({ ctl, sessionId, defaultModel }: ChatPaneProps) {
  const s = useStore(ctl.chat, (st) => st.sessions[sessionId]);
  const listed = useStore(ctl.ui, (u) => u.sessions.find((x) => x.session_id === sessionId));
  useStore(ctl.ui, (u) => u.models); // re-render when context windows arrive
  const loadingOlder = useStore(ctl.ui, (u) => u.loadingOlder);
  const title = s?.session?.title || listed?.title || "Untitled";
  const model = s?.activeModel || s?.session?.active_model || listed?.active_model || defaultModel;
  const window = s?.contextWindow ?? ctl.contextWindow(model);
  const busy = s?.turn.running ?? false;
  const usage = s?.sessionUsage;
  const err = s?.lastError ?? null;
  return (
    <section className="chat" aria-label={`Session ${title}`}>
      <header className="chat-head">
        <div className="chat-title">
          <h1>{title}</h1>
          {model && <span className="chip">{model}</span>}
          {busy && (
            <span className="chip chip-live" data-testid="running">
              <span className="tool-spinner" aria-hidden="true" /> working
            </span>
          )}
        </div>
        <div className="chat-stats">
          {usage && (usage.input_tokens > 0 || usage.output_tokens > 0) && (
            <span className="chat-usage" data-testid="session-usage" title={`Session usage: ${formatUsage(usage)}`}>
              <span className="chat-usage-full">{formatUsage(usage)}</span>
              <span className="chat-usage-short">{formatCost(usage.cost_usd)}</span>
            </span>
          )}
          <ContextMeter used={contextUsed(s)} window={window} />
          <button type="button" className="btn btn-xs" onClick={() => void ctl.compact()} disabled={!s || busy || s.order.length === 0} title="Summarise older messages to free context">
            Compact
          </button>
          <ExportMenu ctl={ctl} title={title} disabled={!s || s.order.length === 0} />
        </div>
      </header>
      {s && <ConnectionBanner state={s.connection} />}
      {s && <CompactionNotice compaction={s.compaction} />}
      <div className="chat-body">
        {s && s.order.length === 0 && s.connection === "connected" && !busy && (
          <div className="chat-empty">
            <p>Ask the agent to do something in <code>{s.session?.workspace_path || listed?.workspace_path || "the workspace"}</code>.</p>
            <p className="muted">It can read and edit files, run commands and delegate to worker sessions.</p>
          </div>
        )}
        {s && (
          <MessageList session={s} onLoadOlder={() => void ctl.loadOlder()} onOpenSession={(id) => ctl.open(id)} />
        )}
        {loadingOlder && <div className="chat-loading">Loading older messages…</div>}
      </div>
      {err && (
        <div className="chat-error" role="alert" data-testid="chat-error">
          <strong>{err.source === "llm" ? "Model call failed" : err.source === "turn" ? "Turn failed" : "Error"}</strong>
          <span>
            {err.errorClass}: {err.message}
            {err.willRetry ? " — retrying…" : ""}
          </span>
          <button type="button" className="icon-btn" aria-label="Dismiss error" onClick={() => ctl.clearError()}>
            ×
          </button>
        </div>
      )}
      <Composer busy={busy} queued={s?.turn.queued ?? []} onSend={(t) => void ctl.send(t)} onCancel={() => void ctl.cancel()} onCancelQueued={(t) => void ctl.cancelQueued(t)} disabled={!s || s.deleted} />
    </section>
  );
}
