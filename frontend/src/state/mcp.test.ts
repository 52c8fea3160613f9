import { describe, expect, it } from "vitest";
import { eventFrame } from "../testing/frames";
import { initialState, reduce } from "./reducer";

// mcp.server_status keeps the last state of each server seen in a session.

const SID = "01JZ8A0000000000000000SESS";

const status = (server: string, st: string, extra: Record<string, unknown> = {}) =>
  eventFrame(SID, null, "mcp.server_status", { server, transport: "stdio", status: st, tools: [], restarts: 0, ...extra }, "system");

describe("mcp.server_status in the reducer", () => {
  it("keeps the newest state per server", () => {
    let st = initialState();
    for (const f of [
      status("t", "starting"),
      status("t", "ready", { tools: ["t__fast"] }),
      status("web", "failed", { error: "connect: refused" }),
      status("t", "failed", { error: "the server process ended: exit status 3", stderr_tail: "crashing on purpose\n" }),
    ]) {
      st = reduce(st, { type: "frame", sessionId: SID, frame: f });
    }
    const servers = st.chat[SID]!.mcpServers;
    expect(Object.keys(servers).sort()).toEqual(["t", "web"]);
    expect(servers.t).toMatchObject({ status: "failed", stderr_tail: "crashing on purpose\n" });
    expect(servers.web?.error).toBe("connect: refused");
  });
});
