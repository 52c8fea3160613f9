// A delegate call: the task, the worker's live status and output while it
// runs, its result once it returns (the result replaces the streamed text,
// so it shows once), "Cancelled" after a Stop, its failure otherwise, and a
// link that opens the worker session. A named sub-agent's card says which.

import type { ApprovalResolution, DelegationCardState } from "../state";
import { approvalOutcome } from "./ApprovalPrompt";
import { MarkdownView } from "./Markdown";

/** Props of DelegationCard. */
export interface DelegationCardProps {
  card: DelegationCardState;
  /** Opens a session by id (the worker's). */
  onOpenSession?: (sessionId: string) => void;
  /** How the delegate call's approval was answered, if it was asked. */
  approval?: ApprovalResolution | null;
  /** The named sub-agent the worker runs as (the call's agent input); absent for the generic worker. */
  agent?: string | undefined;
}

/** The named sub-agent of a delegate call's input ("" for none). */
export function delegateAgent(input: unknown): string {
  const a = input !== null && typeof input === "object" ? (input as Record<string, unknown>).agent : undefined;
  return typeof a === "string" ? a : "";
}

/** The card's status line: what the worker is doing now, or how it ended. */
export function delegationStatus(card: DelegationCardState): string {
  switch (card.status) {
    case "running":
      if (card.workerOutput !== "") return "Worker is writing its answer…";
      return card.workerSessionId ? "Worker is working…" : card.statusText || "Starting sub-agent…";
    case "done":
      return "Worker finished";
    case "cancelled":
      return "Cancelled";
    case "failed":
      return "Worker failed";
  }
}

/** A delegation card. */
export function DelegationCard({ card, onOpenSession, approval = null, agent }: DelegationCardProps) {
  const worker = card.workerSessionId;
  const showOutput = card.workerOutput !== "" && card.result === null && card.status === "running";
  return (
    <section className={`deleg-card deleg-${card.status}`} aria-label="Delegation" data-status={card.status}>
      <header className="tool-head">
        <span className={card.status === "running" ? "tool-spinner" : "tool-dot"} aria-hidden="true" />
        <span className="tool-name">{agent ? `sub-agent ${agent}` : "worker"}</span>
        <span className="tool-status-text" data-testid="delegation-status">
          {delegationStatus(card)}
        </span>
        {worker && onOpenSession && (
          <button type="button" className="deleg-open" onClick={() => onOpenSession(worker)}>
            Open worker session
          </button>
        )}
      </header>
      {approval && <p className={`approval-outcome outcome-${approval.decision}`}>{approvalOutcome(approval)}</p>}
      <p className="deleg-task">{card.task}</p>
      {showOutput && (
        <pre className="deleg-output" aria-live="polite">
          {card.workerOutput.length > 20_000 ? card.workerOutput.slice(-20_000) : card.workerOutput}
        </pre>
      )}
      {card.result !== null && card.status !== "cancelled" && <MarkdownView className="deleg-result" text={card.result} />}
      {card.failureMessage && card.status === "failed" && (
        <p className="tool-error" role="alert">
          {card.failureMode}: {card.failureMessage}
        </p>
      )}
    </section>
  );
}
