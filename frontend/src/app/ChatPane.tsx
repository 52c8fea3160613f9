// The open session: header (title, model, usage and cost, context meter,
// compact, export), status banners, the virtualised messages, errors and the
// composer. Each part selects only what it shows from the store, so a
// streamed delta re-renders the message it belongs to and nothing here.

import { useMemo, useState } from "react";
import { useStore } from "zustand";
import {
  AbandonedChanges,
  ApprovalModeSwitch,
  ChatSessionContext,
  Composer,
  CompactionNotice,
  ConnectionBanner,
  ContextMeter,
  MessageList,
  WorkerApprovals,
  approvalModeOf,
  usageCost,
  formatUsage,
  useSessionSelector,
  type ChatSession,
} from "../chat";
import { contextUsed, pendingApprovalIds, sessionRecord } from "../state";
import type { AttachmentInfo } from "../protocol";
import type { AppController } from "./controller";
import { ExportMenu } from "./ExportMenu";
import { InstructionsChip } from "./InstructionsChip";
import { SessionOptionsForm } from "./SessionOptions";

/** Props of ChatPane. */
export interface ChatPaneProps {
  ctl: AppController;
  sessionId: string;
  /** The hub's default model (a session with no model of its own uses it). */
  defaultModel: string;
  /** The native folder dialog (the window only). */
  chooseFolder?: ((start: string) => Promise<string>) | undefined;
  /** Uploads a pasted or dropped file (Backend.uploadAttachment). */
  upload?: ((file: File) => Promise<AttachmentInfo>) | undefined;
}

/** The last path element of a folder ("/home/me/project" → "project"). */
export function folderName(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

/** A worker's way back: "Worker of <parent title>", opening the parent. */
function ParentLink({ ctl, sessionId }: { ctl: AppController; sessionId: string }) {
  const parentId = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.parent_session_id ?? "");
  const parentTitle = useStore(ctl.store, (st) => (parentId ? sessionRecord(st, parentId)?.title : undefined));
  if (!parentId) return null;
  return (
    <button type="button" className="chip chip-link" data-testid="parent-link" onClick={() => ctl.open(parentId)} title="Open the session that delegated this work">
      ↰ Worker of {parentTitle || "its parent session"}
    </button>
  );
}

/** The model and folder chips; a click opens the form that changes them between turns (not for workers). */
function SessionChips({ ctl, sessionId, model, defaultModel, chooseFolder }: { ctl: AppController; sessionId: string; model: string; defaultModel: string; chooseFolder?: ((start: string) => Promise<string>) | undefined }) {
  const [open, setOpen] = useState(false);
  const workspace = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.workspace_path ?? "");
  const pinned = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.active_model ?? "");
  const worker = useStore(ctl.store, (st) => Boolean(sessionRecord(st, sessionId)?.parent_session_id));
  const models = useStore(ctl.store, (st) => st.ui.models);
  const busy = useSessionSelector((s) => s?.turn.running ?? false);
  return (
    <span className="chat-chips">
      <button type="button" className="chip chip-btn" data-testid="model-chip" title={worker ? `Model: ${model}` : `Model: ${model} — click to change`} disabled={worker} onClick={() => setOpen(!open)} aria-expanded={open}>
        {model || "no model"}
      </button>
      {workspace && (
        <button type="button" className="chip chip-btn" data-testid="folder-chip" title={worker ? `Folder: ${workspace}` : `Folder: ${workspace} — click to change`} disabled={worker} onClick={() => setOpen(!open)} aria-expanded={open}>
          {folderName(workspace)}
        </button>
      )}
      {open && (
        <div className="chat-options-pop">
          <SessionOptionsForm
            models={models}
            defaultModel={defaultModel}
            chooseFolder={chooseFolder}
            disabled={busy}
            initial={{ model: pinned, workspace }}
            onApply={(v) => ctl.updateSession({ ...(v.model !== pinned ? { model: v.model } : {}), ...(v.workspace !== workspace ? { workspace_path: v.workspace } : {}) })}
            onClose={() => setOpen(false)}
          />
        </div>
      )}
    </span>
  );
}

const NO_QUEUE: never[] = [];

/** The session's title and model, as the header shows them. */
function useTitleAndModel(ctl: AppController, sessionId: string, defaultModel: string) {
  const title = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.title) || "Untitled";
  const recordModel = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.active_model);
  const liveModel = useSessionSelector((s) => s?.activeModel);
  return { title, model: liveModel || recordModel || defaultModel };
}

function ChatHeader({ ctl, sessionId, defaultModel, chooseFolder }: ChatPaneProps) {
  const { title, model } = useTitleAndModel(ctl, sessionId, defaultModel);
  useStore(ctl.store, (st) => st.ui.models); // re-render when context windows arrive
  const known = useSessionSelector((s) => s !== undefined);
  const busy = useSessionSelector((s) => s?.turn.running ?? false);
  const usage = useSessionSelector((s) => s?.sessionUsage);
  const used = useSessionSelector(contextUsed);
  const window = useSessionSelector((s) => s?.contextWindow) ?? ctl.contextWindow(model);
  const empty = useSessionSelector((s) => (s?.order.length ?? 0) === 0);
  const mode = useStore(ctl.store, (st) => approvalModeOf(sessionRecord(st, sessionId)?.approval_mode));
  return (
    <header className="chat-head">
      <div className="chat-title">
        <h1 title={title}>{title}</h1>
        <SessionChips ctl={ctl} sessionId={sessionId} model={model} defaultModel={defaultModel} chooseFolder={chooseFolder} />
        <InstructionsChip ctl={ctl} sessionId={sessionId} />
        <ParentLink ctl={ctl} sessionId={sessionId} />
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
            <span className="chat-usage-short">{usageCost(usage)}</span>
          </span>
        )}
        <ContextMeter used={used} window={window} />
        <ApprovalModeSwitch mode={mode} onChange={(m) => void ctl.setApprovalMode(m)} disabled={!known} />
        <button type="button" className="btn btn-xs" onClick={() => void ctl.compact()} disabled={!known || busy || empty} title="Summarise older messages to free context">
          Compact
        </button>
        <ExportMenu ctl={ctl} title={title} disabled={!known || empty} />
      </div>
    </header>
  );
}

function ChatBody({ ctl, sessionId }: { ctl: AppController; sessionId: string }) {
  const known = useSessionSelector((s) => s !== undefined);
  const connection = useSessionSelector((s) => s?.connection);
  const compaction = useSessionSelector((s) => s?.compaction);
  const idleEmpty = useSessionSelector((s) => s !== undefined && s.order.length === 0 && s.connection === "connected" && !s.turn.running);
  const workspace = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.workspace_path);
  const loadingOlder = useStore(ctl.store, (st) => st.ui.loadingOlder);
  return (
    <>
      {connection && <ConnectionBanner state={connection} />}
      {compaction && <CompactionNotice compaction={compaction} />}
      <div className="chat-body">
        {idleEmpty && (
          <div className="chat-empty">
            <p>
              Ask the agent to do something in <code>{workspace || "the workspace"}</code>.
            </p>
            <p className="muted">It can read and edit files, run commands and delegate to worker sessions.</p>
          </div>
        )}
        {known && <MessageList onLoadOlder={() => void ctl.loadOlder()} />}
        {loadingOlder && <div className="chat-loading">Loading older messages…</div>}
      </div>
    </>
  );
}

/** The calls the session's record counts as waiting whose prompts this page has not got (a hub that cannot list them). */
function UnlistedApprovals({ ctl, sessionId }: { ctl: AppController; sessionId: string }) {
  const waiting = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.pending_approvals ?? 0);
  const shown = useSessionSelector((s) => pendingApprovalIds(s).length);
  const n = waiting - shown;
  if (n <= 0) return null;
  return (
    <div className="approval-unlisted" role="status" data-testid="unlisted-approvals">
      {n === 1 ? "1 tool call waits" : `${n} tool calls wait`} for approval; {n === 1 ? "its prompt was" : "their prompts were"} sent before this page loaded.
    </div>
  );
}

/**
 * " — attempt 2 of 4 — retrying in 3 s…" for a failed call that will be
 * retried; " — attempt 2 of 4 under way…" once that attempt has started.
 */
export function retryText(attempt: number | null, retryInMs: number | null, maxAttempts: number | null = null, inFlight = false): string {
  const of = maxAttempts ? ` of ${maxAttempts}` : "";
  const next = attempt !== null ? ` — attempt ${attempt + 1}${of}` : "";
  if (inFlight) return `${next} under way…`;
  const wait = retryInMs !== null && retryInMs >= 1000 ? ` in ${Math.round(retryInMs / 1000)} s` : "";
  return `${next} — retrying${wait}…`;
}

/** "No data from the model for N s" while the current call's stream is silent (llm.call_stalled). */
function StallNotice() {
  const stall = useSessionSelector((s) => s?.stall ?? null);
  if (!stall) return null;
  return (
    <div className="chat-stall" role="status" data-testid="stall">
      No data from the model for {Math.round(stall.idleMs / 1000)} s — still waiting…
    </div>
  );
}

function ChatError({ ctl }: { ctl: AppController }) {
  const err = useSessionSelector((s) => s?.lastError ?? null);
  if (!err) return null;
  return (
    <div className="chat-error" role="alert" data-testid="chat-error">
      <strong>{err.source === "llm" ? "Model call failed" : err.source === "turn" ? "Turn failed" : "Error"}</strong>
      <span>
        {err.errorClass}: {err.message}
        {err.willRetry ? retryText(err.attempt, err.retryInMs, err.maxAttempts ?? null, err.inFlight === true) : ""}
      </span>
      <button type="button" className="icon-btn" aria-label="Dismiss error" onClick={() => ctl.clearError()}>
        ×
      </button>
    </div>
  );
}

function ChatComposer({ ctl, upload }: { ctl: AppController; upload?: ((file: File) => Promise<AttachmentInfo>) | undefined }) {
  const busy = useSessionSelector((s) => s?.turn.running ?? false);
  const queued = useSessionSelector((s) => s?.turn.queued ?? NO_QUEUE);
  const disabled = useSessionSelector((s) => !s || s.deleted);
  const complete = useMemo(() => (q: string) => ctl.listFiles(q), [ctl]);
  return (
    <Composer
      busy={busy}
      queued={queued}
      onSend={(t, attachments) => void ctl.send(t, attachments)}
      onCancel={() => void ctl.cancel()}
      onCancelQueued={(t) => void ctl.cancelQueued(t)}
      complete={complete}
      disabled={disabled}
      upload={upload}
    />
  );
}

/** The chat view of one session. */
export function ChatPane({ ctl, sessionId, defaultModel, chooseFolder, upload }: ChatPaneProps) {
  const session = useMemo<ChatSession>(
    () => ({
      store: ctl.store,
      sessionId,
      onOpenSession: (id) => ctl.open(id),
      onAnswer: (toolUseId, answer, text, rule, allowGitWrites) => ctl.approve(toolUseId, answer, text, rule, allowGitWrites),
      onRetry: (messageId) => void ctl.retryTurn(messageId),
      readToolOutput: (toolUseId, offset, length) => ctl.readToolOutput(toolUseId, offset, length),
      turnChanges: (turnId) => ctl.turnChanges(turnId),
      onRegenerate: (messageId) => ctl.regenerate(messageId),
      onEdit: (messageId, text) => ctl.editAndResend(messageId, text),
      onSwitchBranch: (messageId) => void ctl.switchBranch(messageId),
      onFork: (messageId) => void ctl.fork(messageId),
      onAbandonedAnswered: () => ctl.answerAbandoned(),
      undoTurn: (turnId) => ctl.undoTurn(turnId),
    }),
    [ctl, sessionId],
  );
  const title = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.title) || "Untitled";
  return (
    <ChatSessionContext.Provider value={session}>
      <section className="chat" aria-label={`Session ${title}`}>
        <ChatHeader ctl={ctl} sessionId={sessionId} defaultModel={defaultModel} chooseFolder={chooseFolder} />
        <ChatBody ctl={ctl} sessionId={sessionId} />
        <UnlistedApprovals ctl={ctl} sessionId={sessionId} />
        <WorkerApprovals />
        <StallNotice />
        <AbandonedChanges />
        <ChatError ctl={ctl} />
        <ChatComposer ctl={ctl} upload={upload} />
      </section>
    </ChatSessionContext.Provider>
  );
}
