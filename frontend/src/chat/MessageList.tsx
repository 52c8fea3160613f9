// Virtualised message list, newest at the bottom. Follows the bottom while
// the user is there, keeps the scroll position when older pages are
// prepended, and asks for older history when scrolled near the top. It
// selects only the visible ids; each row selects its own message, so a delta
// re-renders its message alone.

import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useLayoutEffect, useRef } from "react";
import { useShallow } from "zustand/react/shallow";
import { messageSize, visibleMessageIds } from "../state";
import { MessageView } from "./MessageView";
import { useStore } from "zustand";
import { useChatSession, useSessionSelector } from "./session";

/** Props of MessageList. */
export interface MessageListProps {
  /** Called when the user scrolls near the top and older history may exist. */
  onLoadOlder?: () => void;
}

const NEAR_TOP_PX = 200;
const NEAR_BOTTOM_PX = 80;
const NO_IDS: string[] = [];

/** One message of the list, by id: re-renders when that message changes. */
export const MessageRow = memo(function MessageRow({ messageId, focused }: { messageId: string; focused: boolean }) {
  const message = useSessionSelector((s) => s?.messages[messageId]);
  return message ? <MessageView message={message} focused={focused} /> : null;
});

/** The message a search hit asked to show in this session, if any. */
function useFocusedId(): string | null {
  const { store, sessionId } = useChatSession();
  return useStore(store, (st) => (st.ui.focus?.sessionId === sessionId ? st.ui.focus.messageId : null));
}

/** The open session's messages, virtualised. */
export function MessageList({ onLoadOlder }: MessageListProps) {
  const ids = useSessionSelector(useShallow((s) => (s ? visibleMessageIds(s) : NO_IDS)));
  const hasMoreHistory = useSessionSelector((s) => s?.hasMoreHistory ?? false);
  const lastSize = useSessionSelector((s) => messageSize(s?.messages[ids[ids.length - 1] ?? ""]));
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const firstId = useRef<string | undefined>(undefined);
  const prevTotal = useRef(0);
  const v = useVirtualizer({
    count: ids.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 120,
    overscan: 6,
    getItemKey: (i) => ids[i] ?? i,
  });
  const total = v.getTotalSize();
  const focusedId = useFocusedId();
  const focusIndex = focusedId ? ids.indexOf(focusedId) : -1;

  // A search hit: scroll its message into the middle (the list stops following the bottom).
  useLayoutEffect(() => {
    if (focusIndex < 0) return;
    atBottom.current = false;
    v.scrollToIndex(focusIndex, { align: "center" });
  }, [focusIndex, v]);

  // Older messages prepended: keep what the user was looking at in place.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const first = ids[0];
    if (el && firstId.current !== undefined && first !== firstId.current && !atBottom.current) {
      el.scrollTop += total - prevTotal.current;
    }
    firstId.current = first;
    prevTotal.current = total;
  });

  // A new turn (the user sent a message, here or elsewhere) brings the list
  // back to the bottom, wherever it was scrolled (a search hit, history).
  const turnId = useSessionSelector((s) => s?.turn.currentTurnId ?? null);
  const lastTurn = useRef(turnId);
  useLayoutEffect(() => {
    if (turnId !== null && turnId !== lastTurn.current) {
      atBottom.current = true;
      const el = scrollRef.current;
      if (el) el.scrollTop = el.scrollHeight;
    }
    lastTurn.current = turnId;
  }, [turnId]);

  // Follow the newest content while the user is at the bottom: one direct
  // scrollTop write after layout (scrollToIndex re-measures over several frames).
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && atBottom.current && ids.length > 0) el.scrollTop = el.scrollHeight;
  }, [ids.length, lastSize, total]);

  // The viewport shrinks or grows (an error banner, the queue, a window resize): stay pinned to the bottom.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      if (atBottom.current) el.scrollTop = el.scrollHeight;
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const onScroll = () => {
    const el = scrollRef.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX;
    if (el.scrollTop < NEAR_TOP_PX && hasMoreHistory) onLoadOlder?.();
  };

  return (
    <div ref={scrollRef} className="msg-list" onScroll={onScroll} role="log" aria-live="polite">
      <div className="msg-list-inner" style={{ height: total }}>
        {v.getVirtualItems().map((item) => (
          <div key={item.key} data-index={item.index} ref={v.measureElement} className="msg-row" style={{ transform: `translateY(${item.start}px)` }}>
            <MessageRow messageId={ids[item.index]!} focused={item.index === focusIndex} />
          </div>
        ))}
      </div>
    </div>
  );
}
