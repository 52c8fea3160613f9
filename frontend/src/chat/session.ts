// The session a chat view shows: the store and the session id, provided once
// by the pane so every message, tool card and delegation card selects just
// its own piece of state (a delta re-renders only what it changed).

import { createContext, useContext } from "react";
import type { StoreApi } from "zustand/vanilla";
import { useStore } from "zustand";
import type { ApprovalAnswer, PermissionRule, TurnChanges, TurnUndone } from "../protocol";
import type { AppStore, SessionState } from "../state";

/** What the chat components of one session read. */
export interface ChatSession {
  store: StoreApi<AppStore>;
  sessionId: string;
  /** Opens a session by id (a worker's, from its delegation card). */
  onOpenSession?: (sessionId: string) => void;
  /** Answers a call's approval prompt; resolves true once the hub took the answer. */
  onAnswer?: (toolUseId: string, answer: ApprovalAnswer, message: string, rule?: PermissionRule, allowGitWrites?: boolean) => Promise<boolean>;
  /** Runs a failed turn again, in place: a new version of its user message (Retry). */
  onRetry?: (messageId: string) => void;
  /** Reads a slice of a tool call's stored output (the full-output panel). */
  readToolOutput?: (toolUseId: string, offset: number, length?: number) => Promise<{ text: string; next: number; size: number; eof: boolean }>;
  /** Branches (docs/branching.md): answer again, edit and resend, show another branch, fork. */
  onRegenerate?: (messageId: string) => Promise<boolean>;
  onEdit?: (messageId: string, text: string) => Promise<boolean>;
  onSwitchBranch?: (messageId: string) => void;
  onFork?: (messageId: string) => void;
  /** The offer to undo a left branch's file changes was answered (undone or kept). */
  onAbandonedAnswered?: () => void;
  /** The files a turn changed (the turn's "N files changed" panel). */
  turnChanges?: (turnId: string) => Promise<TurnChanges>;
  /** Undoes a turn's file changes. */
  undoTurn?: (turnId: string) => Promise<TurnUndone>;
}

/** Provided by ChatPane (or a test) around the chat components. */
export const ChatSessionContext = createContext<ChatSession | null>(null);

/** The ChatSession around the caller. */
export function useChatSession(): ChatSession {
  const c = useContext(ChatSessionContext);
  if (!c) throw new Error("chat components need a ChatSessionContext provider");
  return c;
}

/** The ChatSession around the caller, or null outside one (a card rendered alone). */
export function useOptionalChatSession(): ChatSession | null {
  return useContext(ChatSessionContext);
}

/**
 * Selects from the session's state (undefined until it has any). The
 * component re-renders only when the selected value changes (Object.is), so
 * select the smallest piece — a message, a card — or a primitive.
 */
export function useSessionSelector<T>(select: (s: SessionState | undefined) => T): T {
  const { store, sessionId } = useChatSession();
  return useStore(store, (st) => select(st.chat[sessionId]));
}
