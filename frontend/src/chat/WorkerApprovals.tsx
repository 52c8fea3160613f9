// The delegated workers' calls waiting for approval, shown in an ancestor
// session above the composer (they belong to no message of this session);
// either copy of a request can be answered.

import { useShallow } from "zustand/react/shallow";
import { workerApprovalIds } from "../state";
import { ToolCallView } from "./MessageView";
import { useChatSession, useSessionSelector } from "./session";

function WorkerApproval({ toolUseId }: { toolUseId: string }) {
  const { onOpenSession } = useChatSession();
  const worker = useSessionSelector((s) => s?.tools[toolUseId]?.workerSessionId ?? null);
  return (
    <div className="worker-approval" data-worker-session-id={worker ?? undefined}>
      <p className="worker-approval-head">
        <span>A worker session asks:</span>
        {worker && onOpenSession && (
          <button type="button" className="deleg-open" onClick={() => onOpenSession(worker)}>
            Open worker session
          </button>
        )}
      </p>
      <ToolCallView toolUseId={toolUseId} />
    </div>
  );
}

/** The workers' waiting calls of the open session (nothing when none waits). */
export function WorkerApprovals() {
  const ids = useSessionSelector(useShallow((s) => workerApprovalIds(s)));
  if (ids.length === 0) return null;
  return (
    <section className="worker-approvals" aria-label="Worker approvals">
      {ids.map((id) => (
        <WorkerApproval key={id} toolUseId={id} />
      ))}
    </section>
  );
}
