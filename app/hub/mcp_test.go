package hub_test

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"agenthub/app/hub"
	"agenthub/app/mcp"
	"agenthub/app/mcp/mcptest"
	"agenthub/app/sandbox"
	"agenthub/ipc"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // this test binary is also the MCP stdio server
	sandbox.Dispatch()     // and the bash sandbox's helper
	os.Exit(m.Run())
}

// mcpLink forwards status reports to the hub once it exists (as app.Instance does).
type mcpLink struct {
	hub atomic.Pointer[hub.Hub]
	mgr *mcp.Manager
}

// withMCP runs the mcptest stdio server as "t" (and, when httpURL is set,
// the HTTP one as "web") for the harness's hub, and waits until both are
// ready.
func withMCP(t *testing.T, httpURL string, link *mcpLink) harnessOpt {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 16)
	m := mcp.NewManager(mcp.Options{
		DataDir: t.TempDir(), CancelGrace: 300 * time.Millisecond, StopGrace: 500 * time.Millisecond,
		Backoff: func(int) time.Duration { return 20 * time.Millisecond },
		OnStatus: func(st ipc.MCPServerStatus) {
			if st.Status == ipc.MCPReady {
				select {
				case ready <- st.Server:
				default:
				}
			}
			if h := link.hub.Load(); h != nil {
				h.MCPStatusChanged(st)
			}
		},
	})
	t.Cleanup(m.Close)
	link.mgr = m
	cfg := map[string]mcp.ServerConfig{"t": {Command: self, Env: map[string]string{mcptest.EnvServe: "stdio"}}}
	if httpURL != "" {
		cfg["web"] = mcp.ServerConfig{URL: httpURL}
	}
	m.Configure(cfg)
	// Wait by name: one server may report ready more than once (a restart
	// under load), which must not stand for the other.
	pending := map[string]bool{}
	for name := range cfg {
		pending[name] = true
	}
	for len(pending) > 0 {
		select {
		case name := <-ready:
			delete(pending, name)
		case <-time.After(waitLimit):
			t.Fatalf("MCP servers not ready: %v", pending)
		}
	}
	return func(c *hub.Config) { c.MCP = m }
}

func mcpCall(id, name, input string) [3]string { return [3]string{id, name, input} }

// The model sees the MCP tools beside the built-ins; a call asks first
// (MCP tools default to ask), streams progress as tool.output_delta and
// completes with 004-style status text and summary; a failing tool is an
// is_error result; the HTTP server's tools work the same way.
func TestMCPToolsEndToEnd(t *testing.T) {
	web := mcptest.NewHTTP()
	t.Cleanup(web.Close)
	h, s, w := watchedSession(t, withMCP(t, web.URL, &mcpLink{}), asking)
	h.srv.Enqueue(
		toolReply(mcpCall("tu_slow", "t__slow", `{"steps":3}`)),
		toolReply(mcpCall("tu_fail", "t__fail", `{}`), mcpCall("tu_web", "web__fast", `{"text":"hello"}`)),
		textReply("all done"))
	h.submit(s.ID, "use the MCP tools")

	req := w.approvalRequest()
	if req.ToolName != "t__slow" || req.Risk != ipc.RiskMedium || req.StatusText != "MCP t: slow" {
		t.Fatalf("approval request %+v", req)
	}
	h.approve(s.ID, "tu_slow", ipc.DecisionOnce, "")
	var progress strings.Builder
	e := w.until(func(e ev) bool {
		if e.Type == ipc.TypeToolOutputDelta {
			var d ipc.ToolOutputDelta
			e.decode(t, &d)
			progress.WriteString(d.Text)
		}
		return e.Type == ipc.TypeToolCompleted
	})
	var done ipc.ToolCompleted
	e.decode(t, &done)
	if done.Output != "done after 3 steps" || done.StatusText != "MCP t: slow" || !strings.Contains(done.Summary, "done after 3 steps") {
		t.Fatalf("slow completed %+v", done)
	}
	if !strings.HasPrefix(progress.String(), "step 1 of 3\n") {
		t.Fatalf("progress as output deltas: %q", progress.String())
	}
	// The second step: two calls, both asked.
	for range 2 {
		r := w.approvalRequest()
		h.approve(s.ID, r.ToolUseID, ipc.DecisionOnce, "")
	}
	results := map[string]ipc.ToolCompleted{}
	for len(results) < 2 {
		var c ipc.ToolCompleted
		w.untilType(ipc.TypeToolCompleted).decode(t, &c)
		results[c.ToolUseID] = c
	}
	if r := results["tu_fail"]; !r.IsError || r.Output != "it failed on purpose" {
		t.Fatalf("fail: %+v", r)
	}
	if r := results["tu_web"]; r.IsError || r.Output != "echo: hello" {
		t.Fatalf("web: %+v", r)
	}
	var end ipc.TurnCompleted
	w.turnEnd(s.ID).decode(t, &end)
	if end.Status != ipc.TurnStatusCompleted {
		t.Fatalf("turn %+v", end)
	}
	// Every LLM call offered the MCP tools beside the built-ins.
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := h.srv.Requests()[0].Decode(&body); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range body.Tools {
		names = append(names, tl.Name)
	}
	all := strings.Join(names, ",")
	for _, want := range []string{"bash", "t__fast", "t__slow", "web__fast"} {
		if !strings.Contains(","+all+",", ","+want+",") {
			t.Fatalf("tools offered: %s (no %s)", all, want)
		}
	}
}

// Cancelling a turn mid-call ends the call cancelled at once (the SDK
// sends notifications/cancelled); a crash mid-call is a tool error the
// model sees, naming how the server ended.
func TestMCPCancelAndCrashMidCall(t *testing.T) {
	link := &mcpLink{}
	h := newHarness(t, withMCP(t, "", link))
	link.hub.Store(h.hub)
	s := h.session()
	w := h.watch(s.ID, false)
	h.srv.Enqueue(toolReply(mcpCall("tu_slow", "t__slow", `{"steps":100000}`)))
	r := h.submit(s.ID, "go slow")
	w.untilType(ipc.TypeToolOutputDelta)
	if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, "user_cancel"); err != nil {
		t.Fatal(err)
	}
	var failed ipc.ToolFailed
	w.untilType(ipc.TypeToolFailed).decode(t, &failed)
	if failed.ErrorClass != ipc.ToolErrCancelled {
		t.Fatalf("cancelled call %+v", failed)
	}
	if e := w.turnEnd(s.ID); e.Type != ipc.TypeTurnCancelled {
		t.Fatalf("turn ended %s", e.Type)
	}

	h.srv.Enqueue(toolReply(mcpCall("tu_crash", "t__crash", `{}`)), textReply("the server crashed"))
	h.submit(s.ID, "crash it")
	w.untilType(ipc.TypeToolFailed).decode(t, &failed)
	if failed.ErrorClass != ipc.ToolErrExec || !strings.Contains(failed.Message, "exit status 3") || !strings.Contains(failed.Message, "crashing on purpose") {
		t.Fatalf("crash %+v", failed)
	}
	var end ipc.TurnCompleted
	w.turnEnd(s.ID).decode(t, &end)
	if end.Status != ipc.TurnStatusCompleted {
		t.Fatalf("after a crash the turn goes on: %+v", end)
	}
	// The crash was reported into the watched session as mcp.server_status.
	isFailed := func(e ev) bool {
		if e.Type != ipc.TypeMCPServerStatus {
			return false
		}
		var st ipc.MCPServerStatus
		e.decode(t, &st)
		return st.Server == "t" && st.Status == ipc.MCPFailed && strings.Contains(st.StderrTail, "crashing on purpose")
	}
	for _, e := range w.got {
		if isFailed(e) {
			return
		}
	}
	w.until(isFailed)
}

// A status change reaches a session that is only watched (no turn runs):
// the window showing it learns at once; the listing has it too.
func TestMCPStatusReachesAWatchedIdleSession(t *testing.T) {
	web := mcptest.NewHTTP()
	t.Cleanup(web.Close) // before the manager's cleanup: runs after it
	link := &mcpLink{}
	h := newHarness(t, withMCP(t, "", link))
	link.hub.Store(h.hub)
	s := h.session()
	w := h.watch(s.ID, false)
	self, _ := os.Executable()
	link.mgr.Configure(map[string]mcp.ServerConfig{
		"t":   {Command: self, Env: map[string]string{mcptest.EnvServe: "stdio"}},
		"web": {URL: web.URL},
	})
	var st ipc.MCPServerStatus
	w.until(func(e ev) bool {
		if e.Type != ipc.TypeMCPServerStatus {
			return false
		}
		e.decode(t, &st)
		return st.Server == "web" && st.Status == ipc.MCPReady
	})
	if len(st.Tools) == 0 || st.Transport != "http" {
		t.Fatalf("status %+v", st)
	}
	if list := h.hub.MCPServers(); len(list) != 2 || list[1].Server != "web" {
		t.Fatalf("listing %+v", list)
	}
}
