// One provider's credentials: its API key (masked; sent only when typed),
// its base URL, and a connection test.

import type { HubClient } from "../../transport/hub";
import { bind, keyPlaceholder, Source, type FormProps } from "./fields";
import { TestConnection } from "./TestConnection";

const PROVIDERS = {
  anthropic: { legend: "Anthropic", unset: "not set", url: "https://api.anthropic.com" },
  openai: { legend: "OpenAI-compatible (OpenAI, Ollama, vLLM, LM Studio)", unset: "not set (not needed for Ollama)", url: "http://127.0.0.1:11434/v1" },
} as const;

/** Props of ProviderFields: the typed key lives outside the form (it is never shown back). */
export interface ProviderFieldsProps extends FormProps {
  hub: HubClient;
  provider: "anthropic" | "openai";
  secret: string;
  setSecret: (v: string) => void;
  /** Saves the form before a connection test; false when the hub refused it. */
  save: () => Promise<boolean>;
}

/** The fieldset of one provider. */
export function ProviderFields(props: ProviderFieldsProps) {
  const { provider, before } = props;
  const p = PROVIDERS[provider];
  const keyField = `${provider}_api_key` as const;
  const urlField = `${provider}_base_url` as const;
  return (
    <fieldset>
      <legend>{p.legend}</legend>
      <label>
        <span>
          API key
          <Source k={keyField} sources={before.sources} />
        </span>
        <input
          type="password"
          autoComplete="off"
          value={props.secret}
          onChange={(e) => props.setSecret(e.target.value)}
          placeholder={keyPlaceholder(before[keyField], keyField, before.sources, p.unset)}
        />
      </label>
      <label>
        <span>
          Base URL
          <Source k={urlField} sources={before.sources} />
        </span>
        <input {...bind(props, urlField)} placeholder={p.url} />
      </label>
      <TestConnection hub={props.hub} provider={provider} beforeTest={props.save} />
    </fieldset>
  );
}
