package ipc

// MCP server states (mcp.server_status status, listMcpServers).
const (
	MCPStarting = "starting" // connecting, or waiting to restart after a failure
	MCPReady    = "ready"    // connected; its tools are offered to the model
	MCPFailed   = "failed"   // the last start or the running server failed; a restart is scheduled
	MCPStopped  = "stopped"  // disabled or removed from the settings
)

// MCPServerStatus is the payload of mcp.server_status and an entry of
// listMcpServers: the state of one configured MCP server.
type MCPServerStatus struct {
	// Server is the configured name; its tools are named Server__tool.
	Server string `json:"server"`
	// Transport is "stdio" or "http".
	Transport string `json:"transport"`
	// Workspace limits the server to sessions in this directory ("" = all).
	Workspace string `json:"workspace,omitempty"`
	// Status is one of MCPStarting, MCPReady, MCPFailed, MCPStopped.
	Status string `json:"status"`
	// Tools names the tools offered to the model (namespaced): while the
	// server is ready, and the last list while it restarts (a call then
	// answers that it is not running).
	Tools []string `json:"tools"`
	// UnsupportedTools names (as the server does) the tools not offered
	// because they must be called as MCP tasks (execution.taskSupport
	// "required"), which Agent Hub does not support.
	UnsupportedTools []string `json:"unsupported_tools,omitempty"`
	// Error says why the server failed or was restarted.
	Error string `json:"error,omitempty"`
	// StderrTail is the end of a stdio server's stderr (at most 4 KiB).
	StderrTail string `json:"stderr_tail,omitempty"`
	// Restarts counts the restarts since the server was configured.
	Restarts int `json:"restarts"`
	// RetryInMS is the wait before the next start attempt (failed only).
	RetryInMS int64 `json:"retry_in_ms,omitempty"`
}

// MCPStatusLister is optionally implemented by a HubAPI: the state of every
// configured MCP server (RPC listMcpServers on both transports).
type MCPStatusLister interface {
	MCPServers() []MCPServerStatus
}
