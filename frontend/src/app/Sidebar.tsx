// The sessions sidebar: new, search (titles at once, every message through
// the hub's full-text search), rename, delete (with an inline confirm), a
// running indicator per session, a badge counting the calls waiting for
// approval, workers nested under parents. The list is one Tab stop: arrow
// keys move between rows, F2 renames, Delete asks to delete.

import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import { flushSync } from "react-dom";
import { useStore } from "zustand";
import { COMPOSER_ID } from "../chat/Composer";
import { formatCost } from "../chat/MessageView";
import type { Session } from "../protocol";
import { sessionRunning } from "../state";
import type { AppController } from "./controller";
import type { SearchHit } from "../transport/hub";
import { Icon } from "./Icon";

/** Orders sessions newest first with each worker right after its parent. */
export function nestSessions(sessions: Session[]): { session: Session; depth: number }[] {
  const byParent = new Map<string, Session[]>();
  const ids = new Set(sessions.map((s) => s.session_id));
  const roots: Session[] = [];
  for (const s of sessions) {
    if (s.parent_session_id && ids.has(s.parent_session_id)) {
      const l = byParent.get(s.parent_session_id) ?? [];
      l.push(s);
      byParent.set(s.parent_session_id, l);
    } else roots.push(s);
  }
  const out: { session: Session; depth: number }[] = [];
  const walk = (s: Session, depth: number) => {
    out.push({ session: s, depth });
    for (const c of byParent.get(s.session_id) ?? []) walk(c, depth + 1);
  };
  for (const r of roots) walk(r, 0);
  return out;
}

/** Keeps sessions whose title contains the filter (case-insensitive), with their parents' chain intact. */
export function filterSessions(rows: { session: Session; depth: number }[], filter: string): { session: Session; depth: number }[] {
  const f = filter.trim().toLowerCase();
  if (!f) return rows;
  return rows.filter((r) => (r.session.title || "Untitled").toLowerCase().includes(f));
}

/** The words of a search query, lowercased (what the hub matched, to mark in snippets). */
export function queryWords(query: string): string[] {
  return query.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/** A snippet with every occurrence of a word that starts with a query word marked. */
export function highlight(snippet: string, words: string[]): ReactNode[] {
  if (words.length === 0) return [snippet];
  const out: ReactNode[] = [];
  const re = /[\p{L}\p{N}_]+/gu;
  let last = 0;
  for (let m = re.exec(snippet); m; m = re.exec(snippet)) {
    const w = m[0].toLowerCase();
    if (!words.some((q) => w.startsWith(q))) continue;
    if (m.index > last) out.push(snippet.slice(last, m.index));
    out.push(<mark key={m.index}>{m[0]}</mark>);
    last = m.index + m[0].length;
  }
  if (last < snippet.length) out.push(snippet.slice(last));
  return out;
}

/** Full-text search waits this long after the last keystroke. */
export const SEARCH_DEBOUNCE_MS = 250;

/** The hub's hits for query (at least two characters), debounced; null while none were asked for. */
function useMessageSearch(ctl: AppController, query: string): { hits: SearchHit[] | null; pending: boolean } {
  const [state, setState] = useState<{ q: string; hits: SearchHit[] } | null>(null);
  const q = query.trim();
  useEffect(() => {
    if (queryWords(q).join("").length < 2) return undefined;
    let live = true;
    const t = setTimeout(() => {
      void ctl.search(q, 30).then((hits) => live && setState({ q, hits }));
    }, SEARCH_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [ctl, q]);
  if (queryWords(q).join("").length < 2) return { hits: null, pending: false };
  return { hits: state?.q === q ? state.hits : state?.hits ?? null, pending: state?.q !== q };
}

interface RowProps {
  session: Session;
  depth: number;
  selected: boolean;
  running: boolean;
  /** This row's button is the list's Tab stop. */
  tabStop: boolean;
  ctl: AppController;
}

function SessionRow({ session: s, depth, selected, running, tabStop, ctl }: RowProps) {
  const [mode, setMode] = useState<"view" | "rename" | "confirm">("view");
  const [title, setTitle] = useState(s.title);
  const openRef = useRef<HTMLButtonElement>(null);
  const back = () => requestAnimationFrame(() => openRef.current?.focus());
  const submitRename = (e: FormEvent) => {
    e.preventDefault();
    setMode("view");
    if (title.trim() && title.trim() !== s.title) void ctl.rename(s.session_id, title);
    back();
  };
  const onRenameKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.stopPropagation();
      setMode("view");
      setTitle(s.title);
      back();
    }
  };
  const onRowKey = (e: KeyboardEvent) => {
    if (mode !== "view" || e.target !== openRef.current) return;
    if (e.key === "F2") {
      e.preventDefault();
      setTitle(s.title);
      setMode("rename");
    } else if (e.key === "Delete") {
      e.preventDefault();
      setMode("confirm");
    }
  };
  const label = s.title || "Untitled";
  return (
    <li className={`side-row${selected ? " is-selected" : ""}`} data-session-id={s.session_id} data-running={running} style={{ paddingLeft: `${0.5 + depth * 0.9}rem` }} onKeyDown={onRowKey}>
      {mode === "rename" ? (
        <form className="side-rename" onSubmit={submitRename}>
          <input aria-label="Session title" autoFocus value={title} onChange={(e) => setTitle(e.target.value)} onKeyDown={onRenameKey} onBlur={submitRename} />
        </form>
      ) : (
        <button
          ref={openRef}
          type="button"
          className="side-open"
          tabIndex={tabStop ? 0 : -1}
          aria-current={selected ? "true" : undefined}
          aria-keyshortcuts="F2 Delete"
          onClick={() => ctl.open(s.session_id)}
          title={label}
        >
          <span className={running ? "side-dot is-running" : "side-dot"} aria-label={running ? "running" : undefined} />
          <span className="side-title">{depth > 0 ? `↳ ${label}` : label}</span>
          {(s.pending_approvals ?? 0) > 0 && (
            <span className="side-badge" data-testid="approval-badge" title="Tool calls waiting for approval" aria-label={`${s.pending_approvals} waiting for approval`}>
              {s.pending_approvals}
            </span>
          )}
          {s.cost_so_far_usd > 0 && <span className="side-cost">{formatCost(s.cost_so_far_usd)}</span>}
        </button>
      )}
      {mode === "confirm" ? (
        <span className="side-confirm" role="group" aria-label="Confirm delete">
          <button type="button" className="btn btn-danger btn-xs" autoFocus onClick={() => void ctl.remove(s.session_id)}>
            Delete
          </button>
          <button type="button" className="btn btn-xs" onClick={() => (setMode("view"), back())} onKeyDown={(e) => e.key === "Escape" && (setMode("view"), back())}>
            Keep
          </button>
        </span>
      ) : (
        mode === "view" && (
          <span className="side-actions">
            <button type="button" className="icon-btn" tabIndex={-1} aria-label={`Rename ${label}`} title="Rename (F2)" onClick={() => (setTitle(s.title), setMode("rename"))}>
              <Icon name="pencil" size={14} />
            </button>
            <button type="button" className="icon-btn" tabIndex={-1} aria-label={`Delete ${label}`} title="Delete (Del)" onClick={() => setMode("confirm")}>
              <Icon name="trash" size={14} />
            </button>
          </span>
        )
      )}
    </li>
  );
}

/** Moves focus between the list's row buttons with the arrow keys, Home and End. */
function onListKey(e: KeyboardEvent<HTMLUListElement>): void {
  const keys = ["ArrowDown", "ArrowUp", "Home", "End"];
  if (!keys.includes(e.key)) return;
  const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>(".side-open")];
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  if (at === -1) return;
  e.preventDefault();
  const next = e.key === "Home" ? 0 : e.key === "End" ? buttons.length - 1 : Math.min(buttons.length - 1, Math.max(0, at + (e.key === "ArrowDown" ? 1 : -1)));
  buttons.forEach((b, i) => (b.tabIndex = i === next ? 0 : -1));
  buttons[next]?.focus();
}

function MessageHits({ ctl, hits, pending, words, query, onPick }: { ctl: AppController; hits: SearchHit[]; pending: boolean; words: string[]; query: string; onPick: () => void }) {
  const titles = useStore(ctl.store, (st) => st.sessions.records);
  const titleOf = (h: SearchHit) => titles.find((s) => s.session_id === h.session_id)?.title || h.session_title || "Untitled";
  return (
    <section className="side-hits" aria-label="Messages found" aria-busy={pending}>
      <h2 className="side-heading">In messages{pending ? " …" : ""}</h2>
      {hits.length === 0 && !pending && <p className="side-empty">No message matches.</p>}
      <ul className="side-hit-list">
        {hits.map((h) => (
          <li key={`${h.session_id}/${h.message_id}`}>
            <button type="button" className="side-hit" data-testid="search-hit" onClick={() => (onPick(), void ctl.jumpTo(h.session_id, h.message_id, query, h.tool_use_id))}>
              <span className="side-hit-title">{titleOf(h)}</span>
              <span className="side-hit-snippet">{highlight(h.snippet, words)}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Props of Sidebar. */
export interface SidebarProps {
  ctl: AppController;
  onSettings: () => void;
  theme: string;
  onTheme: () => void;
  onHelp: () => void;
  /** Collapses the sidebar. */
  onCollapse: () => void;
  /** The search field (Ctrl+K focuses it). */
  searchRef: RefObject<HTMLInputElement | null>;
  /** Called after the user picked a session or hit (a narrow window closes the overlay). */
  onNavigate?: () => void;
}

/** The sessions sidebar. */
export function Sidebar({ ctl, onSettings, theme, onTheme, onHelp, onCollapse, searchRef, onNavigate }: SidebarProps) {
  const sessions = useStore(ctl.store, (st) => st.sessions.records);
  const loaded = useStore(ctl.store, (st) => st.sessions.loaded);
  const selected = useStore(ctl.store, (st) => st.ui.selectedId);
  const liveRunning = useStore(ctl.store, (st) => (selected ? st.chat[selected]?.turn.running ?? null : null));
  const liveConnected = useStore(ctl.store, (st) => (selected ? st.chat[selected]?.connection === "connected" : false));
  const [filter, setFilter] = useState("");
  const rows = useMemo(() => filterSessions(nestSessions(sessions), filter), [sessions, filter]);
  const { hits, pending } = useMessageSearch(ctl, filter);
  const words = useMemo(() => queryWords(filter), [filter]);
  const stop = rows.some((r) => r.session.session_id === selected) ? selected : rows[0]?.session.session_id;
  const themeIcon = theme === "dark" ? "moon" : theme === "light" ? "sun" : "contrast";
  // The new-session view's composer takes the focus (typing goes there, Enter never makes another session).
  const newSession = () => {
    flushSync(() => {
      ctl.startDraft();
      onNavigate?.();
    });
    document.getElementById(COMPOSER_ID)?.focus();
  };
  return (
    <nav className="sidebar" aria-label="Sessions" id="sidebar">
      <div className="side-top">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">◆</span> Agent Hub
          <button type="button" className="icon-btn side-collapse" aria-label="Hide the sidebar" title="Hide the sidebar (Ctrl+B)" onClick={onCollapse}>
            <Icon name="sidebar" />
          </button>
        </div>
        <button type="button" className="btn btn-primary btn-block btn-icon" onClick={newSession} title="New session (Ctrl+Alt+N)">
          <Icon name="plus" size={15} /> New session
        </button>
        <span className="side-search">
          <Icon name="search" size={14} />
          <input
            ref={searchRef}
            className="side-filter"
            type="search"
            placeholder="Search (Ctrl+K)"
            aria-label="Search sessions and messages"
            aria-keyshortcuts="Control+K"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            onKeyDown={(e) => e.key === "Escape" && filter && (e.preventDefault(), setFilter(""))}
          />
        </span>
      </div>
      <div className="side-scroll">
        {filter && <h2 className="side-heading">Sessions</h2>}
        <ul className="side-list" aria-label="Sessions list" onKeyDown={onListKey} onClick={(e) => (e.target as Element).closest(".side-open") && onNavigate?.()}>
          {rows.map(({ session, depth }) => {
            const isSel = session.session_id === selected;
            const running = isSel && liveConnected && liveRunning !== null ? liveRunning : sessionRunning(session, undefined);
            return <SessionRow key={session.session_id} session={session} depth={depth} selected={isSel} running={running} tabStop={session.session_id === stop} ctl={ctl} />;
          })}
          {loaded && rows.length === 0 && <li className="side-empty">{filter ? "No session title matches." : "No sessions yet."}</li>}
        </ul>
        {hits !== null && <MessageHits ctl={ctl} hits={hits} pending={pending} words={words} query={filter} onPick={() => onNavigate?.()} />}
      </div>
      <div className="side-bottom">
        <button type="button" className="btn btn-ghost btn-icon" onClick={() => (onNavigate?.(), onSettings())}>
          <Icon name="gear" /> Settings
        </button>
        <span>
          <button type="button" className="btn btn-ghost btn-icon" onClick={onTheme} aria-label={`Theme: ${theme}`} title="Switch theme">
            <Icon name={themeIcon} /> <span className="side-theme-label">{theme}</span>
          </button>
          <button type="button" className="btn btn-ghost btn-icon" onClick={() => (onNavigate?.(), onHelp())} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">
            <Icon name="help" />
          </button>
        </span>
      </div>
    </nav>
  );
}
