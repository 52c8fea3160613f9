package mcp_test

import (
	"context"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/mcp"
	"agenthub/app/mcp/mcptest"
	"agenthub/app/tool"
	"agenthub/ipc"
)

// A tool the server marks execution.taskSupport "required" is not offered
// (every call would fail: Agent Hub does not call tools as MCP tasks); the
// status names it as unsupported, and the log says so once, not at every
// re-listing.
func TestTaskOnlyToolsAreNotOffered(t *testing.T) {
	logs := &apptest.Buffer{}
	sts := newStatuses()
	m := mcp.NewManager(mcp.Options{OnStatus: sts.on, Logger: slog.New(slog.NewTextHandler(logs, nil)),
		Backoff: func(int) time.Duration { return 20 * time.Millisecond }})
	t.Cleanup(m.Close)
	m.Configure(map[string]mcp.ServerConfig{"t": stdioConfig(t)})
	st, idx := sts.wait(t, 0, ready("t"))
	if strings.Contains(strings.Join(st.Tools, ","), mcptest.TaskOnly) || strings.Join(st.UnsupportedTools, ",") != mcptest.TaskOnly {
		t.Fatalf("tools %v, unsupported %v", st.Tools, st.UnsupportedTools)
	}
	for _, tl := range m.Tools("/") {
		if strings.Contains(tl.Name(), mcptest.TaskOnly) {
			t.Fatalf("%s is offered", tl.Name())
		}
	}
	// A re-listing (notifications/tools/list_changed) keeps it out, quietly.
	if _, err := run(t, find(t, m.Tools("/"), "t__add_tool"), context.Background(), nil, `{}`); err != nil {
		t.Fatal(err)
	}
	st, _ = sts.wait(t, idx, func(st ipc.MCPServerStatus) bool { return strings.Contains(strings.Join(st.Tools, ","), "t__late") })
	if strings.Join(st.UnsupportedTools, ",") != mcptest.TaskOnly {
		t.Fatalf("after re-listing: unsupported %v", st.UnsupportedTools)
	}
	if n := strings.Count(logs.String(), "tool not offered"); n != 1 {
		t.Fatalf("logged %d times:\n%s", n, logs.String())
	}
}

// While a known server is down, its tools stay offered and a call answers
// the documented "not running" message with the wait left.
func TestToolsStayWhileTheServerIsDown(t *testing.T) {
	sts := newStatuses()
	m := mcp.NewManager(mcp.Options{OnStatus: sts.on, Backoff: func(int) time.Duration { return time.Hour }})
	t.Cleanup(m.Close)
	m.Configure(map[string]mcp.ServerConfig{"ev": stdioConfig(t)})
	_, idx := sts.wait(t, 0, ready("ev"))
	if _, err := run(t, find(t, m.Tools("/"), "ev__crash"), context.Background(), nil, `{}`); !isClass(err, "exec") {
		t.Fatalf("crash: %v", err)
	}
	st, _ := sts.wait(t, idx, func(st ipc.MCPServerStatus) bool { return st.Status == ipc.MCPFailed })
	if len(st.Tools) == 0 {
		t.Fatalf("failed status lists no tools: %+v", st)
	}
	_, err := run(t, find(t, m.Tools("/"), "ev__fast"), context.Background(), nil, `{"text":"hi"}`)
	msg := regexp.MustCompile(`^MCP server ev is not running \(failed\): the server process ended: exit status 3 .*; next start attempt in (\d+) ms`)
	var te *tool.Error
	if !errors.As(err, &te) || te.Class != "exec" || !msg.MatchString(te.Message) {
		t.Fatalf("a call while it is down: %v", err)
	}
}

// A restart forced by a server that ignored a cancellation is not a crash:
// it happens at once and leaves the backoff where it was; the server learns
// why the call was cancelled in words; one crash is one failed status.
func TestCancelRestartSparesTheBackoff(t *testing.T) {
	sts := newStatuses()
	var mu sync.Mutex
	var attempts []int
	m := mcp.NewManager(mcp.Options{OnStatus: sts.on, CancelGrace: 300 * time.Millisecond,
		Backoff: func(n int) time.Duration {
			mu.Lock()
			attempts = append(attempts, n)
			mu.Unlock()
			return 20 * time.Millisecond
		}})
	t.Cleanup(m.Close)
	m.Configure(map[string]mcp.ServerConfig{"t": stdioConfig(t)})
	_, idx := sts.wait(t, 0, ready("t"))

	// An honoured cancel: the server gets a reason a person can read.
	cancelMidCall(t, m, `{"steps":1000}`)
	reason := ""
	for deadline := time.Now().Add(30 * time.Second); reason == "" && time.Now().Before(deadline); {
		res, err := run(t, find(t, m.Tools("/"), "t__cancel_reason"), context.Background(), nil, `{}`)
		if err != nil {
			t.Fatal(err)
		}
		reason = res.Output // "" until the notification has arrived
	}
	if reason != "cancelled by the user" {
		t.Fatalf("cancel reason at the server: %q", reason)
	}

	// An ignored one: restarted, without touching the backoff.
	cancelMidCall(t, m, `{"steps":1000,"ignore_cancel":true}`)
	st, idx := sts.wait(t, idx, func(st ipc.MCPServerStatus) bool { return st.Status == ipc.MCPFailed })
	if !strings.Contains(st.Error, "kept working on a cancelled call") || st.RetryInMS != 0 {
		t.Fatalf("restart status %+v", st)
	}
	sts.wait(t, idx, ready("t"))
	mu.Lock()
	n := len(attempts)
	mu.Unlock()
	if n != 0 {
		t.Fatalf("the cancel-forced restart fed the backoff: attempts %v", attempts)
	}
	// The next real crash is the first attempt, and one failed status.
	from := len(sts.snapshot())
	_, _ = run(t, find(t, m.Tools("/"), "t__crash"), context.Background(), nil, `{}`)
	_, to := sts.wait(t, from, ready("t"))
	failed := 0
	for _, s := range sts.snapshot()[from:to] {
		if s.Status == ipc.MCPFailed {
			failed++
		}
	}
	if failed != 1 {
		t.Fatalf("%d failed statuses for one crash: %+v", failed, sts.snapshot()[from:to])
	}
	mu.Lock()
	defer mu.Unlock()
	if len(attempts) != 1 || attempts[0] != 1 {
		t.Fatalf("backoff attempts after one crash: %v", attempts)
	}
}
