// The chat header's Export menu: Markdown or JSON through the exportSession
// RPC, saved as a file by the browser.

import { useEffect, useRef, useState } from "react";
import type { AppController } from "./controller";
import type { ExportFormat } from "./hub";

const EXTENSIONS: Record<ExportFormat, string> = { markdown: "md", json: "json" };

/** A file name for an export: the title reduced to [a-z0-9-] (or "session"), then the extension. */
export function exportFileName(title: string, format: ExportFormat): string {
  const slug = title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return `${slug || "session"}.${EXTENSIONS[format]}`;
}

/** Saves text as a downloaded file (an object URL on a temporary link). */
export function downloadText(fileName: string, mediaType: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type: mediaType || "text/plain" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  // Revoke after the click has been handled (the download keeps its own reference).
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** Props of ExportMenu. */
export interface ExportMenuProps {
  ctl: AppController;
  title: string;
  disabled?: boolean;
}

/** The Export button and its menu. */
export function ExportMenu({ ctl, title, disabled = false }: ExportMenuProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const onDown = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setOpen(false);
    };
    document.addEventListener("mousedown", onDown);
    document.addEventListener("keydown", onKey);
    root.current?.querySelector<HTMLButtonElement>('[role="menuitem"]')?.focus();
    return () => {
      document.removeEventListener("mousedown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);
  const run = async (format: ExportFormat) => {
    setOpen(false);
    setBusy(true);
    try {
      const doc = await ctl.exportOpen(format);
      if (doc) downloadText(exportFileName(title, format), doc.media_type, doc.content);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="menu" ref={root}>
      <button
        type="button"
        className="btn btn-xs"
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={disabled || busy}
        onClick={() => setOpen((o) => !o)}
        title="Download the conversation"
      >
        Export
      </button>
      {open && (
        <div className="menu-list" role="menu" aria-label="Export format">
          <button type="button" role="menuitem" onClick={() => void run("markdown")}>
            Markdown (.md)
          </button>
          <button type="button" role="menuitem" onClick={() => void run("json")}>
            JSON (.json)
          </button>
        </div>
      )}
    </div>
  );
}
