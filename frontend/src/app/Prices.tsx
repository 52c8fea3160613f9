// Settings → Prices: the price overrides (USD per million tokens) for
// models the built-in table does not know (a usage line shows "—" for
// them) or prices that changed. A change applies to calls made after it.

import { useState, type FormEvent } from "react";
import type { HubClient, ModelPrice } from "../transport/hub";

/** Props of Prices. */
export interface PricesProps {
  hub: HubClient;
  /** The overrides as getSettings returned them. */
  prices: Record<string, ModelPrice>;
  onSaved: (prices: Record<string, ModelPrice>) => void;
}

/** The model name a price is keyed by: without the provider prefix. */
export function priceKey(model: string): string {
  const m = model.trim();
  const colon = m.indexOf(":");
  return colon >= 0 ? m.slice(colon + 1) : m;
}

/** The price overrides block. */
export function Prices({ hub, prices, onSaved }: PricesProps) {
  const [model, setModel] = useState("");
  const [input, setInput] = useState("");
  const [output, setOutput] = useState("");
  const [error, setError] = useState("");
  const save = async (next: Record<string, ModelPrice>) => {
    try {
      const view = await hub.updateSettings({ prices: next });
      onSaved(view.prices ?? next);
      setError("");
      return true;
    } catch (err) {
      setError(`Could not save the price: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const key = priceKey(model);
    const [i, o] = [Number(input), Number(output)];
    if (!key || !Number.isFinite(i) || !Number.isFinite(o) || i < 0 || o < 0 || input === "" || output === "") {
      setError("Give a model name and its input and output prices (USD per million tokens, ≥ 0).");
      return;
    }
    if (await save({ ...prices, [key]: { input: i, output: o } })) {
      setModel("");
      setInput("");
      setOutput("");
    }
  };
  const remove = (key: string) => {
    const next = { ...prices };
    delete next[key];
    void save(next);
  };
  const entries = Object.entries(prices);
  return (
    <div className="settings-block" data-testid="prices">
      <span className="settings-block-title">Prices (USD per million tokens) for models the built-in table does not know; they apply to calls made from now on</span>
      {entries.length > 0 && (
        <ul className="rules-list">
          {entries.map(([k, p]) => (
            <li key={k} className="rule">
              <code>{k}</code>
              <span className="muted">
                in ${p.input} · out ${p.output}
              </span>
              <button type="button" className="icon-btn" aria-label={`Remove the price of ${k}`} onClick={() => remove(k)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="rules-add prices-add" role="group" aria-label="Add a price">
        <input aria-label="Model" placeholder="model, e.g. llama3.1" value={model} onChange={(e) => setModel(e.target.value)} />
        <input aria-label="Input price" inputMode="decimal" placeholder="in $/M" value={input} onChange={(e) => setInput(e.target.value)} />
        <input aria-label="Output price" inputMode="decimal" placeholder="out $/M" value={output} onChange={(e) => setOutput(e.target.value)} />
        <button type="button" className="btn btn-xs" onClick={(e) => void add(e)}>
          Set price
        </button>
      </div>
      {error && (
        <p className="rules-status" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
