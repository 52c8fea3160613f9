// Client state: the pure reducer, selectors and the one Zustand store.
export * from "./types";
export * from "./reducer";
export * from "./selectors";
export * from "./store";
export * from "./chunks";
export { emptySession, toChatMessage, mergeHistory, applySnapshot } from "./history";
export { newestTopLevel, workerPlaceholder } from "./sessions";
export { LIVE_OUTPUT_CAP, setReducerLogger, settleBlocks } from "./stream";
export { firstPendingId, isPending, pendingApprovalIds, waitingTotal, workerApprovalIds } from "./approvals";
