// A present_plan call: the plan (Markdown) the model wrote in plan mode,
// with "Build it" (in the mode chosen: the session leaves plan mode and a
// turn of the same session builds it), "Keep planning" (back to the
// composer, to say what to change) and Edit (the plan as text, built as
// edited). Only the session's current proposed plan has the buttons; a
// built one says in which mode, an older one that a newer plan replaced.

import { useState } from "react";
import { useStore } from "zustand";
import { BUILD_MODES, type ApprovalMode } from "../../protocol";
import { sessionRecord, type ToolCardState } from "../../state";
import { MarkdownView } from "../Markdown";
import { useChatSession } from "../session";

const MODE_LABEL: Record<string, string> = { ask: "Ask", "auto-edits": "Auto edits", "auto-all": "Auto all" };

/** The plan text of a present_plan call's input. */
function planOf(input: unknown): string {
  const p = input !== null && typeof input === "object" ? (input as Record<string, unknown>).plan : undefined;
  return typeof p === "string" ? p : "";
}

/** The card of a present_plan call. */
export function PlanCard({ card }: { card: ToolCardState }) {
  const session = useChatSession();
  const plan = useStore(session.store, (st) => sessionRecord(st, session.sessionId)?.plan);
  const mine = plan?.tool_use_id === card.toolUseId;
  const text = mine && plan ? plan.text : planOf(card.input);
  const proposed = mine && plan?.status === "proposed" && card.status === "done";
  const [mode, setMode] = useState<ApprovalMode>("auto-edits");
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const build = async () => {
    if (!session.onBuildPlan) return;
    setBusy(true);
    const ok = await session.onBuildPlan(mode, editing !== null && editing !== text ? editing : undefined);
    setBusy(false);
    if (ok) setEditing(null);
  };
  const state = !mine ? "replaced" : plan?.status === "accepted" ? "accepted" : card.status === "done" ? "proposed" : card.status;
  return (
    <section className={`plan-card plan-${state}`} aria-label="Plan" data-testid="plan-card" data-state={state}>
      <header className="tool-head">
        <span className="tool-dot" aria-hidden="true" />
        <span className="tool-name">plan</span>
        <span className="tool-status-text">
          {state === "accepted" && plan
            ? `Building in ${MODE_LABEL[plan.mode ?? ""] ?? plan.mode}${plan.edited ? " (edited)" : ""}`
            : state === "replaced"
              ? "Replaced by a newer plan"
              : state === "proposed"
                ? "Waiting for you"
                : card.statusText}
        </span>
      </header>
      {editing === null ? (
        <MarkdownView className="plan-text" text={text} />
      ) : (
        <textarea className="plan-edit" aria-label="Edit the plan" value={editing} rows={Math.min(20, Math.max(6, editing.split("\n").length + 1))} onChange={(e) => setEditing(e.target.value)} />
      )}
      {proposed && (
        <div className="plan-actions">
          <label className="plan-mode">
            Build in
            <select value={mode} onChange={(e) => setMode(e.target.value as ApprovalMode)} aria-label="Mode to build in">
              {BUILD_MODES.map((m) => (
                <option key={m} value={m}>
                  {MODE_LABEL[m]}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="btn btn-primary" data-testid="plan-build" disabled={busy || !session.onBuildPlan || editing?.trim() === ""} onClick={() => void build()}>
            Build it
          </button>
          <button type="button" className="btn" data-testid="plan-keep" onClick={() => (setEditing(null), session.onKeepPlanning?.())}>
            Keep planning
          </button>
          <button type="button" className="btn" data-testid="plan-edit" aria-pressed={editing !== null} onClick={() => setEditing(editing === null ? text : null)}>
            {editing === null ? "Edit" : "Discard edits"}
          </button>
        </div>
      )}
    </section>
  );
}
