// Package errclass is the one definition of the error classes of the wire
// contract: the error_class of llm.call_failed, turn.completed and
// tool.failed, and a failed turn's error.class (DESIGN.md §3). app/llm and
// app/tool classify their failures with these constants, and ipc
// re-exports them as ipc.ErrClass* and ipc.ToolErr* for its payloads. It
// imports nothing, so every layer may use it (app/llm and app/tool import
// no other ipc package).
package errclass

// Classes of a failed LLM call (llm.call_failed, turn.completed error_class).
const (
	Auth            = "auth"
	RateLimit       = "rate_limit"
	Overloaded      = "overloaded"
	Server          = "server"
	Network         = "network"
	Timeout         = "timeout"
	InvalidRequest  = "invalid_request"
	ContextOverflow = "context_overflow"
	Cancelled       = "cancelled"
	NotConfigured   = "not_configured"
)

// Classes of a failed tool call (tool.failed error_class).
const (
	ToolCancelled    = "cancelled"
	ToolInvalidInput = "invalid_input"
	ToolDenied       = "denied" // the path escapes the workspace
	ToolExec         = "exec"
	ToolTimeout      = "timeout"
	ToolUnknownTool  = "unknown_tool"
)
