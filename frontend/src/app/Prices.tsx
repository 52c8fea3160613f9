// Settings → Prices: the price overrides (USD per million tokens) for
// models the built-in table does not know (a usage line shows "—" for
// them) or prices that changed. Setting or removing a price stages it in
// the dialog's form, marked "not saved yet"; Save at the bottom of Settings
// saves it, and it applies to calls made after that.

import { useState } from "react";
import type { ModelPrice } from "../transport/hub";
import { pendingText, stagedEntries, withEntry, withoutEntry } from "./settings/staged";

/** Props of Prices. */
export interface PricesProps {
  /** The overrides as saved (getSettings' prices). */
  saved: Record<string, ModelPrice>;
  /** The overrides as staged in the dialog's form (what Save will save). */
  prices: Record<string, ModelPrice>;
  /** Stages a new set of overrides. */
  onChange: (prices: Record<string, ModelPrice>) => void;
}

/** The model name a price is keyed by: without the provider prefix. */
export function priceKey(model: string): string {
  const m = model.trim();
  const colon = m.indexOf(":");
  return colon >= 0 ? m.slice(colon + 1) : m;
}

/** The price overrides block. */
export function Prices({ saved, prices, onChange }: PricesProps) {
  const [model, setModel] = useState("");
  const [input, setInput] = useState("");
  const [output, setOutput] = useState("");
  const [error, setError] = useState("");
  const add = () => {
    const key = priceKey(model);
    const [i, o] = [Number(input), Number(output)];
    if (!key || !Number.isFinite(i) || !Number.isFinite(o) || i < 0 || o < 0 || input === "" || output === "") {
      setError("Give a model name and its input and output prices (USD per million tokens, ≥ 0).");
      return;
    }
    onChange(withEntry(prices, key, { input: i, output: o }));
    setError("");
    setModel("");
    setInput("");
    setOutput("");
  };
  const entries = stagedEntries(saved, prices);
  return (
    <div className="settings-block" data-testid="prices">
      <span className="settings-block-title">Prices (USD per million tokens) for models the built-in table does not know; they apply to calls made from now on</span>
      {entries.length > 0 && (
        <ul className="rules-list">
          {entries.map(({ key: k, value: p, pending }) => (
            <li key={k} className={`rule${pending ? " is-pending" : ""}`} data-price={k} data-pending={pending}>
              <code>{k}</code>
              <span className="muted">
                in ${p.input} · out ${p.output}
              </span>
              {pending && (
                <span className="settings-pending" data-testid="pending">
                  {pendingText(pending)}
                </span>
              )}
              {pending === "removed" ? (
                <button type="button" className="btn btn-xs" aria-label={`Keep the price of ${k}`} onClick={() => onChange(withEntry(prices, k, p))}>
                  Keep
                </button>
              ) : (
                <button type="button" className="icon-btn" aria-label={`Remove the price of ${k}`} onClick={() => onChange(withoutEntry(prices, k))}>
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="rules-add prices-add" role="group" aria-label="Add a price">
        <input aria-label="Model" placeholder="model, e.g. llama3.1" value={model} onChange={(e) => setModel(e.target.value)} />
        <input aria-label="Input price" inputMode="decimal" placeholder="in $/M" value={input} onChange={(e) => setInput(e.target.value)} />
        <input aria-label="Output price" inputMode="decimal" placeholder="out $/M" value={output} onChange={(e) => setOutput(e.target.value)} />
        <button type="button" className="btn btn-xs" onClick={add}>
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
