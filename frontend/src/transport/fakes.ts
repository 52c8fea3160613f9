// Test doubles for the transport suites: handlers that record what a
// transport delivers and keep the cursor as the client's reducer would.

import type { ServerFrame } from "../protocol";
import type { ConnectionState, TransportHandlers } from "./types";

/** Handlers recording frames and states; cursor() follows delivered snapshots and events like the reducer's lastEventId. */
export function recordingHandlers(cursor: string | null = null) {
  const frames: ServerFrame[] = [];
  const states: ConnectionState[] = [];
  let last = cursor;
  const handlers: TransportHandlers = {
    frame: (f) => {
      frames.push(f);
      if (f.type === "snapshot") last = f.snapshot_at_event_id;
      else if (f.type === "event" && (last === null || f.event.id > last)) last = f.event.id;
    },
    state: (s) => states.push(s),
    cursor: () => last,
  };
  return { frames, states, handlers, cursor: () => last };
}
