// AG-UI end to end with the stock @ag-ui/client HttpAgent (unmodified, its
// event verification on) against the real headless binary's POST /ag-ui,
// written from docs/protocol.md "AG-UI". Every event is also validated with
// @ag-ui/core's schemas. Scenarios (the Go side scripts the fake provider
// in the same order, see agui_test.go): three runs on one thread (plain
// text with reasoning; a tool call; plain again) and a fresh client on that
// thread — ids, order and newMessages checked against the hub's history
// each time; a delegation on a thread that is a session id; an abort
// mid-text that cancels the turn; a provider error; a stream that breaks
// twice and is retried.
import { randomUUID } from "node:crypto";
import { closeInput, expect, fail, frontendRequire, sync } from "./nodeclient.mjs";

const { HttpAgent } = frontendRequire("@ag-ui/client");
const { EventSchemas } = frontendRequire("@ag-ui/core/schemas");

const page = new URL(process.env.E2E_URL);
const token = page.searchParams.get("token");
const base = page.origin;
const auth = { Authorization: `Bearer ${token}` };

/** Runs one AG-UI run; returns the events (each schema-checked), the agent, newMessages and the ids it held before. */
async function run(name, threadId, text, { abortOn, agent } = {}) {
  agent ??= new HttpAgent({ url: `${base}/ag-ui`, headers: auth, threadId });
  agent.addMessage({ id: randomUUID(), role: "user", content: text });
  const before = new Set(agent.messages.map((m) => m.id));
  const events = [];
  let error, newMessages;
  try {
    ({ newMessages } = await agent.runAgent(
      { runId: randomUUID() },
      {
        onEvent({ event }) {
          const parsed = EventSchemas.safeParse(event);
          if (!parsed.success) fail(`${name}: ${event.type} does not match @ag-ui/core's schema: ${parsed.error.message}`);
          events.push(event);
          if (abortOn && event.type === abortOn) agent.abortRun();
        },
      },
    ));
  } catch (e) {
    error = e;
  }
  const types = events.map((e) => e.type);
  console.log(`${name}: ${types.join(" ")}${error ? " (error: " + error.message + ")" : ""}`);
  return { events, types, agent, error, newMessages: newMessages ?? [], before };
}

const textOf = (events) => events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");

async function api(path, init = {}) {
  const r = await fetch(base + path, { ...init, headers: { ...auth, "Content-Type": "application/json", ...(init.headers ?? {}) } });
  if (!r.ok) fail(`${init.method ?? "GET"} ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

// The session the hub created for a thread id (remembered as agui_thread_id).
async function sessionOf(threadId) {
  const list = await api("/sessions");
  const sessions = Array.isArray(list) ? list : list.sessions;
  const s = sessions.find((x) => x.agui_thread_id === threadId);
  expect(s, `no session remembers thread ${threadId}`);
  return s;
}

/** The AG-UI message ids the hub's history of session sid stands for, in order (docs/protocol.md §8). */
async function historyIds(sid) {
  const h = await api(`/sessions/${sid}/messages?limit=500`);
  const ids = [];
  for (const m of h.messages) {
    if (m.role === "assistant" && m.content.some((b) => b.type === "thinking")) ids.push(`${m.id}:reasoning`);
    ids.push(m.role === "toolResult" ? `result:${m.tool_call_id}` : m.id);
  }
  return ids;
}

/**
 * The client shows the thread as the hub stored it (ids, in order), and the
 * run reported only what it added (a fresh client's history is new to it:
 * pass fresh).
 */
async function sameAsHistory(name, r, sid, fresh = false) {
  const want = await historyIds(sid);
  const got = r.agent.messages.map((m) => m.id);
  expect(JSON.stringify(got) === JSON.stringify(want), `${name}: the client holds\n  ${got.join(" ")}\nthe hub's history is\n  ${want.join(" ")}`);
  for (const m of fresh ? [] : r.newMessages) {
    expect(!r.before.has(m.id), `${name}: newMessages re-reports ${m.role} ${m.id}`);
    expect(m.role !== "user", `${name}: newMessages holds a user message ${m.id}`);
  }
}

// 1. Plain text with reasoning on a new thread (a random UUID, as HttpAgent sends).
const thread = randomUUID();
const plain = await run("plain", thread, "Say hello");
expect(!plain.error, "plain: the run failed");
expect(plain.types[0] === "RUN_STARTED" && plain.types.at(-1) === "RUN_FINISHED", "plain: not RUN_STARTED … RUN_FINISHED");
expect(!plain.types.includes("MESSAGES_SNAPSHOT"), "plain: a new thread has no history to snapshot");
expect(plain.types.includes("REASONING_MESSAGE_CONTENT"), "plain: thinking did not stream as reasoning");
expect(textOf(plain.events) === "Hello from Agent Hub.", `plain: text ${JSON.stringify(textOf(plain.events))}`);
const runId = plain.events[0].runId;
const s1 = await sessionOf(thread);
const hist = await api(`/sessions/${s1.session_id}/messages`);
const turnIds = hist.messages.filter((m) => m.turn).map((m) => m.turn.id);
expect(turnIds.includes(runId), `plain: runId ${runId} is not the turn (${turnIds})`);
const answer = plain.agent.messages.find((m) => m.role === "assistant");
expect(answer && answer.content === "Hello from Agent Hub.", "plain: HttpAgent's messages lack the answer");

await sameAsHistory("plain", plain, s1.session_id);

// 2. A second run on the same thread: history first, then a tool call and its result.
const tools = await run("tools", thread, "Run echo", { agent: plain.agent });
expect(!tools.error, "tools: the run failed");
expect(tools.types[1] === "MESSAGES_SNAPSHOT" && tools.types[2] !== "MESSAGES_SNAPSHOT", "tools: not one MESSAGES_SNAPSHOT second");
const snap = tools.events[1].messages;
expect(
  snap.length === 4 && snap[0].content === "Say hello" && snap[1].role === "reasoning" && snap[1].content === "The user wants a greeting." && snap[3].content === "Run echo",
  `tools: snapshot ${JSON.stringify(snap)}`,
);
for (const t of ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT"]) expect(tools.types.includes(t), `tools: no ${t}`);
const start = tools.events.find((e) => e.type === "TOOL_CALL_START");
expect(start.toolCallName === "bash" && start.parentMessageId, "tools: TOOL_CALL_START lacks the tool name or parent message");
const result = tools.events.find((e) => e.type === "TOOL_CALL_RESULT");
expect(result.content.includes("agui-tool-output"), `tools: result ${JSON.stringify(result.content)}`);
expect(textOf(tools.events).endsWith("The command printed agui-tool-output."), "tools: final text");
const call = tools.agent.messages.find((m) => m.role === "assistant" && m.toolCalls?.length);
expect(call && JSON.parse(call.toolCalls[0].function.arguments).command === "echo agui-tool-output", "tools: HttpAgent did not rebuild the call");
await sameAsHistory("tools", tools, s1.session_id);

// 3. A third run on the thread.
const third = await run("third", thread, "Once more", { agent: plain.agent });
expect(!third.error && textOf(third.events) === "Third answer.", "third: the run failed");
await sameAsHistory("third", third, s1.session_id);

// A fresh client on the thread sees it as the first one does: the same ids
// in the same order, reasoning included (MESSAGES_SNAPSHOT), then its own run.
const fresh = await run("fresh", thread, "I am new here");
expect(!fresh.error && textOf(fresh.events) === "Fresh client answer.", "fresh: the run failed");
await sameAsHistory("fresh", fresh, s1.session_id, true);
expect(!fresh.newMessages.some((m) => fresh.before.has(m.id)), "fresh: newMessages re-reports its own message");
const firstView = new Map(plain.agent.messages.map((m) => [m.id, JSON.stringify(m.content ?? null)]));
for (const m of fresh.agent.messages) {
  if (firstView.has(m.id)) expect(firstView.get(m.id) === JSON.stringify(m.content ?? null), `fresh: ${m.role} ${m.id} reads ${JSON.stringify(m.content)}, the first client ${firstView.get(m.id)}`);
}
expect(fresh.agent.messages.some((m) => m.role === "reasoning" && m.content === "The user wants a greeting."), "fresh: the first run's reasoning is missing");

// 3. Delegation on a thread that is a session id.
const created = await api("/sessions", { method: "POST", body: JSON.stringify({ title: "ag-ui delegation" }) });
const deleg = await run("delegation", created.session_id, "Delegate it");
expect(!deleg.error, "delegation: the run failed");
const stepStart = deleg.events.find((e) => e.type === "STEP_STARTED");
const stepEnd = deleg.events.find((e) => e.type === "STEP_FINISHED");
expect(stepStart && stepEnd && stepStart.stepName === stepEnd.stepName && stepStart.stepName.startsWith("delegate:"), "delegation: no delegate step");
expect(deleg.types.indexOf("STEP_STARTED") < deleg.types.indexOf("STEP_FINISHED"), "delegation: step order");
expect(textOf(deleg.events).includes("The worker counted 3 files."), "delegation: final text");
const after = await api("/sessions");
expect(!(Array.isArray(after) ? after : after.sessions).some((x) => x.agui_thread_id === created.session_id), "delegation: a session id thread created a session");

// 4. Abort mid-text: the client owns the run; the turn ends cancelled. (The
// Go side waits on the hub's event stream for the turn's end: no polling.)
const abortThread = "0190a0e4-7b3c-7000-8000-0000000000ab";
const aborted = await run("abort", abortThread, "Count slowly", { abortOn: "TEXT_MESSAGE_CONTENT" });
expect(aborted.types.includes("TEXT_MESSAGE_CONTENT"), "abort: no text before the abort");
const settled = await sync("abort-settled");
expect(settled === "turn.cancelled", `abort: the turn ended with ${settled}, want turn.cancelled`);
const s4 = await sessionOf(abortThread);
const h4 = await api(`/sessions/${s4.session_id}/messages`);
const status = h4.messages.find((m) => m.role === "user")?.turn?.status;
expect(status === "cancelled", `abort: the turn is ${status}, want cancelled`);

// 5. A provider error ends the run with RUN_ERROR.
const failed = await run("error", randomUUID(), "This fails");
expect(failed.types[0] === "RUN_STARTED" && failed.types.at(-1) === "RUN_ERROR", "error: not RUN_STARTED … RUN_ERROR");
const runError = failed.events.at(-1);
expect(runError.message && runError.code === "auth", `error: ${JSON.stringify(runError)}`);

// 6. A stream that breaks twice and is retried is one assistant message: the
// partials are replaced, not kept beside the answer, and no tool call of a
// broken attempt is left pending.
const retried = await run("retried", randomUUID(), "Try hard");
expect(!retried.error, "retried: the run failed");
const shown = retried.agent.messages.map((m) => `${m.role}:${typeof m.content === "string" ? m.content : ""}`);
expect(JSON.stringify(shown) === JSON.stringify(["user:Try hard", "assistant:The retried answer."]), `retried: the client shows ${JSON.stringify(shown)}`);
await sameAsHistory("retried", retried, (await sessionOf(retried.agent.threadId)).session_id);

// 7. Bad requests are refused before any stream.
const bad = await fetch(`${base}/ag-ui`, { method: "POST", headers: { ...auth, Accept: "text/event-stream" }, body: JSON.stringify({ threadId: "t", messages: [] }) });
expect(bad.status === 400, `empty messages: ${bad.status}`);
const noAuth = await fetch(`${base}/ag-ui`, { method: "POST", headers: { Accept: "text/event-stream" }, body: "{}" });
expect(noAuth.status === 401 || noAuth.status === 403, `no token: ${noAuth.status}`);

closeInput(); // lets node exit
console.log("E2E OK");
