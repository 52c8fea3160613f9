package rpc_test

import (
	"testing"

	"agenthub/ipc"
	"agenthub/ipc/rpc"
	"agenthub/ipc/rpc/hubtest"
)

// mcpHub is the test hub plus the MCP server list.
type mcpHub struct {
	*hubtest.Hub
	servers []ipc.MCPServerStatus
}

func (h mcpHub) MCPServers() []ipc.MCPServerStatus { return h.servers }

func TestListMCPServers(t *testing.T) {
	h, d := newHub(t)
	got := ok[struct {
		Servers []ipc.MCPServerStatus `json:"servers"`
	}](t, call(t, d, rpc.MethodListMCPServers, nil))
	if got.Servers == nil || len(got.Servers) != 0 {
		t.Fatalf("a hub without MCP: %+v", got)
	}
	d2 := rpc.NewDispatcher(nil)
	rpc.RegisterHub(d2, mcpHub{Hub: h, servers: []ipc.MCPServerStatus{{Server: "files", Transport: "stdio", Status: ipc.MCPReady, Tools: []string{"files__read"}}}}, nil)
	got = ok[struct {
		Servers []ipc.MCPServerStatus `json:"servers"`
	}](t, call(t, d2, rpc.MethodListMCPServers, map[string]any{}))
	if len(got.Servers) != 1 || got.Servers[0].Tools[0] != "files__read" {
		t.Fatalf("servers %+v", got)
	}
}
