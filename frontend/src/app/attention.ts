// While tool calls wait for approval, or after a turn ended while the page
// was in the background, the user should notice even when looking
// elsewhere: the title says so ("(2) waiting for approval — Agent Hub",
// "✓ Turn finished — Agent Hub" until the page is visible again), and —
// when the user turned notifications on in Settings — a desktop
// notification (the web Notification API; never an error when unavailable).

import { useEffect, useRef, useState } from "react";
import { useStore } from "zustand";
import { sessionRecord, waitingTotal } from "../state";
import type { AppController } from "./controller";

/** The title while waiting calls exist. */
export function approvalTitle(base: string, waiting: number): string {
  return waiting > 0 ? `(${waiting}) waiting for approval — ${base}` : base;
}

/** What is used of the Notification API (the global, or a test's double). */
export interface NotificationApi {
  readonly permission: NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
  new (title: string, options?: NotificationOptions): { onclick: ((this: never, ev: Event) => unknown) | null };
}

/** The Notification API of this page, if it has one. */
export function pageNotifications(): NotificationApi | undefined {
  return typeof Notification === "function" ? Notification : undefined;
}

/**
 * Shows "N tool calls waiting for approval" as a desktop notification if the
 * page is hidden and notifications are allowed (asking once while the
 * permission is undecided). Resolves whether one was shown; never rejects.
 */
export async function notifyWaiting(waiting: number, doc: Document, api: NotificationApi | undefined): Promise<boolean> {
  if (!api || !doc.hidden || waiting <= 0) return false;
  try {
    const permission = api.permission === "default" ? await api.requestPermission() : api.permission;
    if (permission !== "granted") return false;
    const n = new api("Agent Hub", { body: `${waiting === 1 ? "A tool call is" : `${waiting} tool calls are`} waiting for approval`, tag: "agenthub-approval" });
    n.onclick = () => doc.defaultView?.focus();
    return true;
  } catch {
    return false;
  }
}

/** The localStorage key of the notifications opt-in ("on" when the user turned them on). */
export const NOTIFY_KEY = "agenthub.notifications";

/** Whether the user turned desktop notifications on (Settings). */
export function notificationsEnabled(storage: Pick<Storage, "getItem"> = localStorage): boolean {
  try {
    return storage.getItem(NOTIFY_KEY) === "on";
  } catch {
    return false;
  }
}

/** The title with the badges: finished turns first, then waiting approvals. */
/** The window's own title: the open session's title, a busy mark while its turn runs, then the app's name. */
export function sessionWindowTitle(app: string, session: string | null, running: boolean): string {
  if (!session) return app;
  return `${running ? "● " : ""}${session} — ${app}`;
}

export function attentionTitle(base: string, waiting: number, finished: number): string {
  const done = finished === 0 ? "" : finished === 1 ? "✓ Turn finished — " : `✓ ${finished} turns finished — `;
  return done + approvalTitle(base, waiting);
}

/** Shows body as a desktop notification if the page is hidden and notifications are granted; never rejects. */
export async function notifyHidden(body: string, tag: string, doc: Document, api: NotificationApi | undefined): Promise<boolean> {
  if (!api || !doc.hidden || api.permission !== "granted") return false;
  try {
    const n = new api("Agent Hub", { body, tag });
    n.onclick = () => doc.defaultView?.focus();
    return true;
  } catch {
    return false;
  }
}

/**
 * Counts the open session's turns that ended while the page was hidden
 * (reset when it is shown again), notifying for each when opted in.
 */
function useFinishedWhileHidden(ctl: AppController): number {
  const [finished, setFinished] = useState(0);
  useEffect(() => {
    let seen: { id: string | null; ended: number } = { id: null, ended: 0 };
    const unsubscribe = ctl.store.subscribe((st) => {
      const id = st.ui.selectedId;
      const ended = id ? st.chat[id]?.turnsEnded ?? 0 : 0;
      const more = id === seen.id && ended > seen.ended;
      seen = { id, ended };
      if (more && document.hidden) {
        setFinished((n) => n + 1);
        if (notificationsEnabled()) {
          const title = st.sessions.records.find((s) => s.session_id === id)?.title ?? "A session";
          void notifyHidden(`${title}: the turn finished`, "agenthub-turn", document, pageNotifications());
        }
      }
    });
    const onVisible = () => !document.hidden && setFinished(0);
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      unsubscribe();
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [ctl]);
  return finished;
}

/**
 * Keeps the title (document, and the native window's through setWindowTitle)
 * on the number of calls waiting in every session and the turns finished
 * while the page was hidden; notifies (when opted in) when the waiting
 * number grows while the page is hidden.
 */
export function useAttention(ctl: AppController, setWindowTitle?: (title: string) => void): void {
  const waiting = useStore(ctl.store, (st) => waitingTotal(st.sessions.records));
  const finished = useFinishedWhileHidden(ctl);
  const session = useStore(ctl.store, (st) => (st.ui.selectedId ? (sessionRecord(st, st.ui.selectedId)?.title ?? null) : null));
  const running = useStore(ctl.store, (st) => (st.ui.selectedId ? (st.chat[st.ui.selectedId]?.turn.running ?? false) : false));
  const base = useRef(document.title);
  const before = useRef(0);
  useEffect(() => {
    const title = attentionTitle(sessionWindowTitle(base.current, session, running), waiting, finished);
    if (document.title !== title) {
      document.title = title;
      setWindowTitle?.(title);
    }
    if (waiting > before.current && notificationsEnabled()) void notifyWaiting(waiting, document, pageNotifications());
    before.current = waiting;
  }, [waiting, finished, session, running, setWindowTitle]);
  useEffect(() => {
    const original = base.current;
    return () => {
      document.title = original;
    };
  }, []);
}
