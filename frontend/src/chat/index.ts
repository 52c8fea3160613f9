// Chat components. Import "./chat.css" once where they are used.
export * from "./Markdown";
export * from "./ToolCard";
export * from "./DelegationCard";
export * from "./MessageView";
export * from "./Attachments";
export * from "./TurnFiles";
export * from "./Branches";
export * from "./MessageList";
export * from "./Status";
export * from "./Composer";
export * from "./session";
export * from "./ApprovalPrompt";
export * from "./ApprovalModeSwitch";
export * from "./DiffView";
export * from "./WorkerApprovals";
export * from "./OutputPanel";
