// The fields of the settings form (one fieldset each), and the staged lists
// saved with them: the MCP servers and the prices. Everything here edits
// the dialog's form state; nothing is saved until Save.

import type { FormEvent } from "react";
import type { Session } from "../../protocol";
import type { HubClient, ModelInfo } from "../../transport/hub";
import type { AppInfo } from "../info";
import { McpServers } from "../McpServers";
import { Prices } from "../Prices";
import { ApprovalFields } from "./ApprovalFields";
import { DashboardFields } from "./DashboardFields";
import type { FormProps } from "./fields";
import { ModelFields } from "./ModelFields";
import { ProviderFields } from "./ProviderFields";
import { SecurityFields } from "./SecurityFields";
import { SessionFields } from "./SessionFields";

/** The API keys typed (never shown back). */
export type Secrets = { anthropic: string; openai: string };

/** Props of SettingsForm. */
export interface SettingsFormProps extends FormProps {
  hub: HubClient;
  info: AppInfo;
  models: ModelInfo[];
  session: Session | undefined;
  secrets: Secrets;
  setSecrets: (s: Secrets) => void;
  save: (e: FormEvent) => Promise<void>;
  /** Saves everything staged; false when the hub refused it. */
  apply: (quiet: boolean) => Promise<boolean>;
}

/** The fields saved together with Save: one fieldset each. */
export function SettingsForm(props: SettingsFormProps) {
  const { hub, secrets, setSecrets } = props;
  const form = { before: props.before, form: props.form, setForm: props.setForm };
  return (
    <form className="settings" id="settings-form" onSubmit={(e) => void props.save(e)}>
      <ModelFields {...form} models={props.models} />
      <ProviderFields {...form} hub={hub} provider="anthropic" secret={secrets.anthropic} setSecret={(v) => setSecrets({ ...secrets, anthropic: v })} save={() => props.apply(true)} />
      <ProviderFields {...form} hub={hub} provider="openai" secret={secrets.openai} setSecret={(v) => setSecrets({ ...secrets, openai: v })} save={() => props.apply(true)} />
      <SessionFields {...form} />
      <ApprovalFields {...form} hub={hub} workspace={props.session?.workspace_path} />
      <SecurityFields before={props.before} hub={hub} session={props.session} />
      <DashboardFields {...form} url={props.info.dashboard_url} />
    </form>
  );
}

/**
 * The MCP servers and the prices: outside the settings form (the server
 * form is a form of its own) but part of its state: adding, removing,
 * enabling or disabling is staged, marked, and saved by Save.
 */
export function StagedLists({ hub, before, form, setForm, workspace }: FormProps & { hub: HubClient; workspace: string | undefined }) {
  return (
    <>
      <fieldset className="settings-mcp">
        <legend>MCP servers</legend>
        <p className="muted settings-note">Changes here are saved with Save at the bottom, with the rest of Settings.</p>
        <McpServers hub={hub} saved={before.mcp_servers ?? {}} servers={form.mcp_servers ?? {}} workspace={workspace} onChange={(mcp_servers) => setForm({ ...form, mcp_servers })} />
      </fieldset>
      <fieldset className="settings-mcp">
        <legend>Prices</legend>
        <Prices saved={before.prices ?? {}} prices={form.prices ?? {}} onChange={(prices) => setForm({ ...form, prices })} />
      </fieldset>
    </>
  );
}
