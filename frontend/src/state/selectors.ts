// Derived views of the state for components and tests. Components select
// the smallest piece they render (one message, one tool card), so a delta
// re-renders only what it changed.

import type { Session } from "../protocol";
import { chunkText } from "./chunks";
import type { AppState, ChatMessage, MessageBlock, SessionState } from "./types";

/**
 * Ids of the messages to render, oldest first: toolResult messages whose
 * call shows as a tool card inside an assistant message are folded into
 * that card, and so is the partial answer of an attempt that failed and was
 * retried (an errored assistant message followed by another of its turn) in
 * histories written before one message per model call (message.reset; since
 * then a retried call is one message): the retried attempts read as one answer.
 */
export function visibleMessageIds(s: SessionState): string[] {
  const calls = new Set<string>();
  const retried = new Set<string>();
  const later = new Set<string>(); // turns with an assistant message after this one
  for (let i = s.order.length - 1; i >= 0; i--) {
    const m = s.messages[s.order[i]!];
    if (m?.role !== "assistant") continue;
    for (const b of m.content) if (b.type === "toolCall") calls.add(b.id);
    if (m.status === "error" && m.turnId && later.has(m.turnId)) retried.add(m.id);
    if (m.turnId) later.add(m.turnId);
  }
  const out: string[] = [];
  for (const id of s.order) {
    const m = s.messages[id];
    if (!m || retried.has(id)) continue;
    if (m.role === "toolResult" && m.toolCallId && calls.has(m.toolCallId)) continue;
    out.push(id);
  }
  return out;
}

/** The messages to render, oldest first (see visibleMessageIds). */
export function visibleMessages(s: SessionState): ChatMessage[] {
  return visibleMessageIds(s).map((id) => s.messages[id]!);
}

/** The text of a block (a streaming one's chunks joined: O(length), not for the render path). */
export function blockText(b: MessageBlock): string {
  switch (b.type) {
    case "text":
      return b.text;
    case "streamingText":
      return chunkText(b.chunks);
    default:
      return "";
  }
}

/** The text blocks of a message, joined. */
export function messageText(m: ChatMessage): string {
  return m.content.map(blockText).join("");
}

/** A size that changes whenever the message grows (the list follows the bottom on it), without reading its text. */
export function messageSize(m: ChatMessage | undefined): string {
  if (!m) return "";
  const b = m.content[m.content.length - 1];
  let n = 0;
  if (b?.type === "text") n = b.text.length;
  else if (b?.type === "thinking") n = b.thinking.length;
  else if (b?.type === "streamingText" || b?.type === "streamingThinking") n = b.chunks.length;
  else if (b) n = JSON.stringify(b).length;
  return `${m.id}:${m.content.length}:${n}:${m.status}`;
}

/** Whether a turn is running (Stop button shown, Enter queues). */
export function isBusy(s: SessionState): boolean {
  return s.turn.running;
}

/** The session list's record of id. */
export function sessionRecord(state: AppState, id: string): Session | undefined {
  return state.sessions.records.find((s) => s.session_id === id);
}

/** Whether the session shows as running in the sidebar: its stream's turn state while connected, else the record's. */
export function sessionRunning(s: Session, live: SessionState | undefined): boolean {
  if (live && live.connection === "connected") return live.turn.running;
  return Boolean(s.current_turn_id);
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

/**
 * For a stored toolResult message, the assistant message that made its call
 * and the call's id (a search hit in a tool's output shows that card); null
 * for any other message or a call not loaded.
 */
export function toolCallOf(s: SessionState, messageId: string): { messageId: string; toolUseId: string } | null {
  const m = s.messages[messageId];
  if (m?.role !== "toolResult" || !m.toolCallId) return null;
  const id = m.toolCallId;
  for (const mid of s.order) {
    const a = s.messages[mid];
    if (a?.role === "assistant" && a.content.some((b) => b.type === "toolCall" && b.id === id)) return { messageId: a.id, toolUseId: id };
  }
  return null;
}
