// A client nobody on the hub's side wrote: multica's GatewayClient protocol
// as its SDK publishes it (packages/sdk/src/client.ts and types.ts at the
// commit that added seed 000: read, not copied), over the npm
// socket.io-client the SDK itself uses — not gateway/client, the Go client
// the hub's own link shares. Against the real binaries, over TLS
// (agenthub gateway --tls-cert/--tls-key; this process trusts the test's
// certificate through NODE_EXTRA_CA_CERTS):
//   - handshake query {deviceId, deviceType} at path /ws → registered;
//   - the SDK's auto-verify: request "verify" {token, meta} to hubId,
//     answered once the hub's user allowed the device (isNewDevice: true);
//   - list-devices and ping with acknowledgements;
//   - seed 003 requests (createSession, submitTurn, getAgentMessages) and a
//     subscribe whose frames arrive as action "stream" in seed 000's
//     StreamPayload shape; the streamed answer equals the history's;
//   - a new connection verifies again with the same token (isNewDevice:
//     false) and resumes from a cursor: every frame after it exactly once;
//   - the refusals in the seed's error shapes: a spoofed from and an
//     unknown to (send_error), a second socket on a registered id
//     (registered success:false), an unverified device and a wrong token
//     (UNAUTHORIZED), a read-only device's submit (FORBIDDEN).
import { randomBytes } from "node:crypto";
import { expect, fail, frontendRequire, sync } from "./nodeclient.mjs";

const { io } = frontendRequire("socket.io-client");

const gatewayURL = process.env.E2E_GATEWAY;
const hubId = process.env.E2E_HUB_ID;
const laptopToken = process.env.E2E_TOKEN;

/** A UUIDv7 (RFC 9562): the ids the SDK gives messages and requests. */
function uuidv7() {
  const b = randomBytes(16);
  const ms = BigInt(Date.now());
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = (b[6] & 0x0f) | 0x70;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** One device as the SDK's GatewayClient is: a socket, pending requests by requestId, the other messages queued. */
class Device {
  constructor(deviceId) {
    this.deviceId = deviceId;
    this.pending = new Map();
    this.inbox = [];
    this.waiters = [];
    this.sendErrors = [];
  }

  /** Connects and resolves with the registered response (the SDK's connect + REGISTERED). */
  connect() {
    this.socket = io(gatewayURL, {
      path: "/ws",
      query: { deviceId: this.deviceId, deviceType: "client" },
      reconnection: false,
      transports: ["websocket"],
    });
    this.socket.on("receive", (m) => {
      if (m.action === "response" && this.pending.has(m.payload?.requestId)) {
        const p = this.pending.get(m.payload.requestId);
        this.pending.delete(m.payload.requestId);
        p(m.payload);
        return;
      }
      this.inbox.push(m);
      this.wake();
    });
    this.socket.on("send_error", (e) => {
      this.sendErrors.push(e);
      this.wake();
    });
    return new Promise((resolve, reject) => {
      this.socket.once("registered", resolve);
      this.socket.once("connect_error", reject);
    });
  }

  wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves when test(this) holds, re-checked on every arrival. */
  async until(what, test) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const v = test(this);
      if (v) return v;
      if (Date.now() > deadline) fail(`${this.deviceId}: no ${what} within 30 s`);
      await new Promise((r) => {
        this.waiters.push(r);
        setTimeout(r, 1000);
      });
    }
  }

  /** The SDK's send: a RoutedMessage with from = this device. */
  send(to, action, payload, from = this.deviceId) {
    const id = uuidv7();
    this.socket.emit("send", { id, uid: null, from, to, action, payload });
    return id;
  }

  /** The SDK's request: resolves with the whole ResponsePayload ({requestId, ok, payload | error}). */
  request(method, params) {
    const requestId = uuidv7();
    return new Promise((resolve) => {
      this.pending.set(requestId, resolve);
      this.send(hubId, "request", { requestId, method, params });
    });
  }

  /** A request that must succeed: its payload. */
  async must(method, params) {
    const r = await this.request(method, params);
    expect(r.ok === true, `${this.deviceId} ${method}: ${JSON.stringify(r.error)}`);
    return r.payload;
  }

  /** The SDK's auto-verify after registration. */
  verify(token) {
    return this.request("verify", { token, meta: { userAgent: "sdk-protocol-client/node", platform: process.platform, language: "en" } });
  }

  close() {
    this.socket.disconnect();
  }
}

/** Reads subscription sub's stream frames until one whose event is message_end. */
async function streamUntilEnd(dev, sub) {
  const frames = [];
  await dev.until(`message_end on ${sub}`, (d) => {
    while (d.inbox.length) {
      const m = d.inbox.shift();
      if (m.action !== "stream" || m.payload.subscriptionId !== sub) continue;
      frames.push(m.payload);
      if (m.payload.event?.type === "message_end") return true;
    }
    return false;
  });
  return frames;
}

/** The text of a seed 000 AgentMessage. */
function textOf(message) {
  return (message?.content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("");
}

// 1. Register, verify with the pairing token; the hub's user allows.
const laptop = new Device("sdk-laptop");
let reg = await laptop.connect();
expect(reg.success === true && reg.deviceId === laptop.deviceId, "registered: " + JSON.stringify(reg));
const verifying = laptop.verify(laptopToken);
await sync("allow " + laptop.deviceId);
let v = await verifying;
expect(v.ok === true && v.payload.hubId === hubId && v.payload.isNewDevice === true, "first verify: " + JSON.stringify(v));
console.log("verified", laptop.deviceId);

// 2. list-devices and ping, with acknowledgements.
const list = await laptop.socket.emitWithAck("list-devices", {});
expect(list.devices.some((d) => d.deviceId === hubId && d.deviceType === "hub"), "list-devices: " + JSON.stringify(list));
expect(list.devices.some((d) => d.deviceId === laptop.deviceId && d.deviceType === "client"), "list-devices lacks this device");
const pong = await laptop.socket.emitWithAck("ping", {});
expect(pong.event === "pong" && typeof pong.data === "string", "ping ack: " + JSON.stringify(pong));

// 3. A session, a subscription (seed 000 by default), a turn.
const session = await laptop.must("createSession", { title: "SDK protocol" });
const ack = await laptop.must("subscribe", { agentId: session.session_id });
expect(ack.type === "subscribe_ack" && ack.dialect === "seed000" && ack.subscriptionId, "subscribe: " + JSON.stringify(ack));
await laptop.must("submitTurn", { agentId: session.session_id, content: "say hello" });
const frames = await streamUntilEnd(laptop, ack.subscriptionId);
for (const f of frames) {
  expect(f.agentId === session.session_id && f.streamId && f.eventId && f.event?.type, "StreamPayload: " + JSON.stringify(f));
}
expect(frames[0].event.type === "message_start", "first frame " + frames[0].event.type);
const ids = frames.map((f) => f.eventId);
expect(new Set(ids).size === ids.length && ids.every((id, i) => i === 0 || id > ids[i - 1]), "eventIds not unique and ascending: " + ids.join(" "));
const streamed = textOf(frames[frames.length - 1].event.message);
const history = await laptop.must("getAgentMessages", { agentId: session.session_id });
const answer = history.messages.find((m) => m.role === "assistant");
expect(history.total === 2 && textOf(answer) === streamed && streamed === "Hello from the SDK's side.", `history ${JSON.stringify(history)} vs streamed ${JSON.stringify(streamed)}`);
console.log("streamed", JSON.stringify(streamed), "in", frames.length, "frames");

// 4. Refusals by the gateway (send_error) and the hub (the seed's error shape).
const spoofId = laptop.send(hubId, "request", { requestId: uuidv7(), method: "listSessions" }, "someone-else");
const spoofed = await laptop.until("send_error for the spoofed from", (d) => d.sendErrors.find((e) => e.messageId === spoofId));
expect(spoofed.code === "INVALID_MESSAGE" && spoofed.error, "spoofed from: " + JSON.stringify(spoofed));
const lostId = laptop.send("no-such-device", "message", { content: "hi" });
const lost = await laptop.until("send_error for the unknown to", (d) => d.sendErrors.find((e) => e.messageId === lostId));
expect(lost.code === "DEVICE_NOT_FOUND", "unknown to: " + JSON.stringify(lost));
const twin = new Device(laptop.deviceId);
reg = await twin.connect();
expect(reg.success === false && /in use/i.test(reg.error ?? ""), "second socket on the id: " + JSON.stringify(reg));
twin.close();
const stranger = new Device("sdk-stranger");
expect((await stranger.connect()).success === true, "stranger registered");
let r = await stranger.request("listSessions", {});
expect(r.ok === false && r.error.code === "UNAUTHORIZED" && r.error.message, "unverified request: " + JSON.stringify(r));
r = await stranger.verify("ahp_" + "x".repeat(32));
expect(r.ok === false && r.error.code === "UNAUTHORIZED", "verify with a wrong token: " + JSON.stringify(r));
stranger.close();

// 5. A read-only device watches but may not submit.
const phone = new Device("sdk-phone");
expect((await phone.connect()).success === true, "phone registered");
const phoneVerify = phone.verify(await sync("pair read-only"));
await sync("allow " + phone.deviceId);
v = await phoneVerify;
expect(v.ok === true && v.payload.rights === "read-only", "read-only verify: " + JSON.stringify(v));
await phone.must("getAgentMessages", { agentId: session.session_id });
r = await phone.request("submitTurn", { agentId: session.session_id, content: "not allowed" });
expect(r.ok === false && r.error.code === "FORBIDDEN", "read-only submit: " + JSON.stringify(r));
phone.close();

// 6. A new connection: verify again with the same token, resume from a cursor.
laptop.close();
// The gateway frees the id once it has seen the old socket go: until then
// a new one is refused as a second socket, and the client tries again (the
// SDK's reconnection does the same).
let again;
for (let tries = 0; ; tries++) {
  again = new Device(laptop.deviceId);
  reg = await again.connect();
  if (reg.success === true) break;
  again.close();
  expect(/in use/i.test(reg.error ?? "") && tries < 50, "re-register: " + JSON.stringify(reg));
  await new Promise((r) => setTimeout(r, 100));
}
v = await again.verify(laptopToken);
expect(v.ok === true && v.payload.isNewDevice === false, "second verify: " + JSON.stringify(v));
const cursor = ids[1];
const resumed = await again.must("subscribe", { agentId: session.session_id, since: cursor });
const replay = await streamUntilEnd(again, resumed.subscriptionId);
// Seed 000 withholds a message_update until its interval passed (by the
// events' times), and a resumed stream first reopens the open message at
// the cursor (a frame carrying the cursor's id): so the frames differ from
// the live ones, the events do not — nothing before the cursor again,
// each event once, in order, ending where the live stream ended, with the
// same answer. (The canonical dialect's exact id-for-id replay is
// TestGatewayHubKilledMidStream's and TestGatewayClientOffline's.)
const rids = replay.map((f) => f.eventId);
expect(rids.every((id, i) => id >= cursor && (i === 0 || id > rids[i - 1])), `replay after ${cursor}: ${rids.join(" ")}`);
expect(rids[rids.length - 1] === ids[ids.length - 1], `replay ends at ${rids[rids.length - 1]}, the live stream at ${ids[ids.length - 1]}`);
expect(textOf(replay[replay.length - 1].event.message) === streamed, "replayed answer differs");
again.close();
console.log("E2E OK");
process.exit(0);
