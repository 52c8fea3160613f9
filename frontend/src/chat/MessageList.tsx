// Virtualised message list, newest at the bottom. Follows the bottom while
// the user is there, keeps the scroll position when older pages are
// prepended, and asks for older history when scrolled near the top.

import { useVirtualizer } from "@tanstack/react-virtual";
import { memo } from "react";
import { useLayoutEffect, useRef } from "react";
import type { ChatMessage, SessionState } from "../state";
import { visibleMessages } from "../state";
import { MessageView } from "./MessageView";

// Only the message whose props changed re-renders (a streaming delta touches one message).
const MemoMessageView = memo(MessageView);

/** Props of MessageList. */
export interface MessageListProps {
  session: SessionState;
  /** Called when the user scrolls near the top and older history may exist. */
  onLoadOlder?: () => void;
  onOpenSession?: (sessionId: string) => void;
}

const NEAR_TOP_PX = 200;

/** A cheap size signature of a content block (changes whenever it grows). */
function blockSize(b: ChatMessage["content"][number] | undefined): number {
  if (!b) return 0;
  if (b.type === "text") return b.text.length;
  if (b.type === "thinking") return b.thinking.length;
  return JSON.stringify(b).length;
}
const NEAR_BOTTOM_PX = 80;

/** The session's messages, virtualised. */
export function MessageList({ session, onLoadOlder, onOpenSession }: MessageListProps) {
  const messages = visibleMessages(session);
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const firstId = useRef<string | undefined>(undefined);
  const prevTotal = useRef(0);
  const v = useVirtualizer({
    count: messages.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 120,
    overscan: 6,
    getItemKey: (i) => messages[i]?.id ?? i,
  });
  const total = v.getTotalSize();

  // Older messages prepended: keep what the user was looking at in place.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    const first = messages[0]?.id;
    if (el && firstId.current !== undefined && first !== firstId.current && !atBottom.current) {
      el.scrollTop += total - prevTotal.current;
    }
    firstId.current = first;
    prevTotal.current = total;
  });

  // Follow the newest content while the user is at the bottom: one direct
  // scrollTop write after layout (scrollToIndex re-measures over several frames).
  const last = messages[messages.length - 1];
  const lastBlock = last?.content[last.content.length - 1];
  const lastSig = last ? `${last.id}:${last.content.length}:${blockSize(lastBlock)}` : "";
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && atBottom.current && messages.length > 0) el.scrollTop = el.scrollHeight;
  }, [messages.length, lastSig, total]);

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
    if (el.scrollTop < NEAR_TOP_PX && session.hasMoreHistory) onLoadOlder?.();
  };

  return (
    <div ref={scrollRef} className="msg-list" onScroll={onScroll} role="log" aria-live="polite">
      <div className="msg-list-inner" style={{ height: total }}>
        {v.getVirtualItems().map((item) => {
          const m = messages[item.index]!;
          return (
            <div key={item.key} data-index={item.index} ref={v.measureElement} className="msg-row" style={{ transform: `translateY(${item.start}px)` }}>
              <MemoMessageView message={m} tools={session.tools} delegations={session.delegations} {...(onOpenSession ? { onOpenSession } : {})} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
