// The session list slice: records from list answers (the poll, and reads
// after user actions) merged with records that arrive as events of the
// streamed sessions (snapshot, session.created/updated, turn start and end,
// compaction) — so titles, totals and the running state show at once. Pure
// functions of (SessionList, input).

import { isKnownEvent, type KnownEvent, type ServerFrame, type Session } from "../protocol";
import type { SessionList } from "./types";

/** The empty list (nothing loaded yet). */
export function emptySessionList(): SessionList {
  return { records: [], loaded: false, version: 0, changedAt: {}, lastRequest: 0, placeholders: {} };
}

/** Sessions newest first (by created_at). */
export function sortSessions(list: Session[]): Session[] {
  return [...list].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
}

/** list with id's record replaced, added (rec set, not listed) or removed (rec null); the same array when nothing changes. */
function upsert(list: Session[], id: string, rec: Session | null): Session[] {
  const i = list.findIndex((s) => s.session_id === id);
  if (rec === null) return i < 0 ? list : list.filter((s) => s.session_id !== id);
  if (i >= 0) {
    if (list[i] === rec) return list;
    const next = list.slice();
    next[i] = rec;
    return next;
  }
  return sortSessions([...list, rec]);
}

/** l with id's record set by an event (null: deleted), remembered as newer than list answers asked before now. */
function changed(l: SessionList, id: string, rec: Session | null): SessionList {
  const records = upsert(l.records, id, rec);
  if (records === l.records) return l;
  const version = l.version + 1;
  return { ...l, records, version, changedAt: { ...l.changedAt, [id]: version } };
}

/** Applies a list answer: it replaces the list, except records events changed after it was asked for; placeholders stay until listed. */
export function applyListAnswer(l: SessionList, answer: Session[], request: number, askedAt: number): SessionList {
  if (request < l.lastRequest) return { ...l, loaded: true }; // an older request answered late
  const newer = new Set(Object.keys(l.changedAt).filter((id) => l.changedAt[id]! > askedAt));
  let records = answer.filter((s) => !newer.has(s.session_id));
  for (const s of l.records) if (newer.has(s.session_id)) records.push(s);
  const placeholders: Record<string, Session> = {};
  for (const [id, rec] of Object.entries(l.placeholders)) {
    if (records.some((s) => s.session_id === id)) continue;
    placeholders[id] = rec;
    records.push(rec);
  }
  records = sortSessions(records);
  const changedAt: Record<string, number> = {};
  for (const id of newer) changedAt[id] = l.changedAt[id]!;
  return { ...l, records, loaded: true, changedAt, lastRequest: request, placeholders };
}

/** A session record for a worker known only from its delegate.started event. */
export function workerPlaceholder(id: string, parentId: string, task: string, ts: string, depth: number, parent?: Session): Session {
  const line = task.split("\n")[0]!.trim();
  return {
    session_id: id,
    title: line.length > 80 ? `${line.slice(0, 79)}…` : line || "Worker",
    workspace_path: parent?.workspace_path ?? "",
    active_model: parent?.active_model ?? "",
    parent_session_id: parentId,
    created_at: ts,
    turn_count: 0,
    cost_so_far_usd: 0,
    usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 },
    context_start_offset: 0,
    depth,
  };
}

function record(l: SessionList, id: string): Session | undefined {
  return l.records.find((s) => s.session_id === id);
}

/** What an event the chat slice applied says about the records. */
function applyEvent(l: SessionList, e: KnownEvent): SessionList {
  switch (e.type) {
    case "session.created":
    case "session.updated":
      return changed(l, e.payload.session.session_id, e.payload.deleted === true ? null : e.payload.session);
    case "turn.started": {
      // The hub commits this change with the event, not as a session.updated.
      const rec = record(l, e.session_id);
      return rec && e.turn_id && rec.current_turn_id !== e.turn_id ? changed(l, rec.session_id, { ...rec, current_turn_id: e.turn_id }) : l;
    }
    case "turn.completed":
    case "turn.cancelled": {
      const rec = record(l, e.session_id);
      if (!rec?.current_turn_id || (e.turn_id !== null && rec.current_turn_id !== e.turn_id)) return l;
      const { current_turn_id: _ended, ...rest } = rec;
      return changed(l, rec.session_id, rest);
    }
    case "todo.updated": {
      // The hub commits the list with the event, not as a session.updated.
      const rec = record(l, e.session_id);
      return rec ? changed(l, rec.session_id, { ...rec, todos: e.payload.todos, todos_by: e.payload.by }) : l;
    }
    case "compaction.completed": {
      const rec = record(l, e.session_id);
      return rec ? changed(l, rec.session_id, { ...rec, context_start_offset: e.payload.context_start_offset }) : l;
    }
    case "delegate.started": {
      const wid = e.payload.worker_session_id;
      if (!wid || l.placeholders[wid] || record(l, wid)) return l;
      const rec = workerPlaceholder(wid, e.session_id, e.payload.task, e.ts, e.payload.depth, record(l, e.session_id));
      return { ...l, records: upsert(l.records, wid, rec), placeholders: { ...l.placeholders, [wid]: rec } };
    }
    default:
      return l;
  }
}

/** Applies a stream frame the chat slice accepted (not a duplicate): a snapshot's record, or an event's effect on records. */
export function applyStreamFrame(l: SessionList, f: ServerFrame): SessionList {
  if (f.type === "snapshot") return changed(l, f.session.session_id, f.session);
  if (f.type === "event" && isKnownEvent(f.event)) return applyEvent(l, f.event);
  return l;
}

/** The newest session without a parent (workers open from their delegation card). */
export function newestTopLevel(sessions: Session[]): Session | undefined {
  return sessions.filter((s) => !s.parent_session_id).sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0];
}
