// The chat header's Export menu: Markdown or JSON through the exportSession
// RPC. In the browser it is saved as a downloaded file; in the desktop window
// (WebKitGTK may ignore an <a download> of a blob) it is shown in a dialog
// with Copy, plus Save… where the File System Access API exists.

import { useEffect, useRef, useState } from "react";
import { inWails } from "../transport/backend";
import type { AppController } from "./controller";
import type { ExportFormat, ExportResult } from "../transport/hub";
import { useModal } from "../chat/modals";

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

/** How an export reaches the user: a file download, or a dialog showing it (the desktop window). */
export type ExportDelivery = "download" | "dialog";

/** The delivery for a window: "dialog" inside the Wails window, "download" in a browser. */
export function exportDelivery(win: unknown): ExportDelivery {
  return inWails(win) ? "dialog" : "download";
}

/** The File System Access save picker, where the engine has one (Chromium; not WebKitGTK). */
type SavePicker = (opts: { suggestedName: string }) => Promise<{ createWritable(): Promise<{ write(data: string): Promise<void>; close(): Promise<void> }> }>;

function savePicker(): SavePicker | undefined {
  const f = (globalThis as { showSaveFilePicker?: unknown }).showSaveFilePicker;
  return typeof f === "function" ? (f as SavePicker).bind(globalThis) : undefined;
}

/** Props of ExportDialog. */
export interface ExportDialogProps {
  fileName: string;
  doc: ExportResult;
  onClose: () => void;
  /** Clipboard for Copy (defaults to navigator.clipboard). */
  clipboard?: Pick<Clipboard, "writeText"> | undefined;
}

/** Shows an export's text with Copy (and Save… when a save picker exists). */
export function ExportDialog({ fileName, doc, onClose, clipboard = globalThis.navigator?.clipboard }: ExportDialogProps) {
  useModal();
  const [status, setStatus] = useState("");
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = savePicker();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [onClose]);
  const copy = async () => {
    try {
      if (!clipboard) throw new Error("no clipboard");
      await clipboard.writeText(doc.content);
      setStatus("Copied to the clipboard.");
    } catch {
      // Clipboard refused: select the text so Ctrl+C works.
      area.current?.select();
      setStatus("Copy failed: the text is selected, press Ctrl+C.");
    }
  };
  const save = async () => {
    try {
      const handle = await picker!({ suggestedName: fileName });
      const w = await handle.createWritable();
      await w.write(doc.content);
      await w.close();
      setStatus(`Saved ${fileName}.`);
    } catch (err) {
      if ((err as { name?: string })?.name !== "AbortError") setStatus(`Could not save: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="modal export-dialog" role="dialog" aria-modal="true" aria-labelledby="export-title">
        <header className="modal-head">
          <h2 id="export-title">Export · {fileName}</h2>
          <button type="button" className="icon-btn" aria-label="Close export" onClick={onClose}>
            ×
          </button>
        </header>
        <textarea ref={area} className="export-text" readOnly value={doc.content} aria-label="Exported conversation" spellCheck={false} />
        <div className="settings-actions">
          <span className="muted" role="status">
            {status}
          </span>
          {picker && (
            <button type="button" className="btn" onClick={() => void save()}>
              Save…
            </button>
          )}
          <button type="button" className="btn btn-primary" onClick={() => void copy()}>
            Copy
          </button>
        </div>
      </div>
    </div>
  );
}

/** Props of ExportMenu. */
export interface ExportMenuProps {
  ctl: AppController;
  title: string;
  disabled?: boolean;
  /** Defaults to exportDelivery(window). */
  delivery?: ExportDelivery;
}

/** The Export button and its menu. */
export function ExportMenu({ ctl, title, disabled = false, delivery = exportDelivery(globalThis.window) }: ExportMenuProps) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [shown, setShown] = useState<{ fileName: string; doc: ExportResult } | null>(null);
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
      if (!doc) return;
      const fileName = exportFileName(title, format);
      if (delivery === "dialog") setShown({ fileName, doc });
      else downloadText(fileName, doc.media_type, doc.content);
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
        title={delivery === "dialog" ? "Show the conversation as Markdown or JSON" : "Download the conversation"}
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
      {shown && <ExportDialog fileName={shown.fileName} doc={shown.doc} onClose={() => setShown(null)} />}
    </div>
  );
}
