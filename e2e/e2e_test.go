// Package e2e runs the UI end to end: the real headless binary, a fake
// Anthropic server speaking the real SSE wire format, and Debian's chromium
// driven by playwright-core (the scenarios chat.e2e.mjs and
// approvals.e2e.mjs, on scenario.mjs).
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/llm/llmtest"
	"agenthub/app/mcp/mcptest"
)

const (
	chromiumPath = "/usr/bin/chromium"
	model        = "claude-sonnet-4-6"
)

// repoRoot is the module root (this package lives in e2e/).
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(wd)
}

// gates are the stalls of a scenario, released when it prints
// "SYNC <name>".
type gates map[string]*llmtest.Gate

// releaseAll lets every stalled stream finish (test teardown).
func (g gates) releaseAll() {
	for _, x := range g {
		x.Release()
	}
}

// script enqueues the provider responses of the scenario in chat.e2e.mjs, in
// the order the hub makes the calls, and returns the gates of its stalls.
func script(srv *llmtest.Server) gates {
	usage := llmtest.AnthropicUsage{Input: 1200, Output: 40}
	// Turn 1, call 1: a bash tool call.
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		Text("I'll run a command first.").
		ToolUse("toolu_e2e_1", "bash", `{"command": "echo hello`, `-from-tool"}`).
		Finish("tool_use", 40).Response())
	// Turn 1, call 2: streamed Markdown that stalls mid-text until released.
	midText := llmtest.NewGate()
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		BeginText().
		TextDelta("## Result\n\nPart one: the tool printed ").
		TextDelta("`hello-from-tool`.\n\n").
		TextDelta("Part one continues with **bold** text").
		Stall(midText).
		TextDelta(" and then part two.\n\n```go\nfmt.Println(\"hi\")\n```\n\n").
		TextDelta("The end.").
		EndBlock().
		Finish("end_turn", 60).Response())
	// Turn 2: a stream that never finishes on its own (the user cancels it).
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		BeginText().
		TextDelta("Counting: 1 2 3").
		Stall(llmtest.NewGate()).
		TextDelta(" 4").
		EndBlock().
		Finish("end_turn", 10).Response())
	// Turn 3: an authentication failure (not retriable).
	srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")))

	// Second session, turn 1, call 1: the model delegates.
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		Text("Delegating the summary.").
		ToolUse("toolu_e2e_deleg", "delegate", `{"task": "Summarise the README `, `in one line"}`).
		Finish("tool_use", 30).Response())
	// The worker session's own turn: streamed text that stalls until released.
	worker := llmtest.NewGate()
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		BeginText().
		TextDelta("Worker reading the README").
		Stall(worker).
		TextDelta(" and done: the README explains the build.").
		EndBlock().
		Finish("end_turn", 20).Response())
	// Turn 1, call 2: the parent answers with the worker's result.
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		Text("The worker says the README explains the build.").
		Finish("end_turn", 15).Response())
	// Turn 2 (queued while turn 1 ran).
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		Text("You are welcome.").
		Finish("end_turn", 5).Response())
	// Turn 3: the answer to a long paste (large enough that compaction removes it).
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		Text("Noted the long log.").
		Finish("end_turn", 5).Response())
	// Compact on request: the summary call, stalled so the indicator shows.
	summary := llmtest.NewGate()
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		BeginText().
		TextDelta("- The user asked for a README summary; a worker did it.").
		Stall(summary).
		TextDelta("\n- The user pasted a long log.").
		EndBlock().
		Finish("end_turn", 25).Response())
	return gates{"release-stream": midText, "release-worker": worker, "release-summary": summary}
}

// wantRequests is how many provider calls the scenario makes.
const wantRequests = 10

// dashboardInfo is DATA_DIR/dashboard.json.
type dashboardInfo struct {
	URL   string `json:"url"`
	Port  int    `json:"port"`
	Token string `json:"token"`
}

// waitDashboard waits until the headless process has written dashboard.json
// (it prints the URL line right after) by reading its stdout.
func waitDashboard(t *testing.T, stdout io.Reader, dataDir string) dashboardInfo {
	t.Helper()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "dashboard: ") {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			b, err := os.ReadFile(filepath.Join(dataDir, "dashboard.json"))
			if err != nil {
				t.Fatalf("read dashboard.json: %v", err)
			}
			var info dashboardInfo
			if err := json.Unmarshal(b, &info); err != nil {
				t.Fatalf("decode dashboard.json: %v", err)
			}
			return info
		}
	}
	t.Fatalf("the headless binary exited without printing the dashboard URL (scan: %v)", sc.Err())
	return dashboardInfo{}
}

// headlessBin is the binary under test: `make test` builds it once and
// passes it in AGENTHUB_HEADLESS_BIN; a plain `go test` builds it here, once.
func headlessBin(t *testing.T, ctx context.Context, root string) string {
	t.Helper()
	if bin := os.Getenv("AGENTHUB_HEADLESS_BIN"); bin != "" {
		return bin
	}
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "agenthub-e2e-bin-")
		if err != nil {
			build.err = err
			return
		}
		build.bin = filepath.Join(dir, "agenthub")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", build.bin, ".")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.bin
}

var build struct {
	once sync.Once
	bin  string
	err  error
}

// startHeadless runs the headless binary on a fresh data dir and workspace
// against srv, with extra flags; it is stopped (and its log shown if the
// test failed) at cleanup. It returns the dashboard's address and token.
func startHeadless(t *testing.T, ctx context.Context, root string, srv *llmtest.Server, extra ...string) dashboardInfo {
	t.Helper()
	return startHeadlessEnv(t, ctx, root, []string{"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test-key"}, extra...)
}

// startHeadlessEnv is startHeadless with the provider environment given
// (apptest.Env() plus env).
func startHeadlessEnv(t *testing.T, ctx context.Context, root string, env []string, extra ...string) dashboardInfo {
	t.Helper()
	bin := headlessBin(t, ctx, root)
	dataDir, workspace := apptest.Dirs(t)
	info, stop := launchHeadless(t, ctx, bin, dataDir, workspace, env, extra...)
	t.Cleanup(stop)
	return info
}

// launchHeadless starts bin --headless on dataDir and workspace with the
// provider environment env (apptest.Env() plus env) and extra flags, and
// returns the dashboard's address and token, and stop: it interrupts the
// process, waits for it (killing it after 10 s) and shows its log if the
// test failed. Calling stop twice is harmless.
func launchHeadless(t *testing.T, ctx context.Context, bin, dataDir, workspace string, env []string, extra ...string) (dashboardInfo, func()) {
	t.Helper()
	return launchHeadlessArgs(t, ctx, bin, dataDir, env, append([]string{"--workspace", workspace, "--model", "anthropic:" + model}, extra...)...)
}

// launchHeadlessArgs is launchHeadless with only the dashboard and data
// dir flags given: args names the rest (no --model: a first launch).
func launchHeadlessArgs(t *testing.T, ctx context.Context, bin, dataDir string, env []string, extra ...string) (dashboardInfo, func()) {
	t.Helper()
	args := append([]string{"--headless", "--listen", "127.0.0.1:0", "--data-dir", dataDir}, extra...)
	app := exec.CommandContext(ctx, bin, args...)
	app.Env = append(apptest.Env(), env...)
	var appLog apptest.Buffer
	app.Stderr = &appLog
	stdout, err := app.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Start(); err != nil {
		t.Fatalf("start agenthub: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- app.Wait() }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = app.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = app.Process.Kill()
				<-exited
			}
			if t.Failed() {
				t.Logf("agenthub log:\n%s", appLog.String())
			}
		})
	}
	info := waitDashboard(t, stdout, dataDir)
	if info.Token == "" || !strings.Contains(info.URL, "token=") {
		stop()
		t.Fatalf("dashboard.json = %+v", info)
	}
	return info, stop
}

// runScenario runs e2e/<script> (a scenario.mjs scenario) in chromium
// against the dashboard, releasing stalls when it asks, and fails the test
// unless it prints "E2E OK".
func runScenario(t *testing.T, ctx context.Context, root, node, script string, info dashboardInfo, stalls gates) {
	t.Helper()
	runScenarioWith(t, ctx, root, node, script, info, stalls, nil)
}

// actions are what a scenario may ask the Go side to do besides releasing
// a stall: sync(name) answers with the action's line (a new URL, say).
type actions map[string]func() string

// runScenarioWith is runScenario whose syncs may also name acts.
func runScenarioWith(t *testing.T, ctx context.Context, root, node, script string, info dashboardInfo, stalls gates, acts actions) {
	t.Helper()
	artifacts := filepath.Join(root, "artifacts")
	e2e := exec.CommandContext(ctx, node, filepath.Join(root, "e2e", script))
	e2e.Env = append(os.Environ(), "E2E_URL="+info.URL, "E2E_ARTIFACTS="+artifacts, "E2E_FRONTEND="+filepath.Join(root, "frontend"), "E2E_CHROMIUM="+chromiumPath)
	in, err := e2e.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := e2e.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var nodeErr strings.Builder
	e2e.Stderr = &nodeErr
	if err := e2e.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	var transcript []string
	ok := false
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		transcript = append(transcript, line)
		switch {
		case strings.HasPrefix(line, "SYNC ") && acts[strings.TrimPrefix(line, "SYNC ")] != nil:
			fmt.Fprintln(in, acts[strings.TrimPrefix(line, "SYNC ")]())
		case strings.HasPrefix(line, "SYNC "):
			g, known := stalls[strings.TrimPrefix(line, "SYNC ")]
			if !known {
				t.Errorf("%s asked for an unknown sync %q", script, line)
			} else {
				g.Release()
			}
			fmt.Fprintln(in, "released")
		case line == "E2E OK":
			ok = true
		}
	}
	_ = in.Close()
	err = e2e.Wait()
	t.Logf("%s transcript:\n%s", script, strings.Join(transcript, "\n"))
	if err != nil || !ok {
		t.Fatalf("%s failed (%v):\n%s", script, err, nodeErr.String())
	}
}

// TestMain lets this test binary serve the mcptest MCP server over stdio
// (TestMCPInBrowser adds it in Settings).
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	os.Exit(m.Run())
}

// TestMCPInBrowser: Settings adds an MCP stdio server, a turn calls its
// tool after an approval, Settings removes it (mcp.e2e.mjs).
func TestMCPInBrowser(t *testing.T) {
	root, node, ctx := browserTest(t, 3*time.Minute)
	srv := llmtest.NewServer(t)
	usage := llmtest.AnthropicUsage{Input: 900, Output: 30}
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("Calling the MCP tool.").
		ToolUse("toolu_mcp_1", "t__fast", `{"text": "from the browser"}`).Finish("tool_use", 20).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("The MCP tool answered.").Finish("end_turn", 10).Response())
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("E2E_MCP_COMMAND", self)
	info := startHeadless(t, ctx, root, srv, "--approval-mode", "ask")
	runScenario(t, ctx, root, node, "mcp.e2e.mjs", info, nil)
	var body struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if reqs := srv.Requests(); len(reqs) != 2 {
		t.Fatalf("the fake provider got %d requests, want 2", len(reqs))
	} else if err := reqs[0].Decode(&body); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tl := range body.Tools {
		found = found || tl.Name == "t__fast"
	}
	if !found {
		t.Fatal("the first LLM call was not offered t__fast")
	}
}

// browserTest prepares a browser test (or skips it): the module root, node,
// and a context that ends after limit.
func browserTest(t *testing.T, limit time.Duration) (root, node string, ctx context.Context) {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("e2e: %s is missing (apt-get install chromium); skipping the browser test", chromiumPath)
	}
	root, node, ctx = nodeTest(t, "playwright-core", limit)
	if _, err := os.Stat(filepath.Join(root, "frontend/dist/index.html")); err != nil {
		t.Fatal("e2e: frontend/dist/index.html is missing: build the frontend first (make frontend)")
	}
	return root, node, ctx
}

// nodeTest starts a test of a client that runs in node: it skips the test
// when node or frontend/node_modules/<module> (npm ci installs it) is
// missing, and returns the repository's root, node's path and a context
// that ends after limit.
func nodeTest(t *testing.T, module string, limit time.Duration) (root, node string, ctx context.Context) {
	t.Helper()
	root, ctx = repoContext(t, limit)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("e2e: node is not installed")
	}
	if _, err := os.Stat(filepath.Join(root, "frontend/node_modules", module, "package.json")); err != nil {
		t.Skipf("e2e: frontend/node_modules/%s is missing (cd frontend && npm ci)", module)
	}
	return root, node, ctx
}

// repoContext is the repository's root and a context that ends after
// limit, or with the test.
func repoContext(t *testing.T, limit time.Duration) (string, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	return repoRoot(t), ctx
}

func TestChatInBrowser(t *testing.T) {
	root, node, ctx := browserTest(t, 6*time.Minute)
	srv := llmtest.NewServer(t)
	stalls := script(srv)
	defer stalls.releaseAll()
	// The chat scenario's tool calls run without asking (approvals have
	// their own browser scenario).
	info := startHeadless(t, ctx, root, srv, "--approval-mode", "auto-all")
	runScenario(t, ctx, root, node, "chat.e2e.mjs", info, stalls)
	if reqs := srv.Requests(); len(reqs) != wantRequests {
		t.Errorf("the fake provider got %d requests, want %d (tool call, text, cancelled, failure, delegate, worker, "+
			"parent answer, queued turn, long paste, compaction summary)", len(reqs), wantRequests)
	}
}

// approvalScript enqueues the provider responses of approvals.e2e.mjs: three
// turns, each a bash call and the answer after it.
func approvalScript(srv *llmtest.Server) {
	usage := llmtest.AnthropicUsage{Input: 900, Output: 30}
	call := func(id, command string) {
		srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
			Text("Running a command.").
			ToolUse(id, "bash", `{"command": "`+command+`"}`).
			Finish("tool_use", 20).Response())
	}
	answer := func(text string) {
		srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text(text).Finish("end_turn", 10).Response())
	}
	call("toolu_ap_1", "echo approved-run") // approved with y (after a reload)
	answer("The first command ran.")
	call("toolu_ap_2", "rm -rf ./scratch") // denied with n and a message
	answer("Understood, I will not delete it.")
	call("toolu_ap_3", "echo auto-ran") // auto-approved
	answer("The third command ran.")
}

func TestApprovalsInBrowser(t *testing.T) {
	root, node, ctx := browserTest(t, 3*time.Minute)
	srv := llmtest.NewServer(t)
	approvalScript(srv)
	info := startHeadless(t, ctx, root, srv, "--approval-mode", "ask")
	runScenario(t, ctx, root, node, "approvals.e2e.mjs", info, nil)
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("the fake provider got %d requests, want 6 (three calls, three answers)", len(reqs))
	}
	// The denial reaches the model with the user's message.
	if body := string(reqs[3].Body); !strings.Contains(body, "The user denied this tool call") || !strings.Contains(body, "not today") {
		t.Errorf("the request after the denial does not carry it:\n%s", body)
	}
}
