// "Allow <device> to control this hub?" — a device that verified through
// the gateway with a pairing token waits for this answer (docs/gateway.md).
// The window hears of it at once (a Wails event); the dashboard page asks
// listDevices every few seconds.

import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useModal } from "../chat/modals";
import type { Backend } from "../transport/backend";
import type { DevicesClient, DeviceRights, PendingDevice } from "../transport/devices";
import type { AppController } from "./controller";

/** How often the dashboard page asks which devices wait. */
export const DEVICE_POLL_MS = 2000;

/** Follows the devices waiting for an answer: pushed (subscribe) or polled (devices.list). */
export function usePendingDevices(devices: DevicesClient | undefined, subscribe?: (cb: (p: PendingDevice[]) => void) => () => void): [PendingDevice[], (p: PendingDevice[]) => void] {
  const [pending, setPending] = useState<PendingDevice[]>([]);
  useEffect(() => {
    if (!devices) return undefined;
    let stopped = false;
    const poll = () =>
      devices.list().then(
        (v) => !stopped && setPending(v.pending),
        () => undefined,
      );
    void poll();
    if (subscribe) {
      const off = subscribe((p) => !stopped && setPending(p));
      return () => {
        stopped = true;
        off();
      };
    }
    const t = setInterval(() => void poll(), DEVICE_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(t);
    };
  }, [devices, subscribe]);
  return [pending, setPending];
}

/**
 * The oldest device waiting for the hub's user, and the answer to it. A page
 * a gateway served has no device to answer (it is a device itself).
 */
export function useDeviceQuestion(backend: Backend, ctl: AppController): [PendingDevice | undefined, (allow: boolean, rights?: DeviceRights) => void] {
  const devices = backend.kind === "gateway" ? undefined : backend.hub().devices;
  const onDevices = useMemo(() => backend.onDevicesPending?.bind(backend), [backend]);
  const [pending, setPending] = usePendingDevices(devices, onDevices);
  const answer = useCallback(
    (allow: boolean, rights?: DeviceRights) => {
      const d = pending[0];
      if (!d || !devices) return;
      setPending(pending.slice(1));
      devices.answer(d.deviceId, allow, rights).catch((err: unknown) => ctl.notify(`Could not answer ${d.deviceId}: ${err instanceof Error ? err.message : String(err)}`));
    },
    [devices, pending, setPending, ctl],
  );
  return [pending[0], answer];
}

/** The prompt for the oldest waiting device. */
export function DevicePrompt({ device, onAnswer }: { device: PendingDevice; onAnswer: (allow: boolean, rights?: DeviceRights) => void }) {
  useModal();
  const deny = useRef<HTMLButtonElement>(null);
  useEffect(() => deny.current?.focus(), []);
  const readOnly = device.rights === "read-only";
  return (
    <div className="modal-backdrop" onKeyDown={(e) => e.key === "Escape" && onAnswer(false)}>
      <div className="modal quit-dialog" role="alertdialog" aria-modal="true" aria-labelledby="device-title" data-testid="device-confirm">
        <h2 id="device-title">Allow {deviceLabel(device.deviceId, device.meta)} to {readOnly ? "watch" : "control"} this hub?</h2>
        <p>
          It verified through your gateway with a pairing token of this hub.{" "}
          {readOnly ? "The token allows it to watch sessions only." : "It could then start turns, answer approvals and change settings."} Allow it only if
          you just paired it yourself.
        </p>
        <div className="quit-actions">
          <button ref={deny} type="button" className="btn" data-testid="device-deny" onClick={() => onAnswer(false)}>
            Deny
          </button>
          {!readOnly && (
            <button type="button" className="btn" data-testid="device-allow-readonly" onClick={() => onAnswer(true, "read-only")}>
              Allow to watch only
            </button>
          )}
          <button type="button" className="btn btn-primary" data-testid="device-allow" onClick={() => onAnswer(true)}>
            Allow
          </button>
        </div>
      </div>
    </div>
  );
}

/** How a device is named in a prompt: its id, shortened, and what it says it is. */
export function deviceLabel(id: string, meta?: Record<string, string>): string {
  const short = id.length > 24 ? `${id.slice(0, 20)}…` : id;
  const ua = meta?.userAgent ? ` (${meta.userAgent.slice(0, 60)})` : "";
  return `${short}${ua}`;
}
