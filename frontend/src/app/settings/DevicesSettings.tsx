// Settings → Devices: the gateway this hub connects to (gateway_url, a field
// of the dialog's form, saved with the one Save like every setting), its
// state, the devices it trusts (rights, revoke) and "Pair a device", which
// shows a token once and the link that uses it.

import { useCallback, useEffect, useState } from "react";
import type { HubClient } from "../../transport/hub";
import type { DevicesView, Pairing } from "../../transport/devices";
import { deviceLabel } from "../DevicePrompt";

/** Props of DevicesSettings. */
export interface DevicesSettingsProps {
  hub: HubClient;
  /** gateway_url as saved. */
  savedUrl: string;
  /** gateway_url in the form, and its setter. */
  url: string;
  setUrl: (url: string) => void;
}

/** The Devices fieldset; renders nothing where devices cannot be managed (a page served by a gateway). */
export function DevicesSettings({ hub, savedUrl, url, setUrl }: DevicesSettingsProps) {
  const devices = hub.devices;
  const [view, setView] = useState<DevicesView | null>(null);
  const [pairing, setPairing] = useState<Pairing | null>(null);
  const [status, setStatus] = useState("");
  const reload = useCallback(() => {
    devices?.list().then(setView, () => setView(null));
  }, [devices]);
  useEffect(reload, [reload, savedUrl]);
  if (!devices || !view) return null;
  const act = (what: string, p: Promise<unknown>) =>
    p.then(
      () => {
        setStatus("");
        reload();
      },
      (err: unknown) => setStatus(`${what}: ${err instanceof Error ? err.message : String(err)}`),
    );
  const g = view.gateway;
  return (
    <fieldset className="settings-mcp" data-testid="devices-settings">
      <legend>Devices (gateway)</legend>
      <p className="muted">
        Reach this hub from a laptop or a phone through an Agent Hub gateway (docs/gateway.md). This hub connects out to it; nothing listens here.
      </p>
      <label>
        Gateway URL
        <input type="url" value={url} placeholder="https://gateway.example.com" onChange={(e) => setUrl(e.target.value)} aria-label="Gateway URL" />
        {url.trim() !== savedUrl && <span className="muted"> not saved yet</span>}
      </label>
      <p className="muted" data-testid="gateway-state">
        {g.url ? `${g.url}: ${g.state}${g.error ? ` — ${g.error}` : ""}` : "No gateway."} Hub id <code>{g.hubId}</code>
      </p>
      <button type="button" className="btn" data-testid="pair-device" onClick={() => act("Pair", devices.pair("full").then(setPairing))}>
        Pair a device
      </button>{" "}
      <button type="button" className="btn" onClick={() => act("Pair", devices.pair("read-only").then(setPairing))}>
        Pair a device to watch only
      </button>
      {pairing && (
        <div className="copy-row" data-testid="pairing">
          <span>
            Token <code data-testid="pairing-token">{pairing.token}</code> ({pairing.rights}, until {new Date(pairing.expiresAt).toLocaleTimeString()})
            {pairing.link && (
              <>
                {" "}— open <code data-testid="pairing-link">{pairing.link}</code> on the device
              </>
            )}
          </span>
        </div>
      )}
      <ul className="device-list">
        {view.devices.map((d) => (
          <li key={d.deviceId} data-testid="trusted-device">
            <span title={d.deviceId}>{deviceLabel(d.deviceId, d.meta)}</span> · {d.rights}
            {d.verified ? " · connected" : ""}{" "}
            <button type="button" className="btn btn-xs" onClick={() => act("Rights", devices.setRights(d.deviceId, d.rights === "full" ? "read-only" : "full"))}>
              {d.rights === "full" ? "Make read-only" : "Allow full control"}
            </button>{" "}
            <button type="button" className="btn btn-xs btn-danger" onClick={() => act("Revoke", devices.revoke(d.deviceId))}>
              Revoke
            </button>
          </li>
        ))}
      </ul>
      <span className="muted" role="status">
        {status}
      </span>
    </fieldset>
  );
}
