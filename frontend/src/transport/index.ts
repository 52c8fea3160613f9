// Transports: the interface and the dashboard WebSocket implementation.
export * from "./types";
export * from "./ws";
export * from "./wails";
