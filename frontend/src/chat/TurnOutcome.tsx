// How a turn went, shown under the user message that started it: a failed
// or interrupted turn stays visible after a reload (the outcome is part of
// the stored history), with Retry, which runs the turn again in place — a
// new version of the question (‹ n/m ›), the failed one kept beside it.

import type { TurnOutcome } from "../protocol";
import { useChatSession } from "./session";

/** Props of TurnOutcomeView. */
export interface TurnOutcomeViewProps {
  outcome: TurnOutcome;
  /** The user message's text (nothing to retry when empty). */
  text: string;
  /** The user message (what Retry runs again). */
  messageId: string;
}

/** Renders a failed, interrupted or cancelled turn's outcome; nothing for running or completed ones. */
export function TurnOutcomeView({ outcome: o, text, messageId }: TurnOutcomeViewProps) {
  const { onRetry } = useChatSession();
  if (o.status !== "failed" && o.status !== "interrupted" && o.status !== "cancelled") return null;
  const retry = onRetry && o.status !== "cancelled" && text.trim() !== "" && (
    <button type="button" className="btn btn-xs turn-retry" onClick={() => onRetry(messageId)}>
      Retry
    </button>
  );
  if (o.status === "cancelled") {
    return (
      <div className="turn-outcome turn-cancelled" data-testid="turn-outcome" data-status="cancelled">
        Stopped
      </div>
    );
  }
  if (o.status === "interrupted") {
    return (
      <div className="turn-outcome turn-interrupted" role="status" data-testid="turn-outcome" data-status="interrupted">
        <span>Interrupted: Agent Hub stopped while this turn ran.</span>
        {retry}
      </div>
    );
  }
  const e = o.error;
  const attempts = e && e.attempts > 1 ? ` (after ${e.attempts} attempts)` : "";
  return (
    <div className="turn-outcome turn-failed" role="status" data-testid="turn-outcome" data-status="failed">
      <span>
        <strong>Failed</strong>
        {e ? ` — ${e.class}: ${e.message}${attempts}` : ""}
      </span>
      {retry}
    </div>
  );
}
