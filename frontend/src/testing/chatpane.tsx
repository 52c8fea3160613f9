// For the jsdom suites that drive a ChatPane through a real AppController:
// a FakeHub, a scripted transport per subscription and a manual clock.

import { act } from "react";
import type { Root } from "react-dom/client";
import { ChatPane } from "../app/ChatPane";
import { AppController } from "../app/controller";
import type { ServerFrame } from "../protocol";
import { type FakeHub, ScriptedTransport, manualScheduler } from "./fakes";

/**
 * Starts an AppController on hub's session sid, each subscription opening with
 * first, and renders its ChatPane into root. push hands frames to the newest
 * subscription and applies them.
 */
export async function mountChatPane(root: Root, hub: FakeHub, sid: string, first: ServerFrame) {
  const clock = manualScheduler();
  const transports: ScriptedTransport[] = [];
  const ctl = new AppController({
    hub,
    pollMs: 0,
    schedule: clock.schedule,
    transport: () => {
      const t = new ScriptedTransport(() => [first]);
      transports.push(t);
      return t;
    },
  });
  await act(async () => {
    await ctl.start(sid);
    clock.tick();
  });
  act(() => root.render(<ChatPane ctl={ctl} sessionId={sid} defaultModel="" />));
  const push = async (...frames: ServerFrame[]) =>
    act(async () => {
      transports.at(-1)!.push(...frames);
      clock.tick();
      await Promise.resolve();
    });
  return { ctl, clock, push };
}
