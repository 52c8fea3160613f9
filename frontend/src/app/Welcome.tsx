// First run and empty states: what to configure, and how to start.

import type { AppInfo } from "./info";

/** Props of Welcome. */
export interface WelcomeProps {
  info: AppInfo;
  onNew: () => void;
  onSettings: () => void;
}

/** Shown when no session is open; explains provider setup when none is configured. */
export function Welcome({ info, onNew, onSettings }: WelcomeProps) {
  const configured = info.provider.configured;
  return (
    <section className="welcome" aria-labelledby="welcome-title">
      <h1 id="welcome-title">{configured ? "Start a session" : "Connect a model to get started"}</h1>
      {configured ? (
        <p className="muted">
          Default model <code>{info.model || "not set"}</code>. Each session has its own workspace, history and cost.
        </p>
      ) : (
        <div className="setup" data-testid="setup-help">
          <p>Agent Hub needs one LLM provider. Pick one:</p>
          <ol>
            <li>
              <strong>Anthropic</strong> — set <code>ANTHROPIC_API_KEY</code> and start with{" "}
              <code>--model anthropic:claude-sonnet-4-6</code>.
            </li>
            <li>
              <strong>Local (Ollama, LM Studio, vLLM…)</strong> — set <code>OPENAI_BASE_URL=http://127.0.0.1:11434/v1</code> and use{" "}
              <code>--model openai:llama3.1</code>.
            </li>
          </ol>
          <p className="muted">Or enter the key and base URL in Settings; they are stored in settings.json in the data directory.</p>
        </div>
      )}
      <div className="welcome-actions">
        <button type="button" className="btn btn-primary" onClick={onNew}>
          + New session
        </button>
        <button type="button" className="btn" onClick={onSettings}>
          Settings
        </button>
      </div>
    </section>
  );
}
