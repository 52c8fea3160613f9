//go:build unix

package faults

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
	"agenthub/app/mcp/mcptest"
)

// TestMCPServerLeavesNoOrphanAfterKill9: the real binary runs an MCP stdio
// server from settings.json whose tool starts a grandchild; after kill -9
// of the app, the server itself dies with it (Pdeathsig) and the next
// launch kills the grandchild it left (the pid file sweep).
func TestMCPServerLeavesNoOrphanAfterKill9(t *testing.T) {
	llm := llmtest.NewServer(t)
	d := newDirs(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]any{"mcp_servers": map[string]any{
		"t": map[string]any{"command": self, "env": map[string]string{mcptest.EnvServe: "stdio"}},
	}}
	b, _ := json.Marshal(settings)
	if err := os.WriteFile(filepath.Join(d.data, "settings.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	in := start(t, d, llm.URL)
	in.waitMCPReady(t, "t")
	sid := in.session()
	cl, _ := in.attach(sid, "")
	toolTurn(llm, [3]string{"tu_spawn", "t__spawn", `{}`})
	in.submit(sid, "spawn a child")
	evs := cl.until("turn end", turnEnded)
	cl.close()
	end := toolEnds(evs)["tu_spawn"]
	if end["event"] != "tool.completed" {
		t.Fatalf("spawn ended %v", end)
	}
	child, _ := strconv.Atoi(end["output"].(string))
	server := parentOf(child)
	if child == 0 || server == 0 {
		t.Fatalf("child %d, server %d", child, server)
	}

	in.kill9()
	waitGone(t, server, "the MCP server process after kill -9 of the app (Pdeathsig)")
	if !alive(child) {
		t.Fatalf("the grandchild %d died with the app; the test proves nothing about the sweep", child)
	}
	in2 := start(t, d, llm.URL)
	waitGone(t, child, "the grandchild left by the killed app, after the next launch")
	in2.waitMCPReady(t, "t")
	in2.terminate()
}

// waitMCPReady polls listMcpServers until the server is ready (it starts
// in its own process; there is no event to wait on before a session exists).
func (in *instance) waitMCPReady(t *testing.T, name string) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for {
		var resp struct {
			OK      bool `json:"ok"`
			Payload struct {
				Servers []struct {
					Server string `json:"server"`
					Status string `json:"status"`
					Error  string `json:"error"`
				} `json:"servers"`
			} `json:"payload"`
		}
		body := map[string]any{"type": "request", "requestId": "mcp", "method": "listMcpServers"}
		if c := in.call(http.MethodPost, "/rpc", body, &resp); c != http.StatusOK || !resp.OK {
			t.Fatalf("listMcpServers: %d", c)
		}
		for _, s := range resp.Payload.Servers {
			if s.Server == name && s.Status == "ready" {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("MCP server %s not ready: %+v", name, resp.Payload.Servers)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	return f[0] != "Z"
}

func waitGone(t *testing.T, pid int, what string) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("%s (pid %d) is still running", what, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
