// @vitest-environment jsdom
// Per-message selectors: a delta re-renders only the message (or the tool
// card) it belongs to. MessageView and ToolCard are wrapped to count renders.
import { act } from "react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { decodeServerFrame, type ServerFrame } from "../protocol";
import { createAppStore, type Action } from "../state";
import { fakeViewport, mountPerTest } from "../testing/mount";
import { MessageList } from "./MessageList";
import type { MessageViewProps } from "./MessageView";
import type { ToolCardProps } from "./ToolCard";
import { renderInSession } from "../testing/session";

const renders = vi.hoisted(() => ({ messages: new Map<string, number>(), tools: new Map<string, number>() }));
const count = (m: Map<string, number>, id: string) => m.set(id, (m.get(id) ?? 0) + 1);

vi.mock("./MessageView", async (importOriginal) => {
  const mod = await importOriginal<typeof import("./MessageView")>();
  return {
    ...mod,
    MessageView: (props: MessageViewProps) => {
      count(renders.messages, props.message.id);
      return <mod.MessageView {...props} />;
    },
  };
});
vi.mock("./ToolCard", async (importOriginal) => {
  const mod = await importOriginal<typeof import("./ToolCard")>();
  return {
    ...mod,
    ToolCard: (props: ToolCardProps) => {
      count(renders.tools, props.card.toolUseId);
      return <mod.ToolCard {...props} />;
    },
  };
});

fakeViewport();

const SID = "01JZ9C0000000000000000SESS";
let seq = 0;
const nextId = () => `01KD${String(++seq).padStart(22, "0")}`;
function wire(raw: unknown): ServerFrame {
  const f = decodeServerFrame(raw);
  if (f.type === "unknown") throw new Error(f.reason);
  return f;
}
const ev = (type: string, payload: unknown): Action => ({
  type: "frame",
  sessionId: SID,
  frame: wire({ type: "event", event: { id: nextId(), type, session_id: SID, turn_id: "T2", ts: "2026-05-08T14:00:00.000Z", actor: "agent", payload } }),
});

const dom = mountPerTest();
beforeEach(() => {
  renders.messages.clear();
  renders.tools.clear();
});

describe("MessageList", () => {
  it("re-renders only the message a delta belongs to, and only the card a tool output delta belongs to", () => {
    seq = 0;
    const store = createAppStore();
    const session = { session_id: SID, title: "t", workspace_path: "/w", active_model: "m", parent_session_id: "", created_at: "2026-05-08T14:00:00Z", turn_count: 1, cost_so_far_usd: 0, usage: { input_tokens: 0, output_tokens: 0, cost_usd: 0 }, context_start_offset: 0, depth: 0, current_turn_id: "T2" };
    const text = (t: string) => [{ type: "text", text: t }];
    store.getState().dispatchAll([
      {
        type: "frame",
        sessionId: SID,
        frame: wire({
          type: "snapshot",
          session,
          messages: [
            { id: "U1", session_id: SID, offset: 0, role: "user", content: text("run it"), status: "complete", created_at: "2026-05-08T14:00:00Z" },
            { id: "A", session_id: SID, offset: 1, role: "assistant", content: [...text("Running."), { type: "toolCall", id: "tu1", name: "bash", arguments: { command: "make" } }], status: "complete", created_at: "2026-05-08T14:00:01Z" },
            { id: "B", session_id: SID, offset: 2, role: "assistant", content: text("Partial "), status: "streaming", created_at: "2026-05-08T14:00:02Z" },
          ],
          snapshot_at_event_id: nextId(),
        }),
      },
      ev("tool.called", { message_id: "A", tool_use_id: "tu1", tool_name: "bash", input: { command: "make" }, status_text: "Running make", summary: "" }),
    ]);
    renderInSession(dom.root, <MessageList />, { store, sessionId: SID });
    expect(dom.host.querySelectorAll("article.msg")).toHaveLength(3);
    const before = { A: renders.messages.get("A"), U1: renders.messages.get("U1"), B: renders.messages.get("B"), tu1: renders.tools.get("tu1") };
    expect(before.A).toBeGreaterThan(0);

    act(() => store.getState().dispatchAll([ev("text.delta", { message_id: "B", content_block_index: 0, text: "answer" }), ev("text.delta", { message_id: "B", content_block_index: 0, text: " grows" })]));
    expect(renders.messages.get("B")).toBe(before.B! + 1);
    expect(renders.messages.get("A")).toBe(before.A);
    expect(renders.messages.get("U1")).toBe(before.U1);
    expect(renders.tools.get("tu1")).toBe(before.tu1);
    expect(dom.host.querySelector('article[data-status="streaming"] .md')?.textContent).toBe("Partial answer grows");

    act(() => store.getState().dispatch(ev("tool.output_delta", { tool_use_id: "tu1", stream: "stdout", text: "compiling\n" })));
    expect(renders.tools.get("tu1")).toBe(before.tu1! + 1);
    expect(renders.messages.get("A")).toBe(before.A); // the card, not its message
    expect(renders.messages.get("B")).toBe(before.B! + 1);
    expect(dom.host.querySelector(".tool-output-text")?.textContent).toBe("compiling\n");
  });
});
