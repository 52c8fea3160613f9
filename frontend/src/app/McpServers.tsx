// MCP servers in Settings: each configured server with its state (starting,
// ready with its tools, failed with the error and the end of its stderr,
// stopped), a form to add one (stdio: command, arguments, environment;
// HTTP: URL and headers; optionally only for the open session's
// workspace), and enable/disable/remove. Changes are saved at once through
// updateSettings({mcp_servers}) (docs/mcp.md).

import { useCallback, useEffect, useState, type FormEvent } from "react";
import type { MCPServerStatus } from "../protocol";
import type { HubClient, MCPServerConfig, SettingsView } from "../transport/hub";

/** How often the list refreshes while Settings is open (servers start on their own). */
const REFRESH_MS = 1000;

/** The form's fields, as typed. */
export interface McpForm {
  name: string;
  kind: "stdio" | "http";
  command: string;
  /** One argument per line. */
  args: string;
  /** NAME=value per line (stdio) or Name: value per line (http headers). */
  pairs: string;
  url: string;
  onlyWorkspace: boolean;
}

const EMPTY: McpForm = { name: "", kind: "stdio", command: "", args: "", pairs: "", url: "", onlyWorkspace: false };

function lines(s: string): string[] {
  return s
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

/** Parses "K=V" (sep "=") or "K: V" (sep ":") lines; throws on a line without sep. */
function pairs(s: string, sep: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const l of lines(s)) {
    const i = l.indexOf(sep);
    if (i <= 0) throw new Error(`"${l}" is not ${sep === "=" ? "NAME=value" : "Name: value"}`);
    out[l.slice(0, i).trim()] = l.slice(i + 1).trim();
  }
  return Object.keys(out).length ? out : undefined;
}

/** The server configuration the form describes; throws with a message a user can act on. */
export function configFromForm(f: McpForm, workspace: string | undefined): MCPServerConfig {
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,29}$/.test(f.name)) throw new Error("The name must be 1-30 letters, digits or dashes.");
  const c: MCPServerConfig = {};
  if (f.kind === "stdio") {
    if (!f.command.trim()) throw new Error("Enter the command that starts the server.");
    c.command = f.command.trim();
    const a = lines(f.args);
    if (a.length) c.args = a;
    const env = pairs(f.pairs, "=");
    if (env) c.env = env;
  } else {
    if (!/^https?:\/\/./.test(f.url.trim())) throw new Error("Enter the server's http(s) URL.");
    c.url = f.url.trim();
    const h = pairs(f.pairs, ":");
    if (h) c.headers = h;
  }
  if (f.onlyWorkspace && workspace) c.workspace = workspace;
  return c;
}

/** One line on a server's state. */
export function stateLine(s: MCPServerStatus | undefined): string {
  if (!s) return "saved; starting…";
  switch (s.status) {
    case "ready":
      return `ready · ${s.tools.length} ${s.tools.length === 1 ? "tool" : "tools"}`;
    case "failed":
      return s.retry_in_ms ? `failed · retrying in ${Math.ceil(s.retry_in_ms / 1000)} s` : "failed";
    case "starting":
      return s.restarts ? `restarting (${s.restarts})…` : "starting…";
    default:
      return "stopped";
  }
}

/** Props of McpServers. */
export interface McpServersProps {
  hub: HubClient;
  /** The servers as saved (getSettings' mcp_servers). */
  saved: Record<string, MCPServerConfig>;
  /** Called with the settings after a change was saved. */
  onSaved: (next: SettingsView) => void;
  /** The open session's workspace, for "only this workspace". */
  workspace: string | undefined;
}

/** The MCP servers block of Settings. */
export function McpServers({ hub, saved, onSaved, workspace }: McpServersProps) {
  const [states, setStates] = useState<Record<string, MCPServerStatus>>({});
  const [form, setForm] = useState<McpForm>(EMPTY);
  const [message, setMessage] = useState("");

  const refresh = useCallback(() => {
    hub.listMcpServers().then(
      (list) => setStates(Object.fromEntries(list.map((s) => [s.server, s]))),
      () => undefined, // an older hub: the saved list still shows
    );
  }, [hub]);

  useEffect(() => {
    refresh();
    const t = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(t);
  }, [refresh]);

  const save = async (next: Record<string, MCPServerConfig>, done: string) => {
    try {
      const s = await hub.updateSettings({ mcp_servers: next });
      onSaved(s);
      setMessage(done);
      refresh();
      return true;
    } catch (err: unknown) {
      setMessage(`Not saved: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  };

  const add = async (e: FormEvent) => {
    e.preventDefault();
    let c: MCPServerConfig;
    try {
      c = configFromForm(form, workspace);
    } catch (err: unknown) {
      setMessage(err instanceof Error ? err.message : String(err));
      return;
    }
    if (await save({ ...saved, [form.name]: c }, `Added ${form.name}.`)) setForm(EMPTY);
  };

  const entries = Object.entries(saved).sort(([a], [b]) => a.localeCompare(b));
  const set = (k: keyof McpForm) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });

  return (
    <div className="settings-block mcp-servers" data-testid="mcp-servers">
      {entries.length === 0 && <p className="muted">No MCP servers yet. Their tools are offered to the model as server__tool and ask before running.</p>}
      <ul className="mcp-list">
        {entries.map(([n, c]) => {
          const st = c.disabled ? undefined : states[n];
          return (
            <li key={n} className="mcp-server" data-server={n} data-status={c.disabled ? "stopped" : (st?.status ?? "starting")}>
              <div className="mcp-head">
                <strong>{n}</strong>
                <code className="mcp-target">{c.url ?? [c.command, ...(c.args ?? [])].join(" ")}</code>
                <span className={`mcp-state is-${c.disabled ? "stopped" : (st?.status ?? "starting")}`}>{c.disabled ? "disabled" : stateLine(st)}</span>
              </div>
              {c.workspace && <p className="muted">Only in {c.workspace}</p>}
              {st?.status === "ready" && st.tools.length > 0 && <p className="mcp-tools">{st.tools.join(", ")}</p>}
              {st?.unsupported_tools && st.unsupported_tools.length > 0 && (
                <p className="muted mcp-unsupported">Not offered (unsupported: they must run as MCP tasks): {st.unsupported_tools.join(", ")}</p>
              )}
              {st?.error && <p className="settings-warning">{st.error}</p>}
              {st?.stderr_tail && (
                <details>
                  <summary>stderr</summary>
                  <pre className="mcp-stderr">{st.stderr_tail}</pre>
                </details>
              )}
              <div className="mcp-actions">
                <button type="button" className="btn btn-xs" onClick={() => void save({ ...saved, [n]: { ...c, disabled: !c.disabled } }, c.disabled ? `Enabled ${n}.` : `Disabled ${n}.`)}>
                  {c.disabled ? "Enable" : "Disable"}
                </button>
                <button
                  type="button"
                  className="btn btn-xs"
                  onClick={() => {
                    const next = { ...saved };
                    delete next[n];
                    void save(next, `Removed ${n}.`);
                  }}
                >
                  Remove
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      <form className="mcp-add" onSubmit={(e) => void add(e)} aria-label="Add an MCP server">
        <label>
          Name
          <input value={form.name} onChange={set("name")} placeholder="files" aria-label="Server name" />
        </label>
        <label>
          Kind
          <select value={form.kind} onChange={(e) => setForm({ ...form, kind: e.target.value === "http" ? "http" : "stdio" })} aria-label="Server kind">
            <option value="stdio">Command (stdio)</option>
            <option value="http">URL (streamable HTTP)</option>
          </select>
        </label>
        {form.kind === "stdio" ? (
          <>
            <label>
              Command
              <input value={form.command} onChange={set("command")} placeholder="npx" aria-label="Command" />
            </label>
            <label>
              Arguments (one per line)
              <textarea value={form.args} onChange={set("args")} rows={2} aria-label="Arguments" />
            </label>
            <label>
              Environment (NAME=value per line)
              <textarea value={form.pairs} onChange={set("pairs")} rows={2} aria-label="Environment" />
            </label>
          </>
        ) : (
          <>
            <label>
              URL
              <input value={form.url} onChange={set("url")} placeholder="https://example.com/mcp" aria-label="URL" />
            </label>
            <label>
              Headers (Name: value per line)
              <textarea value={form.pairs} onChange={set("pairs")} rows={2} aria-label="Headers" />
            </label>
          </>
        )}
        {workspace && (
          <label className="check">
            <input type="checkbox" checked={form.onlyWorkspace} onChange={(e) => setForm({ ...form, onlyWorkspace: e.target.checked })} />
            Only for sessions in {workspace}
          </label>
        )}
        <button type="submit" className="btn btn-xs">
          Add server
        </button>
      </form>
      {message && (
        <p className="muted" role="status" data-testid="mcp-message">
          {message}
        </p>
      )}
    </div>
  );
}
