// The first window's data: what the Go side reports through the bound
// App.Info method (window) or GET /api/info (browser dashboard).

/** Provider status as reported by Go's settings.ProviderStatus (app/settings). */
export interface ProviderStatus {
  configured: boolean;
  /** Configured providers, e.g. ["anthropic", "openai"]. */
  providers: string[];
  /** Where each came from, e.g. "anthropic: env ANTHROPIC_API_KEY"; never a secret. */
  sources: string[];
}

/** Mirrors Go's app.Info (snake_case as on the wire). */
export interface AppInfo {
  name: string;
  version: string;
  mode: 'desktop' | 'headless';
  data_dir: string;
  provider: ProviderStatus;
  model: string;
  /** First-load dashboard URL with token; "" when the dashboard is off. */
  dashboard_url: string;
  /** The folder new sessions use unless one is chosen (--workspace); "" from an older hub. */
  workspace: string;
  /** The build's VCS revision; this launch's log file (absent when unknown / none). */
  commit?: string;
  log_file?: string;
  /** One line on what confines bash here (the settings' sandbox line); absent from an older hub. */
  sandbox?: string;
  /** Set when the app could not start its hub: the window shows it and the hint instead of the chat. */
  startup_error?: string;
  startup_hint?: string;
}

/** What the page tells Go it rendered (Go's app.ReadyReport). */
export interface ReadyReport {
  version: string;
  data_dir: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(o: Record<string, unknown>, key: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw new Error(`info: "${key}" is not a string`);
  return v;
}

function strList(o: Record<string, unknown>, key: string): string[] {
  const v = o[key];
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
    throw new Error(`info: "${key}" is not a list of strings`);
  }
  return v;
}

/** Validates unknown JSON as AppInfo; throws an Error naming the bad field. */
export function parseInfo(raw: unknown): AppInfo {
  if (!isRecord(raw)) throw new Error('info: not an object');
  const p = raw['provider'];
  if (!isRecord(p) || typeof p['configured'] !== 'boolean') {
    throw new Error('info: "provider" is not a provider status');
  }
  const mode = str(raw, 'mode');
  if (mode !== 'desktop' && mode !== 'headless') throw new Error(`info: unknown mode "${mode}"`);
  return {
    name: str(raw, 'name'),
    version: str(raw, 'version'),
    mode,
    data_dir: str(raw, 'data_dir'),
    provider: {
      configured: p['configured'],
      providers: strList(p, 'providers'),
      sources: strList(p, 'sources'),
    },
    model: str(raw, 'model'),
    dashboard_url: str(raw, 'dashboard_url'),
    workspace: typeof raw['workspace'] === 'string' ? raw['workspace'] : '',
    ...(typeof raw['commit'] === 'string' && raw['commit'] !== '' ? { commit: raw['commit'] } : {}),
    ...(typeof raw['log_file'] === 'string' && raw['log_file'] !== '' ? { log_file: raw['log_file'] } : {}),
    ...(typeof raw['sandbox'] === 'string' && raw['sandbox'] !== '' ? { sandbox: raw['sandbox'] } : {}),
    ...(typeof raw['startup_error'] === 'string' && raw['startup_error'] !== '' ? { startup_error: raw['startup_error'] } : {}),
    ...(typeof raw['startup_hint'] === 'string' && raw['startup_hint'] !== '' ? { startup_hint: raw['startup_hint'] } : {}),
  };
}

const providerNames: Record<string, string> = {
  anthropic: 'Anthropic',
  openai: 'OpenAI-compatible',
};

/** Human summary of the provider status, e.g. "Anthropic (env ANTHROPIC_API_KEY)". */
export function describeProvider(p: ProviderStatus): string {
  if (!p.configured || p.providers.length === 0) return 'Not configured';
  return p.providers
    .map((name, i) => {
      const label = providerNames[name] ?? name;
      const src = p.sources[i]?.split(': ').slice(1).join(': ');
      return src ? `${label} (${src})` : label;
    })
    .join(', ');
}
