// @-mention completion in the composer: the folder's paths matching what
// follows the @ before the caret (debounced), a list anchored at the @,
// ↑ ↓ to choose, Enter or Tab to insert, Esc to close.

import { useEffect, useLayoutEffect, useState, type KeyboardEvent, type RefObject } from "react";

/**
 * Where the caret at index sits inside a textarea, in px from its top-left
 * corner (scroll included): measured on a mirror element with the
 * textarea's text styles, the text before the caret and a marker at it.
 */
export function caretPoint(el: HTMLTextAreaElement, index: number): { left: number; top: number } {
  const doc = el.ownerDocument;
  const style = doc.defaultView?.getComputedStyle(el);
  const mirror = doc.createElement("div");
  const props = ["boxSizing", "width", "paddingTop", "paddingRight", "paddingBottom", "paddingLeft", "borderTopWidth", "borderRightWidth", "borderBottomWidth", "borderLeftWidth", "fontFamily", "fontSize", "fontWeight", "fontStyle", "letterSpacing", "lineHeight", "textTransform", "wordSpacing", "tabSize"] as const;
  for (const p of props) if (style) mirror.style[p] = style[p];
  Object.assign(mirror.style, { position: "absolute", visibility: "hidden", top: "0", left: "-9999px", whiteSpace: "pre-wrap", overflowWrap: "break-word", overflow: "hidden" });
  mirror.textContent = el.value.slice(0, index);
  const mark = doc.createElement("span");
  mark.textContent = "\u200b";
  mirror.appendChild(mark);
  doc.body.appendChild(mirror);
  const point = { left: mark.offsetLeft - el.scrollLeft, top: mark.offsetTop - el.scrollTop };
  mirror.remove();
  return point;
}

/** The @-mention being typed before the caret: its query and where it starts (the @), or null. */
export function mentionAt(text: string, caret: number): { query: string; start: number } | null {
  const m = /(?:^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  if (!m) return null;
  return { query: m[1]!, start: caret - m[1]!.length - 1 };
}

/** Completion waits this long after the last keystroke. */
export const MENTION_DEBOUNCE_MS = 120;

/** The text being edited, as the mention completion reads and changes it. */
export interface MentionText {
  text: string;
  setText: (t: string) => void;
  caret: number;
  setCaret: (c: number) => void;
  area: RefObject<HTMLTextAreaElement | null>;
  box: RefObject<HTMLDivElement | null>;
}

/** The completion state of t; complete absent means no completion. */
export function useMentions(complete: ((query: string) => Promise<string[]>) | undefined, t: MentionText) {
  const { text, caret, area, box } = t;
  const [options, setOptions] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState<number | null>(null);
  const mention = complete ? mentionAt(text, caret) : null;
  const open = mention !== null && dismissed !== mention.start && options.length > 0;
  // The list opens at the @ being completed (the caret's line, its column), kept inside the composer.
  const [anchor, setAnchor] = useState<{ left: number; bottom: number } | null>(null);
  useLayoutEffect(() => {
    const el = area.current;
    const host = box.current;
    if (!open || !el || !host || !mention) return setAnchor(null);
    const at = caretPoint(el, mention.start);
    const listWidth = Math.min(416, host.clientWidth - 16);
    const left = Math.max(8, Math.min(el.offsetLeft + at.left, host.clientWidth - listWidth - 8));
    setAnchor({ left, bottom: host.clientHeight - (el.offsetTop + at.top) + 4 });
  }, [open, mention?.start, text]);
  useEffect(() => {
    if (!complete || !mention) {
      setOptions([]);
      return undefined;
    }
    let live = true;
    const timer = setTimeout(() => {
      void complete(mention.query).then(
        (paths) => live && (setOptions(paths), setActive(0)),
        () => live && setOptions([]),
      );
    }, MENTION_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [complete, mention?.query, mention?.start]);
  const pick = (path: string) => {
    if (!mention) return;
    const before = text.slice(0, mention.start);
    const insert = `@${path} `;
    t.setText(before + insert + text.slice(caret).replace(/^\S*/, ""));
    setOptions([]);
    const at = before.length + insert.length;
    t.setCaret(at);
    requestAnimationFrame(() => area.current?.setSelectionRange(at, at));
  };
  /** Handles a key while the list is open; true when it was the list's. */
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open) return false;
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      setActive((active + (e.key === "ArrowDown" ? 1 : options.length - 1)) % options.length);
    } else if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey) {
      pick(options[active] ?? options[0]!);
    } else if (e.key === "Escape") {
      setDismissed(mention.start);
    } else {
      return false;
    }
    e.preventDefault();
    return true;
  };
  return { open, options, active, anchor, pick, onKey };
}
