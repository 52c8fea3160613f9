// Attachments: files attached to a user message (an @-mentioned or uploaded
// text file as a chip, an image as a thumbnail that opens full size), and
// the composer's pending uploads (thumbnails/chips while they upload, with
// a clear error when the hub refuses one).

import { useEffect, useRef, useState } from "react";
import type { AttachmentInfo, ImageSource } from "../protocol";
import { useModal } from "./modals";
import { useResourceUrl } from "./resources";
import { revealText } from "./visible";
import { Revealed } from "./Reveal";

/** The start of a user message's file block (app/mention): a mentioned file, or an uploaded one. */
export const FILE_BLOCK_PREFIX = "<file path=";
const UPLOAD_BLOCK_PREFIX = "<file name=";

/** Whether a text block is an attached file. */
export function isFileBlock(text: string): boolean {
  return text.startsWith(FILE_BLOCK_PREFIX) || text.startsWith(UPLOAD_BLOCK_PREFIX);
}

/** The path (or upload name) and size of a file block ("<file path=\"a.txt\" bytes=\"12\">…"), null when it is not one. */
export function fileBlockInfo(text: string): { path: string; bytes: number; cut: boolean; uploaded: boolean } | null {
  const m = /^<file (path|name)=("(?:[^"\\]|\\.)*") bytes="(\d+)"( cut="true")?>/.exec(text);
  if (!m) return null;
  let path: string;
  try {
    path = JSON.parse(m[2]!) as string;
  } catch {
    return null;
  }
  return { path, bytes: Number(m[3]), cut: m[4] !== undefined || /\n\[… \d+ of its \d+ bytes were cut/.test(text), uploaded: m[1] === "name" };
}

/** "312 B", "4.2 KB", "1.3 MB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** Where the page reads an attachment: the dashboard's GET /attachments/{id}, or the window's asset server. */
export function attachmentUrl(id: string): string {
  return `/attachments/${encodeURIComponent(id)}`;
}

/** The src of an image block: the stored attachment's path, or the inline data. */
export function imageSrc(s: ImageSource): string {
  return s.type === "attachment" && s.attachment ? attachmentUrl(s.attachment) : `data:${s.media_type};base64,${s.data}`;
}

/** The src an <img> of an image block loads (a stored attachment in the browser: a signed URL, useResourceUrl). */
function useImageSrc(s: ImageSource): { src: string | undefined; onError: () => void } {
  const stored = s.type === "attachment" && s.attachment ? attachmentUrl(s.attachment) : null;
  const r = useResourceUrl(stored);
  return stored === null ? { src: imageSrc(s), onError: r.onError } : r;
}

/** The thumbnail of an uploaded image in the composer. */
function PendingThumb({ id }: { id: string }) {
  const { src, onError } = useResourceUrl(attachmentUrl(id));
  return <img className="composer-thumb" alt="" src={src} onError={onError} />;
}

function PaperclipIcon() {
  return (
    <svg className="icon" width={13} height={13} viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.8} strokeLinecap="round" aria-hidden="true">
      <path d="M20 11.5l-8.5 8.5a5 5 0 0 1-7-7L13 4.5a3.5 3.5 0 0 1 5 5l-8.5 8.5a2 2 0 0 1-3-3L14 7.5" />
    </svg>
  );
}

/** An attached file under a user message: its path and size; the content stays with the model. */
export function FileChip({ text }: { text: string }) {
  const info = fileBlockInfo(text);
  if (!info) return <p className="msg-user-text">{text}</p>;
  const shown = revealText(info.path, { newlines: "escape" });
  const what = info.uploaded ? `${shown} was attached` : `${shown} was attached with its content${info.cut ? " (cut at 64 KB)" : ""}`;
  return (
    <span className="msg-file" data-testid="attached-file" title={what}>
      <PaperclipIcon /> <Revealed text={info.path} newlines="escape" /> · {formatBytes(info.bytes)}
      {info.cut ? " (cut)" : ""}
    </span>
  );
}

/** An attached image: a thumbnail; clicking it shows the image full size (Esc or a click closes it). */
export function AttachedImage({ source }: { source: ImageSource }) {
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) d.showModal?.();
    if (!open && d.open) d.close?.();
  }, [open]);
  const name = source.name ?? "image";
  useModal(open);
  const size = source.width && source.height ? `${source.width}×${source.height}` : "";
  const { src, onError } = useImageSrc(source);
  return (
    <>
      <button type="button" className="msg-image-btn" data-testid="attached-image" aria-label={`Show ${name} full size`} title={[name, size].filter(Boolean).join(" · ")} onClick={() => setOpen(true)}>
        <img
          className="msg-image"
          alt={name}
          src={src}
          onError={onError}
          loading="lazy"
          onLoad={(e) => e.currentTarget.setAttribute("data-loaded", "true")}
          {...(source.width && source.height ? { width: source.width, height: source.height } : {})}
        />
      </button>
      {open && (
        <dialog ref={dialog} className="image-viewer" aria-label={name} onClose={() => setOpen(false)} onClick={() => setOpen(false)}>
          <img alt={name} src={src} onError={onError} />
          <p className="image-viewer-caption">{[name, size, source.bytes ? formatBytes(source.bytes) : ""].filter(Boolean).join(" · ")}</p>
        </dialog>
      )}
    </>
  );
}

/** A file in the composer: uploading, stored (info), or refused (error). */
export interface PendingAttachment {
  key: string;
  name: string;
  info: AttachmentInfo | null;
  error: string | null;
}

/** The most attachments one message carries (app/hub MaxAttachments). */
export const MAX_ATTACHMENTS = 10;

/** The composer's pending attachments, each removable. */
export function PendingAttachments({ items, onRemove }: { items: PendingAttachment[]; onRemove: (key: string) => void }) {
  if (items.length === 0) return null;
  return (
    <ul className="composer-attachments" aria-label="Attachments">
      {items.map((p) => (
        <li
          key={p.key}
          className={`composer-attachment${p.error ? " is-error" : ""}`}
          data-testid="pending-attachment"
          data-state={p.error ? "error" : p.info ? "ready" : "uploading"}
          role={p.error ? "alert" : undefined}
        >
          {p.info?.kind === "image" ? <PendingThumb id={p.info.id} /> : <PaperclipIcon />}
          <span className="composer-attachment-text">
            {p.error ?? (p.info ? `${p.name} · ${formatBytes(p.info.bytes)}${p.info.resized ? ` · resized to ${p.info.width}×${p.info.height}` : ""}` : `Uploading ${p.name}…`)}
          </span>
          <button type="button" className="icon-btn" aria-label={p.error ? `Dismiss: ${p.name}` : `Remove ${p.name}`} onClick={() => onRemove(p.key)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
