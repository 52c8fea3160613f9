// The sessions sidebar: new, filter by title, rename, delete (with an inline
// confirm), a running indicator per session, a badge counting the calls
// waiting for approval, workers nested under parents.

import { useMemo, useState, type FormEvent, type KeyboardEvent } from "react";
import { useStore } from "zustand";
import { formatCost } from "../chat/MessageView";
import type { Session } from "../protocol";
import { sessionRunning } from "../state";
import type { AppController } from "./controller";

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

interface RowProps {
  session: Session;
  depth: number;
  selected: boolean;
  running: boolean;
  ctl: AppController;
}

function SessionRow({ session: s, depth, selected, running, ctl }: RowProps) {
  const [mode, setMode] = useState<"view" | "rename" | "confirm">("view");
  const [title, setTitle] = useState(s.title);
  const submitRename = (e: FormEvent) => {
    e.preventDefault();
    setMode("view");
    if (title.trim() && title.trim() !== s.title) void ctl.rename(s.session_id, title);
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      setMode("view");
      setTitle(s.title);
    }
  };
  const label = s.title || "Untitled";
  return (
    <li className={`side-row${selected ? " is-selected" : ""}`} data-session-id={s.session_id} data-running={running} style={{ paddingLeft: `${0.5 + depth * 0.9}rem` }}>
      {mode === "rename" ? (
        <form className="side-rename" onSubmit={submitRename}>
          <input aria-label="Session title" autoFocus value={title} onChange={(e) => setTitle(e.target.value)} onKeyDown={onKey} onBlur={submitRename} />
        </form>
      ) : (
        <button type="button" className="side-open" aria-current={selected ? "true" : undefined} onClick={() => ctl.open(s.session_id)} title={label}>
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
          <button type="button" className="btn btn-danger btn-xs" onClick={() => void ctl.remove(s.session_id)}>
            Delete
          </button>
          <button type="button" className="btn btn-xs" onClick={() => setMode("view")}>
            Keep
          </button>
        </span>
      ) : (
        mode === "view" && (
          <span className="side-actions">
            <button type="button" className="icon-btn" aria-label={`Rename ${label}`} title="Rename" onClick={() => (setTitle(s.title), setMode("rename"))}>
              ✎
            </button>
            <button type="button" className="icon-btn" aria-label={`Delete ${label}`} title="Delete" onClick={() => setMode("confirm")}>
              🗑
            </button>
          </span>
        )
      )}
    </li>
  );
}

/** Props of Sidebar. */
export interface SidebarProps {
  ctl: AppController;
  onSettings: () => void;
  theme: string;
  onTheme: () => void;
}

/** The sessions sidebar. */
export function Sidebar({ ctl, onSettings, theme, onTheme }: SidebarProps) {
  const sessions = useStore(ctl.store, (st) => st.sessions.records);
  const loaded = useStore(ctl.store, (st) => st.sessions.loaded);
  const selected = useStore(ctl.store, (st) => st.ui.selectedId);
  const liveRunning = useStore(ctl.store, (st) => (selected ? st.chat[selected]?.turn.running ?? null : null));
  const liveConnected = useStore(ctl.store, (st) => (selected ? st.chat[selected]?.connection === "connected" : false));
  const [filter, setFilter] = useState("");
  const rows = useMemo(() => filterSessions(nestSessions(sessions), filter), [sessions, filter]);
  return (
    <nav className="sidebar" aria-label="Sessions">
      <div className="side-top">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">◆</span> Agent Hub
        </div>
        <button type="button" className="btn btn-primary btn-block" onClick={() => void ctl.newSession()}>
          + New session
        </button>
        <input className="side-filter" type="search" placeholder="Filter sessions" aria-label="Filter sessions" value={filter} onChange={(e) => setFilter(e.target.value)} />
      </div>
      <ul className="side-list">
        {rows.map(({ session, depth }) => {
          const isSel = session.session_id === selected;
          const running = isSel && liveConnected && liveRunning !== null ? liveRunning : sessionRunning(session, undefined);
          return <SessionRow key={session.session_id} session={session} depth={depth} selected={isSel} running={running} ctl={ctl} />;
        })}
        {loaded && rows.length === 0 && <li className="side-empty">{filter ? "No session matches." : "No sessions yet."}</li>}
      </ul>
      <div className="side-bottom">
        <button type="button" className="btn btn-ghost" onClick={onSettings}>
          ⚙ Settings
        </button>
        <button type="button" className="btn btn-ghost" onClick={onTheme} aria-label={`Theme: ${theme}`} title="Switch theme">
          {theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"} {theme}
        </button>
      </div>
    </nav>
  );
}
