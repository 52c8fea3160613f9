// MCP servers in Settings: each server, saved or staged, with its state
// (starting, ready with its tools, failed with the error and the end of its
// stderr, stopped — live from listMcpServers for saved servers), a form to
// add one, and enable/disable/remove. Every change is staged in the
// dialog's form and marked "not saved yet"; Save at the bottom of Settings
// saves them with the rest through updateSettings({mcp_servers}) (docs/mcp.md).

import { useCallback, useEffect, useState } from "react";
import type { MCPServerStatus } from "../protocol";
import type { HubClient, MCPServerConfig } from "../transport/hub";
import { McpAddForm } from "./McpAddForm";
import { stateLine } from "./mcpForm";
import { pendingText, stagedEntries, withEntry, withoutEntry, type StagedEntry } from "./settings/staged";

export { configFromForm, stateLine, type McpForm } from "./mcpForm";

/** How often the list refreshes while Settings is open (servers start on their own). */
const REFRESH_MS = 1000;

/** Props of McpServers. */
export interface McpServersProps {
  hub: HubClient;
  /** The servers as saved (getSettings' mcp_servers). */
  saved: Record<string, MCPServerConfig>;
  /** The servers as staged in the dialog's form (what Save will save). */
  servers: Record<string, MCPServerConfig>;
  /** Stages a new set of servers. */
  onChange: (next: Record<string, MCPServerConfig>) => void;
  /** The open session's workspace, for "only this workspace". */
  workspace: string | undefined;
}

/** The MCP servers block of Settings. */
export function McpServers({ hub, saved, servers, onChange, workspace }: McpServersProps) {
  const [states, setStates] = useState<Record<string, MCPServerStatus>>({});
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

  const entries = stagedEntries(saved, servers);
  return (
    <div className="settings-block mcp-servers" data-testid="mcp-servers">
      {entries.length === 0 && <p className="muted">No MCP servers yet. Their tools are offered to the model as server__tool and ask before running.</p>}
      <ul className="mcp-list">
        {entries.map((e) => (
          <McpServerRow key={e.key} entry={e} saved={saved[e.key]} state={states[e.key]} servers={servers} onChange={onChange} />
        ))}
      </ul>
      <McpAddForm workspace={workspace} onAdd={(name, c) => onChange(withEntry(servers, name, c))} onMessage={setMessage} />
      {message && (
        <p className="muted" role="status" data-testid="mcp-message">
          {message}
        </p>
      )}
    </div>
  );
}

/** c enabled when disabled, disabled when enabled (enabled has no "disabled": it compares equal to what was saved). */
function toggled(c: MCPServerConfig): MCPServerConfig {
  const { disabled, ...rest } = c;
  return disabled ? rest : { ...rest, disabled: true };
}

/** The state a saved server is in as the hub runs it ("unsaved" for a server only staged). */
function liveStatus(saved: MCPServerConfig | undefined, st: MCPServerStatus | undefined): string {
  if (!saved) return "unsaved";
  return saved.disabled ? "stopped" : (st?.status ?? "starting");
}

function McpServerRow(props: {
  entry: StagedEntry<MCPServerConfig>;
  saved: MCPServerConfig | undefined;
  state: MCPServerStatus | undefined;
  servers: Record<string, MCPServerConfig>;
  onChange: (next: Record<string, MCPServerConfig>) => void;
}) {
  const { entry, saved, servers, onChange } = props;
  const { key: n, value: c, pending } = entry;
  const st = saved && !saved.disabled ? props.state : undefined;
  const status = liveStatus(saved, st);
  return (
    <li className={`mcp-server${pending ? " is-pending" : ""}`} data-server={n} data-status={status} data-pending={pending}>
      <div className="mcp-head">
        <strong>{n}</strong>
        <code className="mcp-target">{c.url ?? [c.command, ...(c.args ?? [])].join(" ")}</code>
        {saved && <span className={`mcp-state is-${status}`}>{saved.disabled ? "disabled" : stateLine(st)}</span>}
        {pending && (
          <span className="mcp-pending settings-pending" data-testid="pending">
            {pending === "changed" ? `${c.disabled ? "disabled" : "enabled"} · not saved yet` : pendingText(pending)}
          </span>
        )}
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
        {pending === "removed" ? (
          <button type="button" className="btn btn-xs" onClick={() => saved && onChange(withEntry(servers, n, saved))}>
            Keep
          </button>
        ) : (
          <>
            <button type="button" className="btn btn-xs" onClick={() => onChange(withEntry(servers, n, toggled(c)))}>
              {c.disabled ? "Enable" : "Disable"}
            </button>
            <button type="button" className="btn btn-xs" onClick={() => onChange(withoutEntry(servers, n))}>
              Remove
            </button>
          </>
        )}
      </div>
    </li>
  );
}
