import { describe, expect, it } from "vitest";
import type { ServerFrame } from "../protocol";
import { TRACES } from "../state/traces";
import { attentionTitle, notificationsEnabled, NOTIFY_KEY, sessionWindowTitle } from "./attention";
import { folderName } from "./ChatPane";
import { AppController } from "./controller";
import { FakeHub, ScriptedTransport, manualScheduler, session } from "../testing/fakes";
import { modelOptions } from "./SessionOptions";
import { keyPlaceholder, settingsPatch, sourceText } from "./settings/SettingsDialog";
import { shortcutFor } from "./shortcuts";
import { queryWords } from "./Sidebar";

function setup(frames: (id: string) => ServerFrame[] = () => []) {
  const hub = new FakeHub();
  const clock = manualScheduler();
  const transports: ScriptedTransport[] = [];
  const transport = () => {
    const t = new ScriptedTransport(frames);
    transports.push(t);
    return t;
  };
  const ctl = new AppController({ hub, transport, schedule: clock.schedule, pollMs: 0 });
  return { hub, ctl, clock, transports };
}

const plain = TRACES["plain-turn"]!;

describe("a session is created by its first message", () => {
  it("New session stores nothing; the first message creates the session with the chosen model and folder, then submits", async () => {
    const { hub, ctl, clock, transports } = setup();
    await ctl.start(null);
    ctl.startDraft();
    ctl.startDraft();
    expect(hub.calls.filter((c) => c[0] === "createSession")).toHaveLength(0);
    expect(ctl.store.getState().ui).toMatchObject({ draft: true, selectedId: null });
    const sent = ctl.sendNew("hello", { model: " openai:llama3 ", workspace_path: "/p" });
    // The message is submitted once the new session's stream is attached (frames apply per frame tick).
    for (let i = 0; i < 20 && transports.length === 0; i++) await Promise.resolve();
    expect(hub.calls.some((c) => c[0] === "submitTurn")).toBe(false); // not before the stream is attached
    transports[0]!.setState("connected");
    clock.tick();
    expect(await sent).toBe(true);
    expect(hub.calls).toContainEqual(["createSession", { model: "openai:llama3", workspace_path: "/p" }]);
    const id = ctl.store.getState().ui.selectedId!;
    expect(hub.calls).toContainEqual(["submitTurn", id, "hello"]);
    expect(ctl.store.getState().ui.draft).toBe(false);
    ctl.dispose();
  });

  it("a refused creation is a notice and nothing is submitted", async () => {
    const { hub, ctl } = setup();
    await ctl.start(null);
    hub.createSession = () => Promise.reject(new Error('workspace "/nope" is not an existing directory: invalid input'));
    expect(await ctl.sendNew("hello", { workspace_path: "/nope" })).toBe(false);
    expect(ctl.store.getState().ui.notice).toContain("not an existing directory");
    expect(hub.calls.some((c) => c[0] === "submitTurn")).toBe(false);
    ctl.dispose();
  });
});

describe("search and the jump to a hit", () => {
  it("asks the hub and focuses the hit's message once the session shows it", async () => {
    const { hub, ctl, clock } = setup((id) => (id === plain.sessionId ? plain.frames : []));
    hub.sessions = [session(plain.sessionId), session("other", { created_at: "2020-01-01T00:00:00Z" })];
    await ctl.start("other");
    clock.tick();
    const target = plain.frames.flatMap((f) => (f.type === "event" && f.event.type === "message.start" ? [(f.event.payload as { message_id: string }).message_id] : []))[0]!;
    hub.hits = [{ session_id: plain.sessionId, message_id: target, snippet: "hello" }];
    expect(await ctl.search("hel")).toEqual(hub.hits);
    const jump = ctl.jumpTo(plain.sessionId, target);
    clock.tick();
    await jump;
    expect(ctl.store.getState().ui.focus).toEqual({ sessionId: plain.sessionId, messageId: target });
    ctl.dispose();
  });

  it("marks the words of the query", () => {
    expect(queryWords("Zebra-fish, ok!")).toEqual(["zebra", "fish", "ok"]);
  });
});

describe("model and folder between turns", () => {
  it("updates the open session and refreshes the list", async () => {
    const { hub, ctl } = setup();
    hub.sessions = [session("s1")];
    await ctl.start("s1");
    expect(await ctl.updateSession({ model: "anthropic:claude-opus-4-1" })).toBe(true);
    expect(hub.calls).toContainEqual(["updateSession", "s1", { model: "anthropic:claude-opus-4-1" }]);
    expect(ctl.store.getState().sessions.records[0]!.active_model).toBe("anthropic:claude-opus-4-1");
    ctl.dispose();
  });

  it("lists only configured providers' models and keeps an unlisted current one", () => {
    const models = [
      { id: "openai:gpt-4.1", provider: "openai", context_window: 1, configured: false },
      { id: "anthropic:claude-sonnet-4-6", provider: "anthropic", context_window: 1, configured: true },
    ];
    expect(modelOptions(models, "openai:llama3").map((m) => m.id)).toEqual(["openai:llama3", "anthropic:claude-sonnet-4-6"]);
    expect(folderName("/home/me/project/")).toBe("project");
  });
});

describe("shortcuts", () => {
  const key = (k: string, mods: Partial<Record<"ctrlKey" | "altKey" | "shiftKey" | "metaKey", boolean>> = {}) => ({ key: k, ctrlKey: false, altKey: false, shiftKey: false, metaKey: false, ...mods });
  it("map keys to actions; ? stays out of text fields, Ctrl shortcuts work everywhere", () => {
    const field = { tagName: "TEXTAREA" } as Element;
    expect(shortcutFor(key("k", { ctrlKey: true }), null)).toBe("search");
    expect(shortcutFor(key("n", { ctrlKey: true, altKey: true }), field)).toBe("new-session");
    expect(shortcutFor(key("b", { ctrlKey: true }), field)).toBe("toggle-sidebar");
    expect(shortcutFor(key("/", { ctrlKey: true }), null)).toBe("focus-composer");
    expect(shortcutFor(key(".", { metaKey: true }), null)).toBe("stop");
    expect(shortcutFor(key("?"), null)).toBe("help");
    expect(shortcutFor(key("?"), field)).toBeNull();
    expect(shortcutFor(key("n", { ctrlKey: true }), null)).toBeNull(); // the browser's new window
  });
});

describe("signals and truthful settings", () => {
  it("badges the title for finished turns and waiting calls", () => {
    expect(attentionTitle("Agent Hub", 0, 0)).toBe("Agent Hub");
    expect(sessionWindowTitle("Agent Hub", null, false)).toBe("Agent Hub");
    expect(sessionWindowTitle("Agent Hub", "Fix the test", false)).toBe("Fix the test — Agent Hub");
    expect(attentionTitle(sessionWindowTitle("Agent Hub", "Fix the test", true), 1, 0)).toBe("(1) waiting for approval — ● Fix the test — Agent Hub");
    expect(attentionTitle("Agent Hub", 0, 1)).toBe("✓ Turn finished — Agent Hub");
    expect(attentionTitle("Agent Hub", 2, 3)).toBe("✓ 3 turns finished — (2) waiting for approval — Agent Hub");
    expect(notificationsEnabled({ getItem: (k) => (k === NOTIFY_KEY ? "on" : null) })).toBe(true);
    expect(notificationsEnabled({ getItem: () => null })).toBe(false);
  });

  it("says where each value comes from and never 'not set' for a key from the environment", () => {
    const sources = { anthropic_api_key: "env", model: "flag", openai_api_key: "settings", approval_mode: "default" };
    expect(sourceText("anthropic_api_key", sources)).toBe("env ANTHROPIC_API_KEY (overrides this)");
    expect(sourceText("model", sources)).toBe("flag --model (overrides this)");
    expect(sourceText("openai_api_key", sources)).toBe("from settings");
    expect(sourceText("approval_mode", sources)).toBe("default");
    expect(sourceText("model", undefined)).toBe("");
    expect(keyPlaceholder(undefined, "anthropic_api_key", sources, "not set")).toBe("set in the environment (ANTHROPIC_API_KEY)");
    expect(keyPlaceholder("••••1234", "openai_api_key", sources, "not set")).toBe("set (••••1234) — type to replace");
    expect(settingsPatch({ auto_title: true }, { auto_title: false }, { anthropic: "", openai: "" })).toEqual({ auto_title: false });
  });
});
