// The backend of a page an Agent Hub gateway served (its index.html
// carries <meta name="agenthub-backend" content="gateway">): this page is a
// client device of the gateway, paired with one hub by the link the hub's
// user gave it (#hub=ID&token=T, kept in localStorage), and reaches the hub
// through transport/gateway.ts.

import { GatewayConnection, GatewayTransport, pairingFromHash } from './gateway';
import { RpcClient } from './rpc';
import { uuidv7 } from './uuidv7';
import type { Backend } from './backend';
import { createHubClient, type HubClient } from './hub';
import { parseInfo } from '../app/info';

/** localStorage keys: this page's device id and the hub it paired with. */
export const DEVICE_KEY = 'agenthub.gateway.device';
export const PAIRING_KEY = 'agenthub.gateway.pairing';

/** How long the page waits for the hub to verify it (its user may have to allow it first). */
export const VERIFY_WAIT_MS = 180_000;

/** Whether the page was served by a gateway. */
export function servedByGateway(doc: Document): boolean {
  return doc.querySelector('meta[name="agenthub-backend"]')?.getAttribute('content') === 'gateway';
}

interface Pairing {
  hubId: string;
  token: string;
}

/** The pairing: from the address (then kept, and removed from the address bar), else the one kept. */
export function takePairing(win: Window): Pairing | null {
  const fromLink = pairingFromHash(win.location.hash);
  if (fromLink) {
    win.localStorage.setItem(PAIRING_KEY, JSON.stringify(fromLink));
    win.history.replaceState(win.history.state, '', win.location.pathname + win.location.search);
    return fromLink;
  }
  try {
    const kept = JSON.parse(win.localStorage.getItem(PAIRING_KEY) ?? 'null') as Partial<Pairing> | null;
    return kept && typeof kept.hubId === 'string' && typeof kept.token === 'string' ? { hubId: kept.hubId, token: kept.token } : null;
  } catch {
    return null;
  }
}

/** This page's device id, made once. */
export function deviceId(win: Window): string {
  let id = win.localStorage.getItem(DEVICE_KEY);
  if (!id) {
    id = `browser-${uuidv7()}`;
    win.localStorage.setItem(DEVICE_KEY, id);
  }
  return id;
}

/** What a page without a pairing says, naming the hubs the gateway lists. */
export function unpairedMessage(hubs: string[]): string {
  const list = hubs.length ? ` Hubs online here: ${hubs.join(', ')}.` : ' No hub is connected to this gateway right now.';
  return `This page is an Agent Hub gateway. Open the pairing link your hub shows (Settings → Devices → Pair a device, or \`agenthub devices pair\` on its machine).${list}`;
}

/** The gateway backend. */
export function gatewayBackend(win: Window): Backend {
  const pairing = takePairing(win);
  const id = deviceId(win);
  const conn = new GatewayConnection({
    url: '',
    deviceId: id,
    hubId: pairing?.hubId ?? '',
    token: pairing?.token ?? '',
    meta: { userAgent: win.navigator.userAgent, platform: win.navigator.platform, language: win.navigator.language },
  });
  const rpc = new RpcClient(conn.channel());
  conn.onReady((ready, why) => {
    if (!ready) rpc.disconnected(why);
  });
  let hub: HubClient | null = null;
  conn.start();
  return {
    kind: 'gateway',
    async info() {
      if (!pairing) {
        const hubs = await conn.listDevices().catch(() => []);
        throw new Error(unpairedMessage(hubs.filter((d) => d.deviceType === 'hub').map((d) => d.deviceId)));
      }
      await conn.whenReady(VERIFY_WAIT_MS);
      return parseInfo(await rpc.call('getInfo'));
    },
    async ready() {},
    hub() {
      hub ??= createHubClient(rpc);
      return hub;
    },
    transport() {
      return new GatewayTransport(conn, (method, params) => rpc.call(method, params), { filter: 'preset:full' });
    },
    uploadAttachment() {
      return Promise.reject(new Error('attachments cannot be sent through the gateway yet; send text, or use the hub’s own window'));
    },
  };
}
