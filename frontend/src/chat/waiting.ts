// How a tool card's header names a call that waits for approval: what it
// wants to do, never "Running: …" before anything runs (issue 34 row 12).

const WANTS: readonly (readonly [prefix: string, wants: string])[] = [
  ["Running: ", "Wants to run: "],
  ["Writing ", "Wants to write "],
  ["Editing ", "Wants to edit "],
  ["Starting sub-agent: ", "Wants to start a sub-agent: "],
  ["MCP ", "Wants to call MCP "],
];

/** The header of a waiting call: the tool's status line in the conditional ("Running: ls" → "Wants to run: ls"); unchanged when it names no action. */
export function waitingStatus(statusText: string): string {
  for (const [prefix, wants] of WANTS) {
    if (statusText.startsWith(prefix)) return wants + statusText.slice(prefix.length);
  }
  return statusText;
}
