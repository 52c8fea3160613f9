// Sanitised, incremental Markdown rendering.
export * from "./sanitize";
export * from "./render";
export * from "./highlight";
export * from "./incremental";
export * from "./images";
