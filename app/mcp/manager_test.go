package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/app/mcp"
	"agenthub/app/mcp/mcptest"
	"agenthub/app/tool"
	"agenthub/ipc"
)

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Exit(m.Run())
}

// stdioConfig starts this test binary as the mcptest stdio server.
func stdioConfig(t *testing.T) mcp.ServerConfig {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcp.ServerConfig{Command: self, Env: map[string]string{mcptest.EnvServe: "stdio"}}
}

// statuses collects what OnStatus reports.
type statuses struct {
	mu   sync.Mutex
	all  []ipc.MCPServerStatus
	kick chan struct{}
}

func newStatuses() *statuses { return &statuses{kick: make(chan struct{}, 1)} }

func (s *statuses) on(st ipc.MCPServerStatus) {
	s.mu.Lock()
	s.all = append(s.all, st)
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// snapshot returns every status reported so far.
func (s *statuses) snapshot() []ipc.MCPServerStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ipc.MCPServerStatus(nil), s.all...)
}

// wait returns the first status after index from that matches, and its index.
func (s *statuses) wait(t *testing.T, from int, match func(ipc.MCPServerStatus) bool) (ipc.MCPServerStatus, int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		s.mu.Lock()
		for i := from; i < len(s.all); i++ {
			if match(s.all[i]) {
				st := s.all[i]
				s.mu.Unlock()
				return st, i + 1
			}
		}
		s.mu.Unlock()
		select {
		case <-s.kick:
		case <-deadline:
			t.Fatalf("no matching MCP status; saw %+v", s.all)
		}
	}
}

func ready(name string) func(ipc.MCPServerStatus) bool {
	return func(st ipc.MCPServerStatus) bool { return st.Server == name && st.Status == ipc.MCPReady }
}

// testCancelGrace is how long a test server may take to let go of a
// cancelled call before it counts as ignoring it: 300 ms, 2 s on Windows,
// whose test binaries run under wine here (a server honouring the cancel
// took longer than 300 ms there under load).
func testCancelGrace() time.Duration {
	if runtime.GOOS == "windows" {
		return 2 * time.Second
	}
	return 300 * time.Millisecond
}

func newManager(t *testing.T, dataDir string) (*mcp.Manager, *statuses) {
	t.Helper()
	sts := newStatuses()
	m := mcp.NewManager(mcp.Options{
		DataDir: dataDir, OnStatus: sts.on,
		Backoff:     func(int) time.Duration { return 20 * time.Millisecond },
		CancelGrace: testCancelGrace(), StopGrace: 500 * time.Millisecond,
	})
	t.Cleanup(m.Close)
	return m, sts
}

func find(t *testing.T, tools []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s among %d", name, len(tools))
	return nil
}

// output collects a call's live output.
type output struct {
	mu    sync.Mutex
	lines []string
	first chan struct{}
	once  sync.Once
}

func newOutput() *output { return &output{first: make(chan struct{})} }

func (o *output) write(_, text string) {
	o.mu.Lock()
	o.lines = append(o.lines, text)
	o.mu.Unlock()
	o.once.Do(func() { close(o.first) })
}

func (o *output) text() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.lines, "")
}

func run(t *testing.T, tl tool.Tool, ctx context.Context, out *output, input string) (tool.Result, error) {
	t.Helper()
	env := tool.Env{ToolUseID: "toolu_" + strconv.FormatInt(time.Now().UnixNano(), 36)}
	if out != nil {
		env.Output = out.write
	}
	return tl.Run(ctx, env, json.RawMessage(input))
}

func TestStdioServerToolsProgressAndErrors(t *testing.T) {
	m, sts := newManager(t, t.TempDir())
	m.Configure(map[string]mcp.ServerConfig{"t": stdioConfig(t)})
	st, _ := sts.wait(t, 0, ready("t"))
	want := []string{"t__add_tool", "t__cancel_reason", "t__crash", "t__fail", "t__fast", "t__pid", "t__slow", "t__spawn"}
	if strings.Join(st.Tools, ",") != strings.Join(want, ",") {
		t.Fatalf("tools %v, want %v", st.Tools, want)
	}
	tools := m.Tools("/anywhere")
	res, err := run(t, find(t, tools, "t__fast"), context.Background(), nil, `{"text":"hi"}`)
	if err != nil || res.Output != "echo: hi" || res.IsError {
		t.Fatalf("fast: %+v %v", res, err)
	}
	if res.StatusText != "MCP t: fast" {
		t.Errorf("status text %q", res.StatusText)
	}
	out := newOutput()
	res, err = run(t, find(t, tools, "t__slow"), context.Background(), out, `{"steps":3}`)
	if err != nil || res.Output != "done after 3 steps" {
		t.Fatalf("slow: %+v %v", res, err)
	}
	// Progress is live output: the last notification may be handled after
	// the result (the SDK runs notification handlers on their own), so the
	// output is a prefix of every step, in order, with at least the first.
	if got := out.text(); !strings.HasPrefix("step 1 of 3\nstep 2 of 3\nstep 3 of 3\n", got) || !strings.HasPrefix(got, "step 1 of 3\n") {
		t.Errorf("progress output %q", got)
	}
	res, err = run(t, find(t, tools, "t__fail"), context.Background(), nil, `{}`)
	if err != nil || !res.IsError || res.Output != "it failed on purpose" {
		t.Fatalf("fail: %+v %v", res, err)
	}
	if _, err := run(t, find(t, tools, "t__fast"), context.Background(), nil, `[1]`); !isClass(err, "invalid_input") {
		t.Fatalf("array input: %v", err)
	}
}

func isClass(err error, class string) bool {
	var te *tool.Error
	return errors.As(err, &te) && te.Class == class
}

func TestHTTPServerTools(t *testing.T) {
	srv := mcptest.NewHTTP()
	t.Cleanup(srv.Close) // after the manager's Close (cleanups run last-in first-out)
	m, sts := newManager(t, "")
	m.Configure(map[string]mcp.ServerConfig{"web": {URL: srv.URL, Headers: map[string]string{"X-Test": "1"}}})
	sts.wait(t, 0, ready("web"))
	tools := m.Tools("/w")
	res, err := run(t, find(t, tools, "web__fast"), context.Background(), nil, `{"text":"over http"}`)
	if err != nil || res.Output != "echo: over http" {
		t.Fatalf("fast over http: %+v %v", res, err)
	}
	// The configured headers reach the server.
	if res, err := run(t, find(t, tools, "web__header"), context.Background(), nil, `{"name":"X-Test"}`); err != nil || res.Output != "1" {
		t.Fatalf("header X-Test at the server: %+v %v", res, err)
	}
	out := newOutput()
	if _, err := run(t, find(t, tools, "web__slow"), context.Background(), out, `{"steps":2}`); err != nil {
		t.Fatal(err)
	}
	if got := out.text(); !strings.HasPrefix("step 1 of 2\nstep 2 of 2\n", got) || got == "" {
		t.Errorf("progress over http %q", got)
	}
}

func TestCancelHonouredKeepsServer(t *testing.T) {
	m, sts := newManager(t, t.TempDir())
	checked := make(chan bool, 1)
	m.SetCancelChecked(func(_ string, restarted bool) { checked <- restarted })
	m.Configure(map[string]mcp.ServerConfig{"t": stdioConfig(t)})
	sts.wait(t, 0, ready("t"))
	cancelMidCall(t, m, `{"steps":1000}`)
	if <-checked {
		t.Fatal("a server that honoured the cancellation was restarted")
	}
	if st := m.Servers()[0]; st.Status != ipc.MCPReady || st.Restarts != 0 {
		t.Fatalf("after an honoured cancel: %+v", st)
	}
}

func TestCancelIgnoredRestartsServer(t *testing.T) {
	m, sts := newManager(t, t.TempDir())
	m.Configure(map[string]mcp.ServerConfig{"t": stdioConfig(t)})
	_, idx := sts.wait(t, 0, ready("t"))
	pid := serverPid(t, m)
	cancelMidCall(t, m, `{"steps":1000,"ignore_cancel":true}`)
	st, idx := sts.wait(t, idx, func(st ipc.MCPServerStatus) bool { return st.Status == ipc.MCPFailed })
	if !strings.Contains(st.Error, "kept working on a cancelled call") {
		t.Fatalf("restart reason %q", st.Error)
	}
	st, _ = sts.wait(t, idx, ready("t"))
	if st.Restarts != 1 {
		t.Fatalf("restarts %d", st.Restarts)
	}
	if !processGone(t, pid) {
		t.Fatalf("the old server process %d is still there", pid)
	}
}

// cancelMidCall calls t__slow with input and cancels the call once its
// first progress arrived; the call must end cancelled.
func cancelMidCall(t *testing.T, m *mcp.Manager, input string) {
	t.Helper()
	cancelToolMidCall(t, find(t, m.Tools("/"), "t__slow"), input)
}

// cancelToolMidCall calls tl with input and cancels the call once its first
// progress arrived; the call must end cancelled.
func cancelToolMidCall(t *testing.T, tl tool.Tool, input string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := newOutput()
	done := make(chan error, 1)
	go func() {
		_, err := run(t, tl, ctx, out, input)
		done <- err
	}()
	<-out.first
	cancel()
	if err := <-done; !isClass(err, "cancelled") {
		t.Fatalf("cancelled call: %v", err)
	}
}

// serverPid asks the running mcptest server (tool prefix t) for its pid.
func serverPid(t *testing.T, m *mcp.Manager) int {
	t.Helper()
	return callPid(t, m, "t__pid")
}

// callPid calls a tool that answers a pid and returns it.
func callPid(t *testing.T, m *mcp.Manager, name string) int {
	t.Helper()
	res, err := run(t, find(t, m.Tools("/"), name), context.Background(), nil, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(res.Output))
	if err != nil || pid <= 0 {
		t.Fatalf("%s answered %q", name, res.Output)
	}
	return pid
}

func TestCrashMidCallIsToolErrorAndRestarts(t *testing.T) {
	m, sts := newManager(t, t.TempDir())
	m.Configure(map[string]mcp.ServerConfig{"t": stdioConfig(t)})
	_, idx := sts.wait(t, 0, ready("t"))
	_, err := run(t, find(t, m.Tools("/"), "t__crash"), context.Background(), nil, `{}`)
	var te *tool.Error
	if !errors.As(err, &te) || te.Class != "exec" {
		t.Fatalf("crash: %v", err)
	}
	for _, want := range []string{"MCP server t failed during the call", "exit status 3", "crashing on purpose"} {
		if !strings.Contains(te.Message, want) {
			t.Errorf("crash message lacks %q:\n%s", want, te.Message)
		}
	}
	st, _ := sts.wait(t, idx, ready("t"))
	if st.Restarts < 1 {
		t.Fatalf("not restarted: %+v", st)
	}
	if res, err := run(t, find(t, m.Tools("/"), "t__fast"), context.Background(), nil, `{"text":"again"}`); err != nil || res.Output != "echo: again" {
		t.Fatalf("after restart: %+v %v", res, err)
	}
}

func TestToolsListChanged(t *testing.T) {
	m, sts := newManager(t, "")
	m.Configure(map[string]mcp.ServerConfig{"t": stdioConfig(t)})
	_, idx := sts.wait(t, 0, ready("t"))
	if _, err := run(t, find(t, m.Tools("/"), "t__add_tool"), context.Background(), nil, `{}`); err != nil {
		t.Fatal(err)
	}
	sts.wait(t, idx, func(st ipc.MCPServerStatus) bool { return strings.Contains(strings.Join(st.Tools, ","), "t__late") })
	res, err := run(t, find(t, m.Tools("/"), "t__late"), context.Background(), nil, `{}`)
	if err != nil || res.Output != "late tool here" {
		t.Fatalf("late: %+v %v", res, err)
	}
}

func TestFailingCommandReportsStderrAndToolsVanish(t *testing.T) {
	m, sts := newManager(t, "")
	bad := stdioConfig(t)
	bad.Env[mcptest.EnvServe] = "fail"
	m.Configure(map[string]mcp.ServerConfig{"bad": bad})
	st, _ := sts.wait(t, 0, func(st ipc.MCPServerStatus) bool { return st.Status == ipc.MCPFailed })
	if !strings.Contains(st.Error, "exit status 7") || !strings.Contains(st.StderrTail, "cannot start: no config") {
		t.Fatalf("failed status %+v", st)
	}
	if n := len(m.Tools("/")); n != 0 {
		t.Fatalf("%d tools from a failed server", n)
	}
}

func TestWorkspaceScopeAndDisabled(t *testing.T) {
	m, sts := newManager(t, "")
	cfg := stdioConfig(t)
	cfg.Workspace = "/home/u/proj"
	off := stdioConfig(t)
	off.Disabled = true
	m.Configure(map[string]mcp.ServerConfig{"p": cfg, "off": off})
	sts.wait(t, 0, ready("p"))
	if n := len(m.Tools("/home/u/other")); n != 0 {
		t.Fatalf("%d tools outside the workspace", n)
	}
	if n := len(m.Tools("/home/u/proj/sub")); n == 0 {
		t.Fatal("no tools inside the workspace")
	}
	list := m.Servers()
	if len(list) != 2 || list[0].Server != "off" || list[0].Status != ipc.MCPStopped {
		t.Fatalf("servers %+v", list)
	}
}

func TestValidate(t *testing.T) {
	bad := map[string]mcp.ServerConfig{
		"a__b":  {Command: "x"},
		"empty": {},
		"both":  {Command: "x", URL: "http://h"},
		"url":   {URL: "ftp://h"},
		"rel":   {Command: "x", Workspace: "rel/dir"},
		"hdr":   {Command: "x", Headers: map[string]string{"A": "b"}},
	}
	for name, c := range bad {
		if err := mcp.Validate(map[string]mcp.ServerConfig{name: c}); err == nil {
			t.Errorf("%s: accepted %+v", name, c)
		}
	}
	if err := mcp.Validate(map[string]mcp.ServerConfig{"ok-1": {Command: "x"}, "web": {URL: "https://h/mcp"}}); err != nil {
		t.Fatal(err)
	}
}
