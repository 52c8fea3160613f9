// While tool calls wait for approval, the user should notice even when
// looking elsewhere: the title says how many ("(2) waiting for approval —
// Agent Hub"), and when the number grows while the page is hidden a desktop
// notification says so (the web Notification API, only when notifications
// are granted or may still be asked for; never an error when unavailable).

import { useEffect, useRef } from "react";
import { useStore } from "zustand";
import { waitingTotal } from "../state";
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

/**
 * Keeps the title (document, and the native window's through setWindowTitle)
 * on the number of calls waiting in every session, and notifies when it
 * grows while the page is hidden.
 */
export function useApprovalAttention(ctl: AppController, setWindowTitle?: (title: string) => void): void {
  const waiting = useStore(ctl.store, (st) => waitingTotal(st.sessions.records));
  const base = useRef(document.title);
  const before = useRef(0);
  useEffect(() => {
    const title = approvalTitle(base.current, waiting);
    if (document.title !== title) {
      document.title = title;
      setWindowTitle?.(title);
    }
    if (waiting > before.current) void notifyWaiting(waiting, document, pageNotifications());
    before.current = waiting;
  }, [waiting, setWindowTitle]);
  useEffect(() => {
    const original = base.current;
    return () => {
      document.title = original;
    };
  }, []);
}
