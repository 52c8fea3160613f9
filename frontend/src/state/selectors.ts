// Derived views of SessionState for components and tests.

import type { ChatMessage, SessionState } from "./types";

/**
 * Messages to render, oldest first. toolResult messages whose call is shown
 * as a tool card inside an assistant message are folded into that card.
 */
export function visibleMessages(s: SessionState): ChatMessage[] {
  const calls = new Set<string>();
  for (const id of s.order) {
    const m = s.messages[id];
    if (m?.role === "assistant") for (const b of m.content) if (b.type === "toolCall") calls.add(b.id);
  }
  const out: ChatMessage[] = [];
  for (const id of s.order) {
    const m = s.messages[id];
    if (!m) continue;
    if (m.role === "toolResult" && m.toolCallId && calls.has(m.toolCallId)) continue;
    out.push(m);
  }
  return out;
}

/** Whether a turn is running (Stop button shown, Enter queues). */
export function isBusy(s: SessionState): boolean {
  return s.turn.running;
}
