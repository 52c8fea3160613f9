// First run and empty states: what to configure, and how to start. Without
// a provider, Settings is the first step (the primary button): a person who
// started the app from the desktop menu has no terminal for environment
// variables or flags.

import type { AppInfo } from "./info";

/** Props of Welcome. */
export interface WelcomeProps {
  info: AppInfo;
  onNew: () => void;
  onSettings: () => void;
}

/** Shown when no session is open; leads to Settings first when no provider is configured. */
export function Welcome({ info, onNew, onSettings }: WelcomeProps) {
  const configured = info.provider.configured;
  return (
    <section className="welcome" aria-labelledby="welcome-title">
      <h1 id="welcome-title">{configured ? "Start a session" : "Connect a model to get started"}</h1>
      {configured ? (
        <p className="muted">
          {info.model ? (
            <>
              New sessions use <code data-testid="default-model">{info.model}</code>.
            </>
          ) : (
            "New sessions use the first model your server lists."
          )}{" "}
          Each session has its own workspace, history and cost.
        </p>
      ) : (
        <div className="setup" data-testid="setup-help">
          <p>Agent Hub needs one LLM provider. In Settings, either:</p>
          <ol>
            <li>
              <strong>Anthropic</strong> — paste your API key;
            </li>
            <li>
              <strong>a local server</strong> (Ollama, LM Studio, vLLM…) or OpenAI — enter its address (e.g. <code>http://127.0.0.1:11434/v1</code>) and, if it needs one, its key,
            </li>
          </ol>
          <p className="muted">then press Test connection: one tiny call tells you it works.</p>
        </div>
      )}
      <div className="welcome-actions">
        {configured ? (
          <>
            <button type="button" className="btn btn-primary" onClick={onNew}>
              + New session
            </button>
            <button type="button" className="btn" onClick={onSettings}>
              Settings
            </button>
          </>
        ) : (
          <>
            <button type="button" className="btn btn-primary" data-testid="welcome-settings" onClick={onSettings}>
              Open Settings
            </button>
            <button type="button" className="btn" onClick={onNew}>
              + New session
            </button>
          </>
        )}
      </div>
    </section>
  );
}
