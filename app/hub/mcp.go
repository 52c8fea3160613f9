package hub

import (
	"agenthub/app/tool"
	"agenthub/ipc"
)

// MCPTools is what the hub needs of the MCP servers (app/mcp.Manager):
// the tools offered to a session in a workspace, the servers' states, and
// whether a server applies to a workspace.
type MCPTools interface {
	Tools(workspace string) []tool.Tool
	Servers() []ipc.MCPServerStatus
	Serves(server, workspace string) bool
}

var _ ipc.MCPStatusLister = (*Hub)(nil)

// MCPServers implements ipc.MCPStatusLister (RPC listMcpServers).
func (h *Hub) MCPServers() []ipc.MCPServerStatus {
	if h.cfg.MCP == nil {
		return []ipc.MCPServerStatus{}
	}
	return h.cfg.MCP.Servers()
}

// extraTools is the agent's per-call source of MCP tools for workspace
// (nil without MCP).
func (h *Hub) extraTools(workspace string) func() []tool.Tool {
	if h.cfg.MCP == nil {
		return nil
	}
	return func() []tool.Tool { return h.cfg.MCP.Tools(workspace) }
}

// MCPStatusChanged emits mcp.server_status into every session the server
// serves that has a running turn or a live subscriber: what the user
// watches learns at once that a server failed or came back. Other
// sessions see the state in Settings (listMcpServers).
func (h *Hub) MCPStatusChanged(st ipc.MCPServerStatus) {
	targets := map[string]bool{}
	for _, id := range h.bus.Watched() {
		targets[id] = true
	}
	h.mu.Lock()
	var ids []string
	for id, s := range h.sessions {
		if s.deleted || (!targets[id] && s.running == nil) {
			continue
		}
		if h.cfg.MCP == nil || h.cfg.MCP.Serves(st.Server, s.record().WorkspacePath) || st.Status == ipc.MCPStopped {
			ids = append(ids, id)
		}
	}
	h.mu.Unlock()
	for _, id := range ids {
		if err := h.bus.Emit(ipc.Draft{Type: ipc.TypeMCPServerStatus, SessionID: id, Actor: ipc.ActorSystem, Payload: st}); err != nil {
			h.log.Warn("hub: emit mcp.server_status", "session", id, "err", err)
		}
	}
}
