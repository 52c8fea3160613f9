// Sanitised, incremental Markdown rendering.
export * from "./sanitize";
export * from "./render";
export * from "./incremental";
export * from "./images";
