// The chat header's instruction files chip: which AGENTS.md / CLAUDE.md
// files the session's turns read and their sizes (a cut one says so).
// Re-read when the session's folder changes and after each turn (an edit to
// a file applies from the next turn).

import { useEffect, useState } from "react";
import { useStore } from "zustand";
import { sessionRecord } from "../state";
import type { AppController } from "./controller";
import type { InstructionFile } from "../transport/hub";
import { revealText } from "../chat/visible";
import { Revealed } from "../chat/Reveal";

/** "1.2 KB" for a byte count. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** The chip and its list; nothing when no file is in effect. */
export function InstructionsChip({ ctl, sessionId }: { ctl: AppController; sessionId: string }) {
  const workspace = useStore(ctl.store, (st) => sessionRecord(st, sessionId)?.workspace_path ?? "");
  const turnsEnded = useStore(ctl.store, (st) => st.chat[sessionId]?.turnsEnded ?? 0);
  const [files, setFiles] = useState<InstructionFile[]>([]);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    let live = true;
    void ctl.instructions(sessionId).then((f) => live && setFiles(f));
    return () => {
      live = false;
    };
  }, [ctl, sessionId, workspace, turnsEnded]);
  if (files.length === 0) return null;
  const total = files.reduce((n, f) => n + f.kept, 0);
  const cut = files.some((f) => f.kept < f.size);
  const name = (p: string) => p.split(/[\\/]/).pop() ?? p;
  return (
    <span className="chat-chips">
      <button type="button" className="chip chip-btn" data-testid="instructions-chip" aria-expanded={open} onClick={() => setOpen(!open)} title="Project instructions the agent reads at each turn">
        {files.length === 1 ? name(files[0]!.path) : `${files.length} instruction files`} · {formatBytes(total)}
        {cut ? " (cut)" : ""}
      </button>
      {open && (
        <div className="chat-options-pop" role="dialog" aria-label="Instruction files" onKeyDown={(e) => e.key === "Escape" && setOpen(false)}>
          <p className="muted session-options-note">Read at the start of each turn, outermost first; the nearest to the folder wins.</p>
          <ul className="instr-list" data-testid="instructions-list">
            {files.map((f) => (
              <li key={f.path}>
                <code title={revealText(f.path, { newlines: "escape" })}>
                  <Revealed text={f.path} newlines="escape" />
                </code>
                <span className="muted">
                  {f.scope === "global" ? "global · " : ""}
                  {formatBytes(f.size)}
                  {f.kept < f.size ? ` — ${formatBytes(f.kept)} kept, the rest cut` : ""}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </span>
  );
}
