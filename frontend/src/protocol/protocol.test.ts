import { describe, expect, it } from "vitest";
import fixture from "./wire-fixture.json";
import {
  BLOCK_SPECS,
  EVENT_TYPES,
  MESSAGE_SPEC,
  PAYLOAD_SPECS,
  QUEUED_TURN_SPEC,
  SESSION_SPEC,
  TURN_ERROR_SPEC,
  PERMISSION_RULE_SPEC,
  RETRIES_SPEC,
  TOOL_APPROVAL_SPEC,
  EDIT_CONTEXT_SPEC,
  TURN_OUTCOME_SPEC,
  USAGE_SPEC,
  ENVELOPE_SPEC,
  decodeServerFrame,
  isKnownEvent,
  parseFieldSpec,
  type FieldSpec,
} from "./index";

type Obj = Record<string, unknown>;

function sortedKeys(o: unknown): string[] {
  return Object.keys(o as Obj).sort();
}

function specKeys(spec: Record<string, FieldSpec>): string[] {
  return Object.keys(spec).sort();
}

/** Asserts obj has exactly spec's keys, and recurses into nested records. */
function expectExact(spec: Record<string, FieldSpec>, obj: unknown, where: string): void {
  expect(sortedKeys(obj), where).toEqual(specKeys(spec));
  for (const [k, fs] of Object.entries(spec)) {
    const { kind } = parseFieldSpec(fs);
    const v = (obj as Obj)[k];
    if (kind === "usage") expectExact(USAGE_SPEC, v, `${where}.${k}`);
    if (kind === "session") expectExact(SESSION_SPEC, v, `${where}.${k}`);
    if (kind === "turn-outcome") expectExact(TURN_OUTCOME_SPEC, v, `${where}.${k}`);
    if (kind === "turn-error") expectExact(TURN_ERROR_SPEC, v, `${where}.${k}`);
    if (kind === "permission-rule") expectExact(PERMISSION_RULE_SPEC, v, `${where}.${k}`);
    if (kind === "retries") expectExact(RETRIES_SPEC, v, `${where}.${k}`);
    if (kind === "tool-approval") expectExact(TOOL_APPROVAL_SPEC, v, `${where}.${k}`);
    if (kind === "edit-context") expectExact(EDIT_CONTEXT_SPEC, v, `${where}.${k}`);
    if (kind === "queued-turns" && Array.isArray(v)) for (const [i, q] of v.entries()) expectExact(QUEUED_TURN_SPEC, q, `${where}.${k}[${i}]`);
    if (kind === "blocks") {
      for (const [i, b] of (v as Obj[]).entries()) {
        const t = b.type as keyof typeof BLOCK_SPECS;
        expect(BLOCK_SPECS[t], `${where}.${k}[${i}] type ${String(t)}`).toBeDefined();
        expectExact(BLOCK_SPECS[t], b, `${where}.${k}[${i}]`);
      }
    }
  }
}

describe("wire fixture vs TS types", () => {
  const events = fixture.events as Obj[];

  it("has exactly one sample per known event type", () => {
    expect(events.map((e) => e.type).sort()).toEqual([...EVENT_TYPES].sort());
  });

  for (const e of fixture.events as Obj[]) {
    it(`${String(e.type)}: envelope and payload keys match both ways`, () => {
      expectExact(ENVELOPE_SPEC, e, "envelope");
      const spec: Record<string, FieldSpec> = PAYLOAD_SPECS[e.type as keyof typeof PAYLOAD_SPECS];
      expectExact(spec, e.payload, String(e.type));
      const f = decodeServerFrame({ type: "event", event: e });
      expect(f.type).toBe("event");
      if (f.type === "event") expect(isKnownEvent(f.event)).toBe(true);
    });
  }

  it("message and session records match", () => {
    expectExact(MESSAGE_SPEC, fixture.message, "message");
    expectExact(SESSION_SPEC, fixture.session, "session");
  });

  it("event ids are ULIDs in increasing order", () => {
    const ids = events.map((e) => e.id as string);
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
  });
});

describe("decodeServerFrame", () => {
  it("never throws on junk", () => {
    const junk: unknown[] = [
      "not json{",
      "null",
      "[]",
      "42",
      null,
      undefined,
      { type: 7 },
      { type: "event" },
      { type: "event", event: { id: 1 } },
      { type: "snapshot" },
      { type: "snapshot", snapshot_at_event_id: "x", session: {}, messages: [] },
      { type: "response", requestId: "r1" },
      { type: "subscribe_error" },
      { type: "warp_drive" },
    ];
    for (const j of junk) expect(decodeServerFrame(j).type).toBe("unknown");
  });

  it("turns an unknown event type into an UnknownEvent, not a failure", () => {
    const e = { ...(fixture.events[0] as Obj), type: "made.up.thing", payload: { x: 1 } };
    const f = decodeServerFrame(JSON.stringify({ type: "event", event: e }));
    expect(f.type).toBe("event");
    if (f.type === "event") expect(isKnownEvent(f.event)).toBe(false);
  });

  it("treats a known type with a malformed payload as unknown", () => {
    const e = { ...(fixture.events[0] as Obj), payload: { user_message_id: 5 } };
    const f = decodeServerFrame({ type: "event", event: e });
    expect(f.type === "event" && !isKnownEvent(f.event)).toBe(true);
  });

  it("fills omitempty content block fields", () => {
    const e = {
      ...(fixture.events[fixture.events.length - 1] as Obj),
      payload: { message_id: "m", stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 2, cost_usd: 0 }, final_content: [{ type: "text" }, { type: "toolCall", id: "t", name: "n" }, { type: "hologram" }] },
    };
    const f = decodeServerFrame({ type: "event", event: e });
    expect(f.type).toBe("event");
    if (f.type === "event" && isKnownEvent(f.event) && f.event.type === "message.complete") {
      expect(f.event.payload.final_content).toEqual([
        { type: "text", text: "" },
        { type: "toolCall", id: "t", name: "n", arguments: {} },
      ]);
    } else {
      throw new Error("not decoded as message.complete");
    }
  });

  it("decodes RPC responses both ways", () => {
    expect(decodeServerFrame({ type: "response", requestId: "r1", ok: true, payload: { a: 1 } })).toEqual({
      type: "response",
      requestId: "r1",
      ok: true,
      payload: { a: 1 },
    });
    expect(decodeServerFrame({ type: "response", requestId: "r2", ok: false, error: { code: "AGENT_NOT_FOUND", message: "no" } })).toEqual({
      type: "response",
      requestId: "r2",
      ok: false,
      error: { code: "AGENT_NOT_FOUND", message: "no" },
    });
  });
});
