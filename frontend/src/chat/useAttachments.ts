// The composer's attachments: files pasted, dropped or chosen upload at
// once (at most MAX_ATTACHMENTS a message) and wait, ready or failed, for
// the next message.

import { useState, type ClipboardEvent, type DragEvent } from "react";
import type { AttachmentInfo } from "../protocol";
import { MAX_ATTACHMENTS, type PendingAttachment } from "./Attachments";

let pendingSeq = 0;

/** What the composer does with attachments; upload absent means none are taken. */
export function useAttachments(upload: ((file: File) => Promise<AttachmentInfo>) | undefined) {
  const [pending, setPending] = useState<PendingAttachment[]>([]);
  const [dragging, setDragging] = useState(false);
  const attach = (files: File[]) => {
    if (!upload || files.length === 0) return;
    const room = MAX_ATTACHMENTS - pending.filter((p) => p.error === null).length;
    const items = files.map((f, i): PendingAttachment => ({
      key: `att-${++pendingSeq}`,
      name: f.name || "pasted image",
      info: null,
      error: i < room ? null : `${f.name || "pasted image"}: a message carries at most ${MAX_ATTACHMENTS} attachments`,
    }));
    setPending((cur) => [...cur, ...items]);
    items.forEach((item, i) => {
      if (item.error) return;
      upload(files[i]!).then(
        (info) => setPending((cur) => cur.map((p) => (p.key === item.key ? { ...p, info } : p))),
        (err: unknown) => setPending((cur) => cur.map((p) => (p.key === item.key ? { ...p, error: err instanceof Error ? err.message : String(err) } : p))),
      );
    });
  };
  /** Takes the files of a paste or a drop (and keeps them out of the text). */
  const take = (e: { preventDefault(): void }, list: FileList | null | undefined) => {
    const files = Array.from(list ?? []);
    if (!upload || files.length === 0) return;
    e.preventDefault();
    attach(files);
  };
  const dropProps = upload
    ? {
        onDragOver: (e: DragEvent<HTMLDivElement>) => {
          if (Array.from(e.dataTransfer?.types ?? []).includes("Files")) {
            e.preventDefault();
            setDragging(true);
          }
        },
        onDragLeave: () => setDragging(false),
        onDrop: (e: DragEvent<HTMLDivElement>) => {
          setDragging(false);
          take(e, e.dataTransfer?.files);
        },
      }
    : {};
  return {
    pending,
    setPending,
    dragging,
    dropProps,
    attach,
    onPaste: (e: ClipboardEvent<HTMLTextAreaElement>) => take(e, e.clipboardData?.files),
    remove: (key: string) => setPending((cur) => cur.filter((p) => p.key !== key)),
    /** The uploaded attachments that go with the next message. */
    ready: pending.filter((p) => p.info !== null && p.error === null),
    uploading: pending.some((p) => p.info === null && p.error === null),
  };
}
