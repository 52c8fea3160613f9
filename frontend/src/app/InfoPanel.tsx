import { describeProvider, type AppInfo } from './info';

interface RowProps {
  label: string;
  children: React.ReactNode;
  testId: string;
}

function Row({ label, children, testId }: RowProps) {
  return (
    <div className="ah-row">
      <dt>{label}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

/** The first window: identity, data dir, provider and dashboard status. */
export function InfoPanel({ info }: { info: AppInfo }) {
  const configured = info.provider.configured;
  return (
    <section className="ah-panel" aria-labelledby="ah-title">
      <header className="ah-header">
        <h1 id="ah-title">{info.name}</h1>
        <span className="ah-badge" data-testid="version">
          v{info.version}
        </span>
        <span className="ah-badge ah-badge-mode">{info.mode}</span>
      </header>
      <dl className="ah-rows">
        <Row label="Data directory" testId="data-dir">
          <code>{info.data_dir}</code>
        </Row>
        <Row label="LLM provider" testId="provider">
          <span className={configured ? 'ah-ok' : 'ah-warn'}>
            {configured ? '● ' : '○ '}
            {describeProvider(info.provider)}
          </span>
          {!configured && (
            <p className="ah-hint">
              Set <code>ANTHROPIC_API_KEY</code>, or <code>OPENAI_API_KEY</code> / <code>OPENAI_BASE_URL</code>{' '}
              (e.g. <code>http://127.0.0.1:11434/v1</code> for Ollama), or add the key to{' '}
              <code>settings.json</code> in the data directory, then restart.
            </p>
          )}
        </Row>
        <Row label="Default model" testId="model">
          {info.model ? <code>{info.model}</code> : <span className="ah-muted">none chosen (use --model PROVIDER:MODEL)</span>}
        </Row>
        <Row label="Dashboard" testId="dashboard">
          {info.dashboard_url ? (
            <a href={info.dashboard_url} target="_blank" rel="noreferrer noopener">
              {info.dashboard_url}
            </a>
          ) : (
            <span className="ah-muted">
              off — start with <code>--listen 127.0.0.1:8421</code> or set <code>dashboard_enabled</code> in settings.json
            </span>
          )}
        </Row>
      </dl>
    </section>
  );
}
