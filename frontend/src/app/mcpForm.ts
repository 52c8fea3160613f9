// The MCP server form's fields and the configuration they describe, and the
// one line a server's live state is said in. Pure.

import type { MCPServerStatus } from "../protocol";
import type { MCPServerConfig } from "../transport/hub";

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

/** The form as it opens. */
export const EMPTY_MCP_FORM: McpForm = { name: "", kind: "stdio", command: "", args: "", pairs: "", url: "", onlyWorkspace: false };

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

/** One line on a saved server's live state. */
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
