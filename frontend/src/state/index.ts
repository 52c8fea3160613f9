// Client state: pure reducer, selectors and the Zustand store.
export * from "./types";
export * from "./reducer";
export * from "./selectors";
export * from "./store";
export { emptySession, toChatMessage, mergeHistory, applySnapshot } from "./history";
export { LIVE_OUTPUT_CAP, setReducerLogger } from "./stream";
