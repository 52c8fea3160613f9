import { describe, expect, it } from "vitest";
import { decodeServerFrame, type ServerFrame } from "../protocol";
import { TRACES } from "../state/traces";
import { newestTopLevel } from "../state";
import { AppController } from "./controller";
import { FakeHub, ScriptedTransport, manualScheduler, session } from "../testing/fakes";
import { wire } from "../testing/frames";
import { exportFileName } from "./ExportMenu";
import { settingsPatch } from "./settings/SettingsDialog";
import { filterSessions, nestSessions } from "./Sidebar";

function setup(frames: (id: string) => ServerFrame[] = () => []) {
  const hub = new FakeHub();
  const transports: ScriptedTransport[] = [];
  const clock = manualScheduler();
  const selected: (string | null)[] = [];
  const ctl = new AppController({
    hub,
    transport: () => {
      const t = new ScriptedTransport(frames);
      transports.push(t);
      return t;
    },
    schedule: clock.schedule,
    pollMs: 0,
    onSelect: (id) => selected.push(id),
  });
  return { hub, ctl, transports, clock, selected };
}

const plain = TRACES["plain-turn"]!;

/** The plain trace's stream for its own session, nothing for any other. */
const plainFrames = (id: string): ServerFrame[] => (id === plain.sessionId ? plain.frames : []);

/** setup() over plainFrames, started and ticked once; listCalls counts the listSessions calls so far. */
async function startedPlain(sessions: ReturnType<typeof session>[]) {
  const s = setup(plainFrames);
  s.hub.sessions = sessions;
  await s.ctl.start(null);
  s.clock.tick();
  const listCalls = () => s.hub.calls.filter((c) => c[0] === "listSessions").length;
  return { ...s, listCalls };
}

type EventFields = { id: string; type: string; session_id: string; turn_id: string | null; actor: string; payload: Record<string, unknown> };

/** An event frame stamped 2026-05-08T15:00:00Z, decoded as a transport hands it over. */
function liveEvent(event: EventFields): ServerFrame {
  return wire({ type: "event", event: { ...event, ts: "2026-05-08T15:00:00Z" } });
}

describe("AppController", () => {
  it("opens the newest top-level session and applies its frames once per frame", async () => {
    const { hub, ctl, transports, clock, selected } = setup(plainFrames);
    hub.sessions = [
      session("old", { created_at: "2026-01-01T00:00:00Z" }),
      session(plain.sessionId, { created_at: "2026-05-08T14:00:00Z" }),
      session("worker", { created_at: "2026-06-01T00:00:00Z", parent_session_id: plain.sessionId }),
    ];
    await ctl.start(null);
    let notifications = 0;
    ctl.store.subscribe(() => notifications++);
    expect(selected).toEqual([plain.sessionId]);
    expect(transports).toHaveLength(1);
    expect(ctl.store.getState().chat[plain.sessionId]).toBeUndefined(); // queued, not applied yet
    clock.tick();
    const s = ctl.store.getState().chat[plain.sessionId]!;
    expect(s.connection).toBe("connected");
    expect(s.order.length).toBe(2);
    expect(s.turn.running).toBe(false);
    expect(notifications).toBe(1); // 23 frames + states → one store update
    ctl.dispose();
    expect(transports[0]!.closed).toBe(true);
  });

  it("resumes a reopened session from its cursor", async () => {
    const { hub, ctl, transports, clock } = setup(plainFrames);
    hub.sessions = [session(plain.sessionId), session("b", { created_at: "2020-01-01T00:00:00Z" })];
    await ctl.start(plain.sessionId);
    clock.tick();
    ctl.open("b");
    expect(transports[0]!.closed).toBe(true);
    ctl.open(plain.sessionId);
    const last = plain.frames.at(-1)!;
    expect(transports[2]!.cursor).toBe(last.type === "event" ? last.event.id : null);
  });

  it("sends, shows a queued submission, and cancels the running turn", async () => {
    const startIdx = plain.frames.findIndex((f) => f.type === "event" && f.event.type === "turn.started");
    const { hub, ctl, clock } = setup(() => plain.frames.slice(0, startIdx + 1));
    hub.sessions = [session(plain.sessionId)];
    await ctl.start(null);
    clock.tick();
    const running = ctl.store.getState().chat[plain.sessionId]!;
    expect(running.turn.running).toBe(true);
    hub.submitQueued = true;
    await ctl.send("next please");
    expect(hub.calls).toContainEqual(["submitTurn", plain.sessionId, "next please"]);
    expect(ctl.store.getState().chat[plain.sessionId]!.turn.queued.map((q) => q.content)).toEqual(["next please"]);
    await ctl.cancel();
    expect(hub.calls).toContainEqual(["cancelTurn", plain.sessionId, running.turn.currentTurnId]);
  });

  it("applies session.updated / session.created of the subscribed stream to the list at once", async () => {
    const { hub, ctl, transports, clock, listCalls } = await startedPlain([
      session(plain.sessionId, { title: "" }),
      session("other", { created_at: "2020-01-01T00:00:00Z" }),
    ]);
    const before = listCalls();
    let n = 0;
    const ev = (type: string, rec: ReturnType<typeof session>, extra: Record<string, unknown> = {}): ServerFrame =>
      liveEvent({ id: `01KZ${String(++n).padStart(22, "0")}`, type, session_id: rec.session_id, turn_id: null, actor: "agent", payload: { session: rec, ...extra } });
    const t = transports[0]!;
    t.push(ev("session.updated", session(plain.sessionId, { title: "Live title", current_turn_id: "T9" })));
    t.push(ev("session.created", session("worker1", { parent_session_id: plain.sessionId, created_at: "2026-06-01T00:00:00Z", current_turn_id: "W1" })));
    clock.tick();
    const list = ctl.store.getState().sessions.records;
    expect(list.find((s) => s.session_id === plain.sessionId)?.title).toBe("Live title");
    expect(list.find((s) => s.session_id === plain.sessionId)?.current_turn_id).toBe("T9");
    expect(list.find((s) => s.session_id === "worker1")?.current_turn_id).toBe("W1");
    expect(listCalls()).toBe(before); // no poll needed

    // A list answer older than a live record does not undo it.
    hub.sessions = [session(plain.sessionId, { title: "stale" }), session("other", { created_at: "2020-01-01T00:00:00Z" })];
    const pending = ctl.refreshSessions();
    t.push(ev("session.updated", session(plain.sessionId, { title: "Newer" })));
    clock.tick();
    await pending;
    expect(ctl.store.getState().sessions.records.find((s) => s.session_id === plain.sessionId)?.title).toBe("Newer");
    expect(ctl.store.getState().sessions.records.map((s) => s.session_id)).not.toContain("worker1"); // the list is authoritative for others

    t.push(ev("session.updated", session("other"), { deleted: true }));
    clock.tick();
    expect(ctl.store.getState().sessions.records.map((s) => s.session_id)).toEqual([plain.sessionId]);
    ctl.dispose();
  });

  it("lists a worker under its parent as soon as delegate.started arrives, then re-reads the list", async () => {
    const { hub, ctl, transports, clock, listCalls } = await startedPlain([session(plain.sessionId)]);
    const before = listCalls();
    const started = liveEvent({
      id: "01KZ0000000000000000000077",
      type: "delegate.started",
      session_id: plain.sessionId,
      turn_id: "T1",
      actor: "agent",
      payload: { tool_use_id: "tu1", worker_session_id: "w-new", task: "Audit the parser\nand report", depth: 1, status_text: "Delegating", summary: "" },
    });
    // The hub has not listed the worker yet when the list is re-read.
    transports[0]!.push(started);
    expect(listCalls()).toBe(before + 1); // at once, before the frame is applied
    clock.tick();
    const placeholder = ctl.store.getState().sessions.records.find((s) => s.session_id === "w-new");
    const parent = ctl.store.getState().sessions.records.find((s) => s.session_id === plain.sessionId)!;
    expect(placeholder).toMatchObject({ parent_session_id: plain.sessionId, title: "Audit the parser", workspace_path: parent.workspace_path, depth: 1 });
    await ctl.refreshSessions();
    expect(ctl.store.getState().sessions.records.map((s) => s.session_id)).toContain("w-new"); // kept until listed
    const nested = nestSessions(ctl.store.getState().sessions.records);
    expect(JSON.stringify(nested)).toContain("w-new");

    // Once the hub lists it, its real record replaces the placeholder; a replayed event adds nothing.
    hub.sessions.push(session("w-new", { parent_session_id: plain.sessionId, title: "Worker: audit", created_at: "2026-05-08T15:00:01Z" }));
    await ctl.refreshSessions();
    transports[0]!.push(started);
    clock.tick();
    expect(ctl.store.getState().sessions.records.filter((s) => s.session_id === "w-new").map((s) => s.title)).toEqual(["Worker: audit"]);
    ctl.dispose();
  });

  it("re-reads the session list after compaction.completed (the cost changed without a session.updated)", async () => {
    const { hub, ctl, transports, listCalls } = await startedPlain([session(plain.sessionId)]);
    const before = listCalls();
    const done = liveEvent({
      id: "01KZ0000000000000000000088",
      type: "compaction.completed",
      session_id: plain.sessionId,
      turn_id: null,
      actor: "system",
      payload: { removed: 3, kept: 1, tokensRemoved: 900, tokensKept: 10, reason: "summary", context_start_offset: 4 },
    });
    hub.sessions = [session(plain.sessionId, { cost_so_far_usd: 0.0192 })];
    transports[0]!.push(done);
    expect(listCalls()).toBe(before + 1);
    await ctl.refreshSessions(); // settles after the triggered read, which saw the same record
    expect(ctl.store.getState().sessions.records[0]?.cost_so_far_usd).toBe(0.0192);
    ctl.dispose();
  });

  it("exports the open session through exportSession; failures become a notice", async () => {
    const { hub, ctl } = setup();
    hub.sessions = [session("a", { title: "Fix: the flaky test!" })];
    await ctl.start(null);
    const md = await ctl.exportOpen("markdown");
    expect(hub.calls).toContainEqual(["exportSession", "a", "markdown"]);
    expect(md?.content).toContain("# Fix: the flaky test!");
    expect(exportFileName("Fix: the flaky test!", "markdown")).toBe("fix-the-flaky-test.md");
    expect(exportFileName("¿?", "json")).toBe("session.json");
    hub.sessions = [];
    expect(await ctl.exportOpen("json")).toBeNull();
    expect(ctl.store.getState().ui.notice).toMatch(/Could not export/);
  });

  it("creates, renames and deletes sessions; deleting the open one opens the next", async () => {
    const { hub, ctl, selected } = setup();
    hub.sessions = [session("a", { created_at: "2026-01-01T00:00:00Z" })];
    await ctl.start(null);
    const created = await ctl.newSession();
    expect(ctl.store.getState().ui.selectedId).toBe(created!.session_id);
    await ctl.rename("a", "  Renamed  ");
    expect(hub.calls).toContainEqual(["renameSession", "a", "Renamed"]);
    expect(ctl.store.getState().sessions.records.find((s) => s.session_id === "a")?.title).toBe("Renamed");
    await ctl.remove(created!.session_id);
    expect(ctl.store.getState().sessions.records.map((s) => s.session_id)).toEqual(["a"]);
    expect(selected.at(-1)).toBe("a");
  });

  it("loads older history before the oldest loaded message", async () => {
    const snap = decodeServerFrame({
      type: "snapshot",
      session: { ...session(plain.sessionId), id: plain.sessionId, current_turn_id: null },
      messages: [
        { id: "m10", session_id: plain.sessionId, offset: 10, role: "user", content: [{ type: "text", text: "hi" }], status: "complete", created_at: "2026-05-08T14:00:00Z" },
        { id: "m11", session_id: plain.sessionId, offset: 11, role: "assistant", content: [{ type: "text", text: "hello" }], status: "complete", created_at: "2026-05-08T14:00:01Z" },
      ],
      snapshot_at_event_id: "01KR400N7D06HNAH2SC2M8MCKK",
      epoch: "ep1",
    });
    expect(snap.type).toBe("snapshot");
    const { hub, ctl, clock } = setup(() => [snap as ServerFrame]);
    hub.sessions = [session(plain.sessionId)];
    hub.history = [{ id: "older", role: "user", content: "hello from before", offset: 9 } as never];
    await ctl.start(null);
    clock.tick();
    const before = ctl.store.getState().chat[plain.sessionId]!;
    expect(before.hasMoreHistory).toBe(true);
    await ctl.loadOlder();
    expect(hub.calls).toContainEqual(["messagesBefore", plain.sessionId, before.order[0], 100]);
    const after = ctl.store.getState().chat[plain.sessionId]!;
    expect(after.order[0]).toBe("older");
    expect(after.hasMoreHistory).toBe(false);
  });

  it("settles once the open session is connected and idle", async () => {
    const { hub, ctl, clock } = setup(() => plain.frames);
    hub.sessions = [session(plain.sessionId)];
    const settled = ctl.settled(60_000);
    await ctl.start(null);
    clock.tick();
    await settled;
    expect(ctl.store.getState().chat[plain.sessionId]!.turn.running).toBe(false);
  });
});

describe("sessions list", () => {
  it("nests workers under their parent and filters by title", () => {
    const rows = nestSessions([session("p", { title: "Parent" }), session("w", { title: "Worker task", parent_session_id: "p" }), session("q", { title: "Other" })]);
    expect(rows.map((r) => [r.session.session_id, r.depth])).toEqual([["p", 0], ["w", 1], ["q", 0]]);
    expect(filterSessions(rows, "WORK").map((r) => r.session.session_id)).toEqual(["w"]);
    expect(filterSessions(rows, " ")).toHaveLength(3);
    expect(newestTopLevel([session("a", { created_at: "2026-01-02T00:00:00Z", parent_session_id: "b" }), session("b")])?.session_id).toBe("b");
  });
});

describe("settingsPatch", () => {
  it("sends changed fields and secrets only when typed", () => {
    const before = { provider: "anthropic", anthropic_api_key: "sk-…abcd", openai_base_url: "" };
    expect(settingsPatch(before, { ...before }, { anthropic: "", openai: "" })).toEqual({});
    expect(settingsPatch(before, { ...before, openai_base_url: " http://127.0.0.1:11434/v1 ", dashboard_enabled: true }, { anthropic: "", openai: "" })).toEqual({
      openai_base_url: "http://127.0.0.1:11434/v1",
      dashboard_enabled: true,
    });
    expect(settingsPatch(before, before, { anthropic: "sk-new", openai: "" })).toEqual({ anthropic_api_key: "sk-new" });
  });
});
