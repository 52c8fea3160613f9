// The form that adds an MCP server to Settings (stdio: command, arguments,
// environment; HTTP: URL and headers; optionally only for the open
// session's workspace). Adding stages the server in the dialog's form;
// Save at the bottom of Settings saves it.

import { useState, type FormEvent } from "react";
import type { MCPServerConfig } from "../transport/hub";
import { configFromForm, EMPTY_MCP_FORM, type McpForm } from "./mcpForm";

/** Props of McpAddForm. */
export interface McpAddFormProps {
  /** The open session's workspace, for "only this workspace". */
  workspace: string | undefined;
  /** Stages the server described. */
  onAdd: (name: string, config: MCPServerConfig) => void;
  /** Says what happened (a form error, or what was staged). */
  onMessage: (text: string) => void;
}

/** The add-a-server form. */
export function McpAddForm({ workspace, onAdd, onMessage }: McpAddFormProps) {
  const [form, setForm] = useState<McpForm>(EMPTY_MCP_FORM);
  const set = (k: keyof McpForm) => (e: { target: { value: string } }) => setForm({ ...form, [k]: e.target.value });
  const add = (e: FormEvent) => {
    e.preventDefault();
    try {
      onAdd(form.name, configFromForm(form, workspace));
    } catch (err: unknown) {
      onMessage(err instanceof Error ? err.message : String(err));
      return;
    }
    onMessage(`${form.name} is listed above, not saved yet: Save at the bottom saves it.`);
    setForm(EMPTY_MCP_FORM);
  };
  return (
    <form className="mcp-add" onSubmit={add} aria-label="Add an MCP server">
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
  );
}
