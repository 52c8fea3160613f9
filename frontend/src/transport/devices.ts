// The hub's devices (docs/gateway.md): the RPC methods the hub's own user
// has — its window and its dashboard; no device reaches them through a
// gateway — to see the gateway link, pair a device, answer a device that
// asks to be allowed, change a device's rights or revoke it.

import type { RpcClient } from "./rpc";

/** Rights of a device. */
export type DeviceRights = "full" | "read-only";

/** A device waiting for the hub's user (gatewaylink.PendingDevice). */
export interface PendingDevice {
  deviceId: string;
  rights: DeviceRights;
  meta?: Record<string, string>;
  requestedAt: string;
  expiresAt: string;
}

/** A trusted device (gatewaylink.DeviceView). */
export interface TrustedDevice {
  deviceId: string;
  rights: DeviceRights;
  addedAt: string;
  meta?: Record<string, string>;
  verified: boolean;
}

/** The gateway link (gatewaylink.Status). */
export interface GatewayStatus {
  url: string;
  hubId: string;
  state: string;
  error?: string;
}

/** listDevices' answer. */
export interface DevicesView {
  gateway: GatewayStatus;
  devices: TrustedDevice[];
  pending: PendingDevice[];
}

/** pairDevice's answer: the token is shown once. */
export interface Pairing {
  token: string;
  rights: DeviceRights;
  expiresAt: string;
  hubId: string;
  link?: string;
}

/** The device-management RPC methods. */
export interface DevicesClient {
  list(): Promise<DevicesView>;
  pair(rights: DeviceRights): Promise<Pairing>;
  answer(deviceId: string, allow: boolean, rights?: DeviceRights): Promise<void>;
  revoke(deviceId: string): Promise<void>;
  setRights(deviceId: string, rights: DeviceRights): Promise<void>;
}

/** DevicesClient over an RpcClient. */
export function createDevicesClient(rpc: RpcClient): DevicesClient {
  return {
    async list() {
      const v = await rpc.call<Partial<DevicesView>>("listDevices");
      return {
        gateway: v.gateway ?? { url: "", hubId: "", state: "off" },
        devices: Array.isArray(v.devices) ? v.devices : [],
        pending: Array.isArray(v.pending) ? v.pending : [],
      };
    },
    pair(rights) {
      return rpc.call<Pairing>("pairDevice", { rights });
    },
    async answer(deviceId, allow, rights) {
      await rpc.call("answerDevice", { deviceId, allow, ...(rights ? { rights } : {}) });
    },
    async revoke(deviceId) {
      await rpc.call("revokeDevice", { deviceId });
    },
    async setRights(deviceId, rights) {
      await rpc.call("setDeviceRights", { deviceId, rights });
    },
  };
}
