// Tool approvals (docs/permissions.md): each asked call's approval lives on
// its tool card — requested by tool.approval_requested (or a listing of the
// approvals waiting, after a snapshot: snapshots carry messages, not events),
// resolved by tool.approval_resolved. A delegated worker's request also
// arrives in each ancestor session (worker_session_id set): there it gets a
// card of its own that belongs to no message. Pure functions and selectors.

import type { EnvelopeBase, PayloadMap, Session, ToolApprovalRequested } from "../protocol";
import { newToolCard } from "./history";
import { putTool } from "./stream";
import type { SessionState, ToolCardState } from "./types";

type Ev<K extends keyof PayloadMap> = EnvelopeBase<K, PayloadMap[K]>;

/** Whether the call has ended (so any approval it had is over). */
function settled(card: ToolCardState): boolean {
  return card.status === "done" || card.status === "error" || card.status === "cancelled";
}

/** card waiting for approval as p asks; order sorts it among the prompts (ApprovalRequest.order). */
function withRequest(card: ToolCardState, p: ToolApprovalRequested, order: string): ToolCardState {
  return {
    ...card,
    toolName: card.toolName || p.tool_name,
    input: card.input ?? p.input,
    statusText: card.statusText || p.status_text,
    status: card.status === "streaming-input" ? "running" : card.status,
    workerSessionId: p.worker_session_id ?? card.workerSessionId,
    approval: {
      request: {
        risk: p.risk,
        reason: p.reason,
        summary: p.summary,
        order,
        ...(p.always_rule ? { alwaysRule: p.always_rule } : {}),
        ...(p.git_writes_offer ? { git_writes_offer: true } : {}),
        ...(p.edit_context ? { editContext: p.edit_context } : {}),
      },
      resolution: card.approval?.resolution ?? null,
    },
  };
}

/** Applies tool.approval_requested: the call's card (a new one for a worker's copy) waits for an answer. */
export function onApprovalRequested(s: SessionState, e: Ev<"tool.approval_requested">): SessionState {
  const p = e.payload;
  const card = s.tools[p.tool_use_id] ?? newToolCard(p.tool_use_id, p.tool_name, null, e.turn_id);
  return putTool(s, withRequest(card, p, e.id));
}

/** Applies tool.approval_resolved: who answered and how. A call this state never saw is ignored. */
export function onApprovalResolved(s: SessionState, e: Ev<"tool.approval_resolved">): SessionState {
  const p = e.payload;
  const card = s.tools[p.tool_use_id];
  if (!card) return s;
  const resolution = { decision: p.decision, by: p.by, message: p.message ?? null, ...(p.rule ? { rule: p.rule } : {}) };
  return putTool(s, { ...card, approval: { request: card.approval?.request ?? null, resolution } });
}

/**
 * Applies a listing of the approvals waiting (asked after a snapshot). A call
 * this state already knows as requested, resolved or ended keeps what its
 * events said: the listing may be older than them.
 */
export function onApprovalsListed(s: SessionState, list: readonly ToolApprovalRequested[]): SessionState {
  let next = s;
  for (const [i, p] of list.entries()) {
    const card = next.tools[p.tool_use_id];
    if (card && (card.approval !== null || settled(card))) continue;
    next = putTool(next, withRequest(card ?? newToolCard(p.tool_use_id, p.tool_name, null, null), p, `!${String(i).padStart(6, "0")}`));
  }
  return next;
}

/** Whether the card's call waits for the user's answer. */
export function isPending(card: ToolCardState | undefined): boolean {
  return card?.approval?.request != null && card.approval.resolution === null && !settled(card);
}

/** Ids of the session's calls waiting for approval, oldest request first (its own and its workers'). */
export function pendingApprovalIds(s: SessionState | undefined): string[] {
  if (!s) return [];
  const pending = Object.values(s.tools).filter(isPending);
  pending.sort((a, b) => a.approval!.request!.order.localeCompare(b.approval!.request!.order) || a.toolUseId.localeCompare(b.toolUseId));
  return pending.map((c) => c.toolUseId);
}

/** The session's oldest waiting call (the one the keyboard shortcuts answer), or null. */
export function firstPendingId(s: SessionState | undefined): string | null {
  return pendingApprovalIds(s)[0] ?? null;
}

/** Ids of the delegated workers' calls waiting in this (ancestor) session, oldest first. */
export function workerApprovalIds(s: SessionState | undefined): string[] {
  return pendingApprovalIds(s).filter((id) => s!.tools[id]!.workerSessionId !== null);
}

/**
 * How many calls wait for approval across all sessions: each record counts
 * its own and its workers' (pending_approvals), so only the sessions whose
 * parent is not listed are summed.
 */
export function waitingTotal(records: readonly Session[]): number {
  const ids = new Set(records.map((r) => r.session_id));
  let n = 0;
  for (const r of records) if (!r.parent_session_id || !ids.has(r.parent_session_id)) n += r.pending_approvals ?? 0;
  return n;
}
