// The workspace's behaviours that are not its layout: the keyboard
// shortcuts, the native menu's page actions, the quit confirmation, links
// opened outside the page, the session in the address, and files dropped
// outside the composer. Each is a hook the Workspace (App.tsx) calls.

import { useCallback, useEffect, useRef, useState, type RefObject } from "react";
import { flushSync } from "react-dom";
import type { Backend } from "../transport/backend";
import { COMPOSER_ID } from "../chat";
import type { AppController } from "./controller";
import { installLinkHandler } from "./links";
import type { QuitChoice } from "./QuitDialog";
import { shortcutFor } from "./shortcuts";
import { applyZoom, loadZoom, nextZoom } from "./zoom";

/** The session id in location.hash ("#/s/ID"), or null. */
export function sessionFromHash(hash: string): string | null {
  const m = /^#\/s\/([^/?#]+)$/.exec(hash);
  return m ? decodeURIComponent(m[1]!) : null;
}

/** A native menu action for the page, numbered so the same action twice is two actions. */
export interface MenuRequest {
  action: string;
  seq: number;
}

/** What the shortcuts and the menu change in the workspace. */
export interface WorkspacePanels {
  narrow: boolean;
  sidebarOpen: boolean;
  setSidebarOpen: (open: boolean) => void;
  setSettings: (open: boolean) => void;
  setHelp: (open: boolean) => void;
  searchRef: RefObject<HTMLInputElement | null>;
}

/** The page's keyboard shortcuts (shortcuts.ts). */
export function useShortcuts(ctl: AppController, p: WorkspacePanels): void {
  const { narrow, sidebarOpen, setSidebarOpen, setHelp, searchRef } = p;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const action = shortcutFor(e, document.activeElement);
      if (!action) return;
      e.preventDefault();
      switch (action) {
        case "new-session":
          flushSync(() => {
            ctl.startDraft();
            if (narrow) setSidebarOpen(false);
          });
          document.getElementById(COMPOSER_ID)?.focus();
          break;
        case "search":
          // Focus at once (the next keys are the query), the old query selected (typing replaces it).
          flushSync(() => setSidebarOpen(true));
          searchRef.current?.focus();
          searchRef.current?.select();
          break;
        case "focus-composer":
          document.getElementById(COMPOSER_ID)?.focus();
          break;
        case "stop":
          void ctl.cancel();
          break;
        case "toggle-sidebar":
          setSidebarOpen(!sidebarOpen);
          break;
        case "help":
          setHelp(true);
          break;
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [ctl, narrow, sidebarOpen, setSidebarOpen, setHelp, searchRef]);
}

/** The native menu's page actions (the window), and the page's zoom they change. */
export function useMenuActions(ctl: AppController, menuAction: MenuRequest | null, p: WorkspacePanels): void {
  const { sidebarOpen, setSidebarOpen, setSettings, setHelp } = p;
  const [zoom, setZoom] = useState(loadZoom);
  useEffect(() => applyZoom(zoom), [zoom]);
  // Each request runs once: a new seq is a new action (the other values
  // are read as they are when it arrives).
  const handled = useRef(0);
  useEffect(() => {
    if (!menuAction || menuAction.seq === handled.current) return;
    handled.current = menuAction.seq;
    const action = menuAction.action;
    switch (action) {
      case "new-session":
        ctl.startDraft();
        break;
      case "settings":
        setSettings(true);
        break;
      case "toggle-sidebar":
        setSidebarOpen(!sidebarOpen);
        break;
      case "shortcuts":
      case "about":
        setHelp(true);
        break;
      case "zoom-in":
      case "zoom-out":
      case "zoom-reset":
        setZoom((z) => nextZoom(z, action));
        break;
    }
  }, [menuAction, ctl, sidebarOpen, setSidebarOpen, setSettings, setHelp]);
}

/** Closing the window while turns run asks first (the window only): the running count to ask about, and the answer. */
export function useQuitQuestion(backend: Backend, ctl: AppController): [number | null, (choice: QuitChoice) => void] {
  const [quitAsk, setQuitAsk] = useState<number | null>(null);
  useEffect(() => backend.onQuitRequest?.((n) => setQuitAsk(n)), [backend]);
  const answerQuit = useCallback(
    (choice: QuitChoice) => {
      setQuitAsk(null);
      backend.answerQuit?.(choice).catch((err: unknown) => ctl.notify(`Could not quit: ${err instanceof Error ? err.message : String(err)}`));
    },
    [backend, ctl],
  );
  return [quitAsk, answerQuit];
}

/** Links open outside the page (the window), the session in the address opens, and a file dropped outside the composer never navigates the page to it. */
export function usePageWiring(backend: Backend, ctl: AppController): void {
  useEffect(() => {
    const stray = (e: DragEvent) => e.dataTransfer?.types.includes("Files") && e.preventDefault();
    window.addEventListener("dragover", stray);
    window.addEventListener("drop", stray);
    return () => {
      window.removeEventListener("dragover", stray);
      window.removeEventListener("drop", stray);
    };
  }, []);
  useEffect(() => {
    const open = backend.openLink?.bind(backend);
    if (!open) return undefined;
    return installLinkHandler(document, open, (text) => ctl.notify(text));
  }, [backend, ctl]);
  useEffect(() => {
    const onHash = () => {
      const id = sessionFromHash(window.location.hash);
      if (id) ctl.open(id);
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  }, [ctl]);
}
