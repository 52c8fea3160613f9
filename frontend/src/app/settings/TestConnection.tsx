// "Test connection" of one provider: saves what was typed first, then
// makes one tiny call (testConnection) and says how it went.

import { useState } from "react";
import type { ConnectionTest, HubClient } from "../../transport/hub";

type TestState = { kind: "idle" } | { kind: "testing" } | { kind: "done"; test: ConnectionTest } | { kind: "error"; message: string };

/** The test button and its result line. */
export function TestConnection({ hub, provider, beforeTest }: { hub: HubClient; provider: "anthropic" | "openai"; beforeTest: () => Promise<boolean> }) {
  const [state, setState] = useState<TestState>({ kind: "idle" });
  const run = async () => {
    setState({ kind: "testing" });
    if (!(await beforeTest())) {
      setState({ kind: "idle" });
      return;
    }
    try {
      setState({ kind: "done", test: await hub.testConnection(provider) });
    } catch (err) {
      setState({ kind: "error", message: err instanceof Error ? err.message : String(err) });
    }
  };
  return (
    <p className="settings-test">
      <button type="button" className="btn btn-xs" data-testid={`test-${provider}`} disabled={state.kind === "testing"} onClick={() => void run()}>
        {state.kind === "testing" ? "Testing…" : "Test connection"}
      </button>
      <span role="status" data-testid={`test-${provider}-result`} data-ok={state.kind === "done" ? String(state.test.ok) : undefined} className={state.kind === "done" && state.test.ok ? "settings-ok" : "settings-bad"}>
        {state.kind === "done" && state.test.ok && `Connected: ${state.test.model} answered in ${state.test.duration_ms} ms.`}
        {state.kind === "done" && !state.test.ok && `Failed: ${state.test.error ?? "no answer"}`}
        {state.kind === "error" && `Could not test: ${state.message}`}
      </span>
    </p>
  );
}
