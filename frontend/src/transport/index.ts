// Transports: a session's event stream (the interface, the dashboard
// WebSocket and the Wails IPC, sharing stream.ts) and the RPC client.
export * from "./types";
export * from "./ws";
export * from "./wails";
export * from "./rpc";
