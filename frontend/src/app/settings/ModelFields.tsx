// The default provider and model.

import type { ModelInfo } from "../../transport/hub";
import { bind, Source, type FormProps } from "./fields";

/** The Model fieldset; models fill the model field's suggestions. */
export function ModelFields(props: FormProps & { models: ModelInfo[] }) {
  return (
    <fieldset>
      <legend>Model</legend>
      <label>
        Default provider
        <select {...bind(props, "provider")}>
          <option value="">(from the model)</option>
          <option value="anthropic">Anthropic</option>
          <option value="openai">OpenAI-compatible</option>
        </select>
      </label>
      <label>
        <span>
          Default model
          <Source k="model" sources={props.before.sources} />
        </span>
        <input {...bind(props, "model")} placeholder="anthropic:claude-sonnet-4-6" list="settings-models" />
        <datalist id="settings-models">
          {props.models.map((m) => (
            <option key={m.id} value={m.id} />
          ))}
        </datalist>
      </label>
    </fieldset>
  );
}
