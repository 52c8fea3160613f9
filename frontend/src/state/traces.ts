// Loads the recorded frame traces (frontend/test/traces) for the reducer tests.

import cancelDelegation from "../../test/traces/cancel-delegation.json";
import cancelFollowup from "../../test/traces/cancel-followup.json";
import cancelMidLLM from "../../test/traces/cancel-mid-llm.json";
import cancelMidTool from "../../test/traces/cancel-mid-tool.json";
import cancelSeam from "../../test/traces/cancel-seam.json";
import compaction from "../../test/traces/compaction.json";
import delegation from "../../test/traces/delegation.json";
import llmFailure from "../../test/traces/llm-failure.json";
import plainTurn from "../../test/traces/plain-turn.json";
import toolLoop from "../../test/traces/tool-loop.json";
import { decodeServerFrame, type ServerFrame, type SnapshotFrame } from "../protocol";

/** A decoded trace: the frames a server sends, plus snapshots it would send at given points. */
export interface Trace {
  name: string;
  sessionId: string;
  frames: ServerFrame[];
  /** snapshot = the state right after frames[afterFrame]. */
  snapshots: { afterFrame: number; frame: SnapshotFrame }[];
}

interface RawTrace {
  session_id: string;
  frames: unknown[];
  snapshots: { after_frame: number; frame: unknown }[];
}

function decodeAll(name: string, raw: RawTrace): Trace {
  const frames = raw.frames.map((f, i) => {
    const d = decodeServerFrame(f);
    if (d.type === "unknown") throw new Error(`trace ${name} frame ${i}: ${d.reason}`);
    return d;
  });
  const snapshots = raw.snapshots.map((s) => {
    const d = decodeServerFrame(s.frame);
    if (d.type !== "snapshot") throw new Error(`trace ${name}: bad snapshot`);
    return { afterFrame: s.after_frame, frame: d };
  });
  return { name, sessionId: raw.session_id, frames, snapshots };
}

/** Every trace, decoded through the real frame decoder. */
export const TRACES: Record<string, Trace> = Object.fromEntries(
  Object.entries({
    "plain-turn": plainTurn,
    "tool-loop": toolLoop,
    "cancel-mid-llm": cancelMidLLM,
    "cancel-mid-tool": cancelMidTool,
    "cancel-seam": cancelSeam,
    "cancel-followup": cancelFollowup,
    delegation,
    "cancel-delegation": cancelDelegation,
    compaction,
    "llm-failure": llmFailure,
  }).map(([name, raw]) => [name, decodeAll(name, raw as RawTrace)]),
);
