package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// firstHourRow is one row of issue 34 ("the first hour of a person who
// double-clicked it") as a browser test: what the fake provider answers,
// how the binary is started, and the row's part of firsthour.e2e.mjs.
type firstHourRow struct {
	row int
	// script enqueues the provider's answers; it returns the scenario's stalls.
	script func(srv *llmtest.Server) gates
	// firstLaunch starts the binary as a first launch from the desktop
	// menu: no provider in the environment, no --model.
	firstLaunch bool
	// approvalMode is --approval-mode (default auto-all).
	approvalMode string
	// mcp configures the mcptest server as "t" in settings.json.
	mcp bool
	// check runs after the scenario, on what the provider and the folder saw.
	check func(t *testing.T, srv *llmtest.Server, project string)
}

func answer(text string) llmtest.Response {
	return llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 900, Output: 30}).Text(text).Finish("end_turn", 8).Response()
}

func toolTurn(id, name, input string) llmtest.Response {
	return llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 900, Output: 30}).
		Text("Calling a tool.").ToolUse(id, name, input).Finish("tool_use", 20).Response()
}

var unauthorized = llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key"))

// firstHourRows are the rows whose fix a browser shows (row 1 holds row 12
// too); rows 13 and 17 are the desktop window's (app/desktoptest).
var firstHourRows = []firstHourRow{
	{row: 1, approvalMode: "ask", script: func(srv *llmtest.Server) gates {
		srv.Enqueue(toolTurn("toolu_ls", "bash", `{"command": "git status && ls -la"}`), answer("Listed."))
		srv.Enqueue(toolTurn("toolu_ls2", "bash", `{"command": "ls"}`), answer("Listed again."))
		return nil
	}},
	{row: 2, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(toolTurn("toolu_seq", "bash", `{"command": "seq 1 400"}`), answer("Counted."))
		return nil
	}},
	{row: 3, mcp: true, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(toolTurn("toolu_slow", "t__slow", `{"steps": 60}`), answer("Slow done."))
		srv.Enqueue(toolTurn("toolu_fast", "t__fast", `{"text": "one result line"}`), answer("Fast done."))
		return nil
	}},
	{row: 4, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(unauthorized, answer("Answered after the retry."))
		return nil
	}, check: func(t *testing.T, srv *llmtest.Server, _ string) {
		reqs := srv.Requests()
		if len(reqs) != 2 || strings.Count(string(reqs[1].Body), "Please answer this.") != 1 {
			t.Errorf("the retry's request does not hold the question exactly once (%d requests)", len(reqs))
		}
	}},
	{row: 5, approvalMode: "ask", script: func(srv *llmtest.Server) gates {
		srv.Enqueue(toolTurn("toolu_edit", "edit_file", `{"path": "lines.txt", "old": "line 6\n", "new": "line six\n"}`), answer("Edited."))
		return nil
	}, check: func(t *testing.T, _ *llmtest.Server, project string) {
		if b, _ := os.ReadFile(filepath.Join(project, "lines.txt")); !strings.Contains(string(b), "line 5\nline six\nline 7\n") {
			t.Errorf("lines.txt after the approved edit: %q", b)
		}
	}},
	{row: 6, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(answer("First answer."), answer("Second answer."), answer("- The user asked twice."))
		return nil
	}},
	{row: 7, script: func(*llmtest.Server) gates { return nil }},
	{row: 8, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(toolTurn("toolu_seq", "bash", `{"command": "seq 1 500 | sed 's/^/row-/'"}`), answer("Listed the rows."))
		return nil
	}},
	{row: 9, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(answer("Right model."))
		return nil
	}},
	{row: 10, firstLaunch: true, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(answer("pong")) // Test connection's one tiny call
		return nil
	}, check: func(t *testing.T, srv *llmtest.Server, _ string) {
		var body struct {
			MaxTokens int `json:"max_tokens"`
		}
		if reqs := srv.Requests(); len(reqs) != 1 || reqs[0].Decode(&body) != nil || body.MaxTokens != 1 {
			t.Errorf("Test connection made %d calls (max_tokens %d), want one tiny one", len(reqs), body.MaxTokens)
		}
	}},
	{row: 11, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(answer("Read the notes."))
		return nil
	}, check: func(t *testing.T, srv *llmtest.Server, _ string) {
		if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), `file path=\"notes.txt\"`) {
			t.Error("the first message's @-mentioned file did not reach the model")
		}
	}},
	{row: 14, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(unauthorized)
		return nil
	}},
	{row: 15, approvalMode: "ask", script: func(srv *llmtest.Server) gates {
		srv.Enqueue(toolTurn("toolu_ok", "bash", `{"command": "echo approved"}`), answer("Ran it."))
		return nil
	}},
	{row: 19, script: func(srv *llmtest.Server) gates {
		srv.Enqueue(answer("A short answer."))
		stall := llmtest.NewGate()
		srv.Enqueue(llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 900}).BeginText().
			TextDelta(strings.Repeat("streamed words of a reply ", 15)).Stall(stall).TextDelta("never").EndBlock().Finish("end_turn", 9).Response())
		return gates{"never": stall}
	}},
}

// TestFirstHourInBrowser walks issue 34 in chromium, one row per subtest
// against its own fresh headless binary (firsthour.e2e.mjs, E2E_ROW), with
// real clicks and key presses; rows 2, 4, 5 and 10 save screenshots.
func TestFirstHourInBrowser(t *testing.T) {
	for _, r := range firstHourRows {
		t.Run(fmt.Sprintf("row%02d", r.row), func(t *testing.T) { firstHour(t, r) })
	}
}

func firstHour(t *testing.T, r firstHourRow) {
	root, node, ctx := browserTest(t, 2*time.Minute)
	srv := llmtest.NewServer(t)
	stalls := r.script(srv)
	defer stalls.releaseAll()
	project := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&lines, "line %d\n", i)
	}
	for name, body := range map[string]string{"notes.txt": "alpha\nbeta\n", "lines.txt": lines.String()} {
		if err := os.WriteFile(filepath.Join(project, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("E2E_PROJECT", project)
	t.Setenv("E2E_ROW", fmt.Sprint(r.row))
	dataDir, workspace := freshDirs(t)
	if r.mcp {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		settings, _ := json.Marshal(map[string]any{"mcp_servers": map[string]any{"t": map[string]any{
			"command": self, "env": map[string]string{"AGENTHUB_MCPTEST": "stdio"}}}})
		if err := os.WriteFile(filepath.Join(dataDir, "settings.json"), settings, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// No session bus: keys go to the data dir's key file (row 18 reads how Settings says so).
	env := []string{"ANTHROPIC_BASE_URL=" + srv.URL, "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent"}
	mode := r.approvalMode
	if mode == "" {
		mode = "auto-all"
	}
	var info dashboardInfo
	var stop func()
	bin := headlessBin(t, ctx, root)
	if r.firstLaunch {
		info, stop = launchHeadlessArgs(t, ctx, bin, dataDir, env, "--workspace", workspace)
	} else {
		info, stop = launchHeadless(t, ctx, bin, dataDir, project, append(env, "ANTHROPIC_API_KEY=test-key"), "--approval-mode", mode)
	}
	t.Cleanup(stop)
	runScenario(t, ctx, root, node, "firsthour.e2e.mjs", info, stalls)
	if r.check != nil {
		r.check(t, srv, project)
	}
}
