// Slash commands in the composer (docs/workflows.md).
export * from "./slash";
export { useSlashCommands } from "./useSlashCommands";
export { SlashList } from "./SlashList";
