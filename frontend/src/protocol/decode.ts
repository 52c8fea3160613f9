// Decoding of untrusted wire JSON into typed frames. Never throws: anything it
// cannot type becomes an UnknownFrame (or, for a well-formed envelope with an
// unknown type or a malformed payload, an UnknownEvent the reducer skips).

import { isEventType, type AgentEvent, type KnownEvent, type MCPServerStatus, type ToolApprovalRequested, type UnknownEvent } from "./events";
import type { ServerFrame, UnknownFrame, HistoryMessage } from "./frames";
import type { ContentBlock, ImageSource, Message, PermissionRule } from "./records";
import {
  ENVELOPE_SPEC,
  IMAGE_SOURCE_SPEC,
  MESSAGE_SPEC,
  PAYLOAD_SPECS,
  PERMISSION_RULE_SPEC,
  QUEUED_TURN_SPEC,
  ATTACHED_FILE_SPEC,
  SESSION_SPEC,
  SKIPPED_FILE_SPEC,
  ABANDONED_TURN_SPEC,
  PLAN_SPEC,
  TODO_SPEC,
  SESSION_AGENT_SPEC,
  TURN_ERROR_SPEC,
  RETRIES_SPEC,
  TOOL_APPROVAL_SPEC,
  EDIT_CONTEXT_SPEC,
  TURN_OUTCOME_SPEC,
  USAGE_SPEC,
  parseFieldSpec,
  type FieldSpec,
  type Kind,
} from "./schema";

type Obj = Record<string, unknown>;

/** Reports whether v is a plain JSON object (not null, not an array). */
export function isObject(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkKind(kind: Kind, v: unknown): string | null {
  switch (kind) {
    case "string":
      return typeof v === "string" ? null : "want string";
    case "number":
      return typeof v === "number" && Number.isFinite(v) ? null : "want number";
    case "boolean":
      return typeof v === "boolean" ? null : "want boolean";
    case "json":
      return v === undefined ? "missing" : null;
    case "nullable-string":
      return v === null || typeof v === "string" ? null : "want string or null";
    case "string[]":
      return Array.isArray(v) && v.every((s) => typeof s === "string") ? null : "want string array";
    case "usage":
      return checkObject(USAGE_SPEC, v);
    case "session":
      return checkObject(SESSION_SPEC, v);
    case "queued-turns":
      return checkArray(QUEUED_TURN_SPEC, v, "queued turn");
    case "attachments":
      return checkArray(ATTACHED_FILE_SPEC, v, "attachment");
    case "abandoned-turns":
      return checkArray(ABANDONED_TURN_SPEC, v, "abandoned turn");
    case "skipped-files":
      return checkArray(SKIPPED_FILE_SPEC, v, "skipped file");
    case "todos":
      return checkArray(TODO_SPEC, v, "todo");
    case "plan":
      return checkObject(PLAN_SPEC, v);
    case "session-agent":
      return checkObject(SESSION_AGENT_SPEC, v);
    case "image-source":
      return checkObject(IMAGE_SOURCE_SPEC, v);
    case "turn-outcome":
      return checkObject(TURN_OUTCOME_SPEC, v);
    case "turn-error":
      return checkObject(TURN_ERROR_SPEC, v);
    case "permission-rule":
      return checkObject(PERMISSION_RULE_SPEC, v);
    case "retries":
      return checkObject(RETRIES_SPEC, v);
    case "tool-approval":
      return checkObject(TOOL_APPROVAL_SPEC, v);
    case "edit-context":
      return checkObject(EDIT_CONTEXT_SPEC, v);
    case "blocks":
      return Array.isArray(v) && v.every((b) => isObject(b) && typeof b.type === "string")
        ? null
        : "want content block array";
  }
}

/**
 * Checks v against a spec: every required key present with the right kind,
 * optional keys of the right kind when present. Extra keys are allowed
 * (forward compatibility). Returns a reason, or null when v conforms.
 */
export function checkObject(spec: Record<string, FieldSpec>, v: unknown): string | null {
  if (!isObject(v)) return "want object";
  for (const [key, fs] of Object.entries(spec)) {
    const { kind, optional } = parseFieldSpec(fs);
    const val = v[key];
    if (val === undefined || (optional && val === null)) {
      if (optional) continue;
      return `${key}: missing`;
    }
    const why = checkKind(kind, val);
    if (why !== null) return `${key}: ${why}`;
  }
  return null;
}

/** Checks v is an array of objects conforming to spec; name is what one element is called in the reason. */
function checkArray(spec: Record<string, FieldSpec>, v: unknown, name: string): string | null {
  if (!Array.isArray(v)) return `want ${name} array`;
  for (const x of v) {
    const why = checkObject(spec, x);
    if (why !== null) return `${name}: ${why}`;
  }
  return null;
}

/**
 * Normalises wire content blocks: Go omits empty fields (omitempty), so a
 * text block with empty text arrives as {"type":"text"}; fields are filled in
 * and blocks of unknown type are dropped.
 */
export function normaliseBlocks(raw: unknown): ContentBlock[] {
  if (typeof raw === "string") return [{ type: "text", text: raw }];
  if (!Array.isArray(raw)) return [];
  const out: ContentBlock[] = [];
  for (const b of raw) {
    if (!isObject(b)) continue;
    const str = (k: string): string => (typeof b[k] === "string" ? (b[k] as string) : "");
    switch (b.type) {
      case "text":
        out.push({ type: "text", text: str("text") });
        break;
      case "thinking": {
        const sig = str("signature");
        out.push(sig ? { type: "thinking", thinking: str("thinking"), signature: sig } : { type: "thinking", thinking: str("thinking") });
        break;
      }
      case "toolCall":
        out.push({
          type: "toolCall",
          id: str("id"),
          name: str("name"),
          arguments: isObject(b.arguments) ? b.arguments : {},
        });
        break;
      case "image":
        if (checkObject(IMAGE_SOURCE_SPEC, b.source) === null) {
          out.push({ type: "image", source: { ...(b.source as unknown as ImageSource), type: (b.source as Obj).type === "attachment" ? "attachment" : "base64" } });
        }
        break;
    }
  }
  return out;
}

function normaliseMessage(m: Obj): Message {
  return { ...(m as unknown as Message), content: normaliseBlocks(m.content) };
}

/** Decodes an event envelope. Returns null when the envelope itself is malformed. */
export function decodeEvent(raw: unknown): AgentEvent | null {
  if (checkObject(ENVELOPE_SPEC, raw) !== null) return null;
  const e = raw as Obj;
  const type = e.type as string;
  const base = {
    id: e.id as string,
    type,
    session_id: e.session_id as string,
    turn_id: e.turn_id as string | null,
    ts: e.ts as string,
    actor: e.actor as string,
    payload: e.payload,
  };
  if (!isEventType(type)) return { ...base, unknown: true } satisfies UnknownEvent;
  const spec: Record<string, FieldSpec> = PAYLOAD_SPECS[type];
  if (checkObject(spec, e.payload) !== null) return { ...base, unknown: true } satisfies UnknownEvent;
  const payload = { ...(e.payload as Obj) };
  if (type === "message.complete") payload.final_content = normaliseBlocks(payload.final_content);
  if (type === "session.created" || type === "session.updated") payload.session = { ...(payload.session as Obj) };
  return { ...base, payload } as unknown as KnownEvent;
}

/** Explains why an event was not decoded as known (for debug logs). */
export function explainEvent(raw: unknown): string {
  const env = checkObject(ENVELOPE_SPEC, raw);
  if (env !== null) return `envelope: ${env}`;
  const e = raw as Obj;
  const type = e.type as string;
  if (!isEventType(type)) return `unknown event type ${type}`;
  const spec: Record<string, FieldSpec> = PAYLOAD_SPECS[type];
  return `${type} payload: ${checkObject(spec, e.payload) ?? "ok"}`;
}

function unknownFrame(raw: unknown, reason: string): UnknownFrame {
  return { type: "unknown", raw, reason };
}

/**
 * Decodes one server frame from its JSON text or an already-parsed value.
 * Never throws; junk becomes an UnknownFrame carrying the reason.
 */
export function decodeServerFrame(input: unknown): ServerFrame | UnknownFrame {
  let raw = input;
  if (typeof input === "string") {
    try {
      raw = JSON.parse(input) as unknown;
    } catch {
      return unknownFrame(input, "not JSON");
    }
  }
  if (!isObject(raw)) return unknownFrame(raw, "not an object");
  const f = raw;
  const str = (k: string): boolean => typeof f[k] === "string";
  switch (f.type) {
    case "event": {
      const ev = decodeEvent(f.event);
      return ev ? { type: "event", event: ev } : unknownFrame(raw, `event ${explainEvent(f.event)}`);
    }
    case "ping":
    case "pong":
      return str("nonce") ? { type: f.type, nonce: f.nonce as string } : { type: f.type, nonce: "" };
    case "subscribe_ack":
      return {
        type: "subscribe_ack",
        resolved_filter: isObject(f.resolved_filter)
          ? (f.resolved_filter as never)
          : { event_types: null, actors: null, include_worker_sessions: false },
        since: str("since") ? (f.since as string) : null,
        snapshot: f.snapshot === true,
        replay_event_count: typeof f.replay_event_count === "number" ? f.replay_event_count : 0,
        ...(str("epoch") ? { epoch: f.epoch as string } : {}),
      };
    case "subscribe_error":
    case "error":
      return str("code")
        ? { type: f.type, code: f.code as string, message: str("message") ? (f.message as string) : "" }
        : unknownFrame(raw, `${f.type} without code`);
    case "snapshot": {
      if (!str("snapshot_at_event_id")) return unknownFrame(raw, "snapshot: snapshot_at_event_id missing");
      const why = checkObject(SESSION_SPEC, f.session);
      if (why !== null) return unknownFrame(raw, `snapshot session: ${why}`);
      if (!Array.isArray(f.messages)) return unknownFrame(raw, "snapshot: messages missing");
      const messages: Message[] = [];
      for (const m of f.messages) {
        const mwhy = checkObject(MESSAGE_SPEC, m);
        if (mwhy !== null) return unknownFrame(raw, `snapshot message: ${mwhy}`);
        messages.push(normaliseMessage(m as Obj));
      }
      return {
        type: "snapshot",
        session: f.session as never,
        messages,
        snapshot_at_event_id: f.snapshot_at_event_id as string,
        ...(str("epoch") ? { epoch: f.epoch as string } : {}),
      };
    }
    case "response": {
      if (!str("requestId") || typeof f.ok !== "boolean") return unknownFrame(raw, "response without requestId/ok");
      if (f.ok) return { type: "response", requestId: f.requestId as string, ok: true, payload: f.payload };
      const err = isObject(f.error) ? f.error : {};
      return {
        type: "response",
        requestId: f.requestId as string,
        ok: false,
        error: {
          code: typeof err.code === "string" ? err.code : "RPC_ERROR",
          message: typeof err.message === "string" ? err.message : "",
        },
      };
    }
    default:
      return unknownFrame(raw, `unknown frame type ${String(f.type)}`);
  }
}

/**
 * Decodes a history page message (getAgentMessages / GET messages): content
 * may be a string. Returns null when the message lacks an id or a role.
 */
export function decodeHistoryMessage(raw: unknown): HistoryMessage | null {
  if (!isObject(raw) || typeof raw.id !== "string") return null;
  if (raw.role !== "user" && raw.role !== "assistant" && raw.role !== "toolResult") return null;
  return { ...(raw as unknown as HistoryMessage), content: normaliseBlocks(raw.content) };
}

/** The elements of list that conform to spec (an RPC answer's list; the others are dropped). */
function conforming<T>(spec: Record<string, FieldSpec>, list: unknown): T[] {
  return Array.isArray(list) ? list.filter((x): x is T => checkObject(spec, x) === null) : [];
}

/**
 * Decodes the answer of listPendingApprovals ({approvals: [...]}, each a
 * tool.approval_requested payload): the requests still waiting, as of the answer.
 */
export function decodePendingApprovals(raw: unknown): ToolApprovalRequested[] {
  return conforming<ToolApprovalRequested>(PAYLOAD_SPECS["tool.approval_requested"], isObject(raw) ? raw.approvals : undefined);
}

/** Decodes the rules of a getPermissionRules / setPermissionRules answer. */
export function decodePermissionRules(raw: unknown): PermissionRule[] {
  return conforming<PermissionRule>(PERMISSION_RULE_SPEC, isObject(raw) ? raw.rules : undefined);
}

/** Decodes allow_git_writes of getPermissionRules, setPermissionRules and setGitWrites (false when absent). */
export function decodeGitWrites(raw: unknown): boolean {
  return isObject(raw) && raw.allow_git_writes === true;
}

/** Decodes the answer of listMcpServers ({servers: [...]}, each an mcp.server_status payload). */
export function decodeMCPServers(raw: unknown): MCPServerStatus[] {
  return conforming<MCPServerStatus>(PAYLOAD_SPECS["mcp.server_status"], isObject(raw) ? raw.servers : undefined);
}
