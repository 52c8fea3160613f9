package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/app/mcp"
	"agenthub/app/tool"
	"agenthub/ipc"
)

// everythingVersion pins the reference server of the MCP project
// (@modelcontextprotocol/server-everything on npm).
const everythingVersion = "2026.8.31"

// serverEverything returns the path of server-everything's entry point,
// installed with npm into the user's cache dir once (kept for later runs).
// The test is skipped only when npm or its registry cannot be reached.
func serverEverything(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("server-everything: node is not installed")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("server-everything: npm is not installed")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "agenthub-test", "server-everything@"+everythingVersion)
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err == nil {
		return entry
	}
	// Install beside it, then move it in place: a concurrent run (or one
	// killed mid-install) never leaves a half-installed dir at dir.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "install", "--prefix", tmp, "--no-audit", "--no-fund", "--no-save",
		"@modelcontextprotocol/server-everything@"+everythingVersion).CombinedOutput()
	if err != nil {
		ping, perr := exec.CommandContext(ctx, npm, "ping").CombinedOutput()
		if perr != nil {
			t.Skipf("server-everything: the npm registry is unreachable (npm ping: %v: %s)", perr, ping)
		}
		t.Fatalf("npm install server-everything@%s: %v\n%s", everythingVersion, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(entry); serr != nil {
			t.Fatalf("moving the install in place: %v", err)
		}
	}
	return entry
}

// The MCP project's own reference server, as a user adds it: its tools are
// offered (but not the one that needs MCP tasks), echo answers, a progress
// tool streams its steps, a cancelled long operation (which this server
// does not stop) ends at once and the server is restarted without feeding
// the crash backoff, and a killed server keeps its tools, which answer
// that it is not running.
func TestServerEverything(t *testing.T) {
	entry := serverEverything(t)
	dataDir := t.TempDir()
	sts := newStatuses()
	var mu sync.Mutex
	var attempts []int
	m := mcp.NewManager(mcp.Options{
		DataDir: dataDir, OnStatus: sts.on, CancelGrace: 500 * time.Millisecond, StopGrace: 500 * time.Millisecond,
		Backoff: func(n int) time.Duration {
			mu.Lock()
			attempts = append(attempts, n)
			mu.Unlock()
			return time.Hour // a killed server stays down for the test
		},
	})
	t.Cleanup(m.Close)
	m.Configure(map[string]mcp.ServerConfig{"ev": {Command: "node", Args: []string{entry, "stdio"}}})
	st, idx := sts.wait(t, 0, ready("ev"))
	if !slices.Contains(st.Tools, "ev__echo") || slices.Contains(st.Tools, "ev__simulate-research-query") ||
		!slices.Contains(st.UnsupportedTools, "simulate-research-query") {
		t.Fatalf("tools %v, unsupported %v", st.Tools, st.UnsupportedTools)
	}

	res, err := run(t, find(t, m.Tools("/"), "ev__echo"), context.Background(), nil, `{"message":"hello from Agent Hub"}`)
	if err != nil || res.Output != "Echo: hello from Agent Hub" {
		t.Fatalf("echo: %+v %v", res, err)
	}

	out := newOutput()
	long := find(t, m.Tools("/"), "ev__trigger-long-running-operation")
	res, err = run(t, long, context.Background(), out, `{"duration":0.3,"steps":3}`)
	if err != nil || !strings.Contains(res.Output, "Long running operation completed") {
		t.Fatalf("long operation: %+v %v", res, err)
	}
	if got := out.text(); !strings.HasPrefix(got, "progress 1/3\n") {
		t.Fatalf("progress lines %q", got)
	}

	// Cancelled mid-way: the call ends at once; the server keeps sending
	// progress for it, so it is restarted — at once, not as a crash.
	cancelToolMidCall(t, long, `{"duration":60,"steps":600}`)
	st, idx = sts.wait(t, idx, func(st ipc.MCPServerStatus) bool { return st.Status == ipc.MCPFailed })
	if !strings.Contains(st.Error, "kept working on a cancelled call") {
		t.Fatalf("after the cancel: %+v", st)
	}
	st, idx = sts.wait(t, idx, ready("ev"))
	mu.Lock()
	n := len(attempts)
	mu.Unlock()
	if st.Restarts != 1 || n != 0 {
		t.Fatalf("restarts %d, backoff attempts %v", st.Restarts, attempts)
	}

	// Killed: one failed status; its tools stay and say it is not running.
	killServer(t, dataDir)
	st, _ = sts.wait(t, idx, func(st ipc.MCPServerStatus) bool { return st.Status == ipc.MCPFailed })
	if !strings.Contains(st.Error, "signal: killed") || !slices.Contains(st.Tools, "ev__echo") {
		t.Fatalf("after the kill: %+v", st)
	}
	_, err = run(t, find(t, m.Tools("/"), "ev__echo"), context.Background(), nil, `{"message":"anyone?"}`)
	var te *tool.Error
	if !errors.As(err, &te) || !strings.HasPrefix(te.Message, "MCP server ev is not running (failed): ") || !strings.Contains(te.Message, "; next start attempt in ") {
		t.Fatalf("a call while it is down: %v", err)
	}
}

// killServer SIGKILLs the process group of the running stdio server, found
// through its pid file.
func killServer(t *testing.T, dataDir string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dataDir, "mcp-pids", "*.json"))
	if err != nil || len(files) != 1 {
		t.Fatalf("pid files %v %v", files, err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		PGID int `json:"pgid"`
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.PGID <= 1 {
		t.Fatalf("pid file %s: %v", b, err)
	}
	killTree(t, rec.PGID)
}
