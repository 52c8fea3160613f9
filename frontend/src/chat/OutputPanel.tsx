// The full output of one tool call, read from the hub in slices
// (readToolOutput, the RPC twin of GET /sessions/{id}/tools/{id}/output):
// a virtualised list of numbered lines — only the visible ones are in the
// DOM, so 100,000 lines open at once — with search (Enter / Shift+Enter
// step through the matches). It is a modal over the whole window, rendered
// into document.body: inside the transcript a transformed (virtualised) row
// would be its containing block and clip it.

import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { createPortal } from "react-dom";
import { useModal } from "./modals";
import { Revealed } from "./Reveal";

/** Reads one slice of the output from offset. */
export type ReadOutput = (offset: number, length?: number) => Promise<{ text: string; next: number; size: number; eof: boolean }>;

/** Most of an output the panel loads; past it the panel says what it left out. */
export const PANEL_MAX_BYTES = 32 << 20;
const SLICE = 1 << 20;
const ROW_PX = 19;

/** Reads the whole output (up to PANEL_MAX_BYTES) slice by slice. */
export async function readAll(read: ReadOutput, onProgress?: (loaded: number, size: number) => void): Promise<{ text: string; size: number; cut: boolean }> {
  let offset = 0;
  let text = "";
  let size = 0;
  for (;;) {
    const c = await read(offset, SLICE);
    text += c.text;
    size = c.size;
    onProgress?.(c.next, c.size);
    if (c.eof || c.next <= offset) return { text, size, cut: false };
    offset = c.next;
    if (offset >= PANEL_MAX_BYTES) return { text, size, cut: true };
  }
}

/** The indexes of the lines containing query (case-insensitive). */
export function matchingLines(lines: readonly string[], query: string): number[] {
  const q = query.toLowerCase();
  if (q === "") return [];
  const out: number[] = [];
  for (let i = 0; i < lines.length; i++) if (lines[i]!.toLowerCase().includes(q)) out.push(i);
  return out;
}

/** A line with its matches of query marked and hidden characters shown as escapes. */
function marked(line: string, query: string): ReactNode {
  if (!query) return <Revealed text={line} />;
  const low = line.toLowerCase();
  const q = query.toLowerCase();
  const out: ReactNode[] = [];
  let at = 0;
  for (let i = low.indexOf(q); i !== -1; i = low.indexOf(q, at)) {
    out.push(<Revealed key={`t${i}`} text={line.slice(at, i)} />, <mark key={i}><Revealed text={line.slice(i, i + q.length)} /></mark>);
    at = i + q.length;
  }
  out.push(<Revealed key="end" text={line.slice(at)} />);
  return out;
}

type Load = { kind: "loading"; loaded: number; size: number } | { kind: "error"; message: string } | { kind: "ready"; lines: string[]; size: number; cut: boolean };

/** Props of OutputPanel. */
export interface OutputPanelProps {
  title: string;
  read: ReadOutput;
  onClose: () => void;
  /** Opens with this search (a search hit in the output): its first matching line is shown, marked. */
  initialQuery?: string;
}

/** The full-output dialog. */
export function OutputPanel({ title, read, onClose, initialQuery = "" }: OutputPanelProps) {
  useModal();
  const [load, setLoad] = useState<Load>({ kind: "loading", loaded: 0, size: 0 });
  const [query, setQuery] = useState(initialQuery);
  const [current, setCurrent] = useState(0);
  const scrollRef = useRef<HTMLDivElement>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    let live = true;
    readAll(read, (loaded, size) => live && setLoad({ kind: "loading", loaded, size })).then(
      ({ text, size, cut }) => {
        if (!live) return;
        const lines = text.split("\n");
        if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
        setLoad({ kind: "ready", lines, size, cut });
      },
      (err: unknown) => live && setLoad({ kind: "error", message: err instanceof Error ? err.message : String(err) }),
    );
    searchRef.current?.focus();
    return () => {
      live = false;
    };
  }, [read]);
  const lines = load.kind === "ready" ? load.lines : [];
  const matches = useMemo(() => matchingLines(lines, query), [lines, query]);
  const v = useVirtualizer({ count: lines.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_PX, overscan: 20 });
  const go = (i: number) => {
    if (matches.length === 0) return;
    const n = (i + matches.length) % matches.length;
    setCurrent(n);
    v.scrollToIndex(matches[n]!, { align: "center" });
  };
  useEffect(() => {
    setCurrent(0);
    if (matches.length > 0) v.scrollToIndex(matches[0]!, { align: "center" });
  }, [matches, v]);
  const gutter = `${String(lines.length).length + 1}ch`;
  const hit = matches[current];
  return createPortal(
    <div className="modal-backdrop out-panel-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()} onKeyDown={(e) => e.key === "Escape" && onClose()}>
      <div className="modal out-panel" role="dialog" aria-modal="true" aria-label={`Output of ${title}`}>
        <div className="modal-head">
          <h2>{title}</h2>
          <button type="button" className="icon-btn" aria-label="Close" onClick={onClose}>
            ×
          </button>
        </div>
        <div className="out-panel-bar">
          <input
            ref={searchRef}
            type="search"
            aria-label="Search the output"
            placeholder="Search the output"
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            onKeyDown={(e) => e.key === "Enter" && (e.preventDefault(), go(current + (e.shiftKey ? -1 : 1)))}
          />
          <span className="out-panel-count" data-testid="output-matches">
            {query ? (matches.length ? `${current + 1} of ${matches.length}` : "no match") : load.kind === "ready" ? `${lines.length.toLocaleString("en-US")} lines` : ""}
          </span>
        </div>
        {load.kind === "loading" && <p className="muted">Loading… {load.size ? `${Math.round((load.loaded / load.size) * 100)}%` : ""}</p>}
        {load.kind === "error" && (
          <p className="tool-error" role="alert">
            {load.message}
          </p>
        )}
        {load.kind === "ready" && load.cut && <p className="muted">The first {PANEL_MAX_BYTES >> 20} MiB of {(load.size / (1 << 20)).toFixed(1)} MiB are shown.</p>}
        <div ref={scrollRef} className="out-panel-scroll" data-testid="output-panel">
          <div style={{ height: v.getTotalSize(), position: "relative" }}>
            {v.getVirtualItems().map((item) => (
              <div key={item.key} className={`out-panel-line${item.index === hit ? " is-hit" : ""}`} style={{ transform: `translateY(${item.start}px)`, height: ROW_PX }}>
                <span className="out-panel-no" style={{ width: gutter }} aria-hidden="true">
                  {item.index + 1}
                </span>
                <span className="out-panel-text">{marked(lines[item.index]!, query)}</span>
              </div>
            ))}
          </div>
        </div>
      </div>
    </div>,
    document.body,
  );
}
