// For tests: wire frames built by hand and decoded through the real decoder,
// as a transport hands them to the page.

import { decodeServerFrame, type Message, type ServerFrame, type Session, type ToolApprovalRequested } from "../protocol";

let seq = 0;

/** A fresh event id, ULID-shaped and greater than every one before (prefix picks the range). */
export function nextEventId(prefix = "01KT"): string {
  seq++;
  return `${prefix}${String(seq).padStart(26 - prefix.length, "0")}`;
}

/** Decodes a raw frame; throws what the decoder rejected. */
export function wire(raw: unknown): ServerFrame {
  const f = decodeServerFrame(raw);
  if (f.type === "unknown") throw new Error(f.reason);
  return f;
}

/** An event frame of sessionId with a fresh id. */
export function eventFrame(sessionId: string, turnId: string | null, type: string, payload: unknown, actor = "tool"): ServerFrame {
  return wire({ type: "event", event: { id: nextEventId(), type, session_id: sessionId, turn_id: turnId, ts: "2026-05-08T14:31:40Z", actor, payload } });
}

/** A tool.approval_requested payload for a bash call (fields overridable). */
export function approvalRequest(toolUseId: string, over: Partial<ToolApprovalRequested> = {}): ToolApprovalRequested {
  return { tool_use_id: toolUseId, tool_name: "bash", input: { command: "make deploy" }, status_text: "Running: make deploy", risk: "high", summary: "", reason: "bash asks by default", ...over };
}

/** A snapshot mid-wait: the stored assistant message holds one bash call (toolu_1) whose result is not stored yet. */
export function snapshotMidCall(record: Session, messageId: string, turnId: string, args: Record<string, unknown> = { command: "make deploy" }): ServerFrame {
  const assistant: Message = {
    id: messageId,
    session_id: record.session_id,
    offset: 0,
    turn_id: turnId,
    role: "assistant",
    content: [{ type: "toolCall", id: "toolu_1", name: "bash", arguments: args }],
    status: "complete",
    created_at: "2026-05-08T14:31:39Z",
  };
  return wire({ type: "snapshot", session: { ...record, current_turn_id: turnId }, messages: [assistant], snapshot_at_event_id: nextEventId() });
}
