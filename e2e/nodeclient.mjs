// What the clients that run in node without a browser (agui.e2e.mjs,
// sdkclient.e2e.mjs) share: the frontend's packages to load the stock
// client from, failing the run, and the SYNC handshake with the Go side
// (a line on stdout; the Go side answers with one line on stdin).
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

/** require for the packages of frontend/node_modules (E2E_FRONTEND is the frontend folder). */
export const frontendRequire = createRequire(process.env.E2E_FRONTEND + "/package.json");

const stdin = createInterface({ input: process.stdin });
const lines = stdin[Symbol.asyncIterator]();

/** Prints the failure and ends the process with status 1. */
export function fail(msg) {
  console.error("FAIL: " + msg);
  process.exit(1);
}

/** Fails with msg unless cond. */
export function expect(cond, msg) {
  if (!cond) fail(msg);
}

/** Asks the Go side to do name (it answers with one line) and returns the answer. */
export async function sync(name) {
  console.log("SYNC " + name);
  const { value } = await lines.next();
  return value;
}

/** Stops reading stdin, which lets node exit once the client is done. */
export function closeInput() {
  stdin.close();
}
