// The wire protocol: records, events, frames, specs and the decoder.
export * from "./records";
export * from "./events";
export * from "./frames";
export * from "./schema";
export * from "./decode";
