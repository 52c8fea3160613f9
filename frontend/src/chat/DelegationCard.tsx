// A delegate call: the task, the worker's live output, its result or failure,
// and a link that opens the worker session.

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
}

/** A delegation card. */
export function DelegationCard({ card, onOpenSession, approval = null }: DelegationCardProps) {
  const worker = card.workerSessionId;
  return (
    <section className={`deleg-card deleg-${card.status}`} aria-label="Delegation" data-status={card.status}>
      <header className="tool-head">
        <span className={card.status === "running" ? "tool-spinner" : "tool-dot"} aria-hidden="true" />
        <span className="tool-name">worker</span>
        <span className="tool-status-text">{card.statusText || card.status}</span>
        {worker && onOpenSession && (
          <button type="button" className="deleg-open" onClick={() => onOpenSession(worker)}>
            Open worker session
          </button>
        )}
      </header>
      {approval && <p className={`approval-outcome outcome-${approval.decision}`}>{approvalOutcome(approval)}</p>}
      <p className="deleg-task">{card.task}</p>
      {card.workerOutput && (
        <pre className="deleg-output" aria-live="polite">
          {card.workerOutput.length > 20_000 ? card.workerOutput.slice(-20_000) : card.workerOutput}
        </pre>
      )}
      {card.result !== null && <MarkdownView className="deleg-result" text={card.result} />}
      {card.failureMessage && (
        <p className="tool-error" role="alert">
          {card.failureMode}: {card.failureMessage}
        </p>
      )}
    </section>
  );
}
