package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// dailyAnswer is the Markdown of the first answer in daily.e2e.mjs: the
// word it searches for, a task list, an aligned table, a quote and a code
// block with a long line.
var dailyAnswer = "Done: the zebrafish notes are edited.\n\n" +
	"- [x] edit the notes\n- [ ] tell the user\n\n" +
	"| file | lines |\n|:----:|------:|\n| notes.txt | 3 |\n\n" +
	"> The quoted line.\n\n" +
	"```go\nfmt.Println(\"" + strings.Repeat("a very long line ", 12) + "\")\n```\n"

// dailyScript enqueues the provider responses of daily.e2e.mjs in the order
// the hub makes the calls (title calls are answered outside the script).
func dailyScript(srv *llmtest.Server) gates {
	usage := llmtest.AnthropicUsage{Input: 900, Output: 30}
	stream := func() *llmtest.AnthropicStream { return llmtest.NewAnthropicStream(model, usage) }
	thinking := llmtest.NewGate()
	// Turn 1: thinking (held until the scenario saw it live), an edit and a command.
	srv.Enqueue(stream().BeginThinking().ThinkingDelta("Planning the edit").Stall(thinking).
		ThinkingDelta(" and the command.").SignatureDelta("sig-e2e").EndBlock().
		Text("I'll edit the notes and count.").
		ToolUse("toolu_edit", "edit_file", `{"path": "notes.txt", "old": "beta", `, `"new": "BETA"}`).
		ToolUse("toolu_seq", "bash", `{"command": "seq 1 3000"}`).
		Finish("tool_use", 30).Response())
	srv.Enqueue(stream().Text(dailyAnswer).Finish("end_turn", 60).Response())
	// Turn 2: two attempts fail mid-stream, the third answers.
	srv.Enqueue(stream().BeginText().TextDelta("Partial answer one").Error("overloaded_error", "Overloaded").Response())
	srv.Enqueue(stream().BeginText().TextDelta("Partial answer two").Error("overloaded_error", "Overloaded").Response())
	srv.Enqueue(stream().Text("The retried answer.").Finish("end_turn", 5).Response())
	// Turn 3 fails for good; its Retry (turn 4) answers.
	srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")))
	srv.Enqueue(stream().Text("Retried after the failure.").Finish("end_turn", 5).Response())
	// Turn 5: the long message.
	srv.Enqueue(stream().Text("Noted.").Finish("end_turn", 3).Response())
	// Turn 6: a delegation the user stops while the worker writes.
	srv.Enqueue(stream().Text("Delegating.").ToolUse("toolu_deleg", "delegate", `{"task": "Count the notes"}`).Finish("tool_use", 10).Response())
	srv.Enqueue(stream().BeginText().TextDelta("Worker counting the notes").Stall(llmtest.NewGate()).TextDelta(" done.").EndBlock().Finish("end_turn", 5).Response())
	// Turn 7: after the model was changed to one without a known price.
	srv.Enqueue(llmtest.NewAnthropicStream("claude-unknown-9", usage).Text("Priced unknown.").Finish("end_turn", 4).Response())
	// Compact (issue 34: everything but the last exchange): the summary call.
	srv.Enqueue(llmtest.NewAnthropicStream("claude-unknown-9", usage).Text("- The user edited the notes.").Finish("end_turn", 6).Response())
	// Turn 8: a message with an @-mentioned file (issue 17).
	srv.Enqueue(llmtest.NewAnthropicStream("claude-unknown-9", usage).Text("Read the notes.").Finish("end_turn", 4).Response())
	return gates{"release-thinking": thinking}
}

// TestDailyDriverInBrowser walks the daily-driver problems of issue 15 in
// chromium (daily.e2e.mjs), once in a window 1440, 800 and 420 px wide: a provider configured from Settings without a
// reload, a session created by its first message in a chosen folder, live
// thinking, one tool output and the full-output panel, coloured numbered
// diffs, Markdown, auto titles, copy, retried attempts as one answer, a
// failed turn with Retry after a reload, the composer, long messages, the
// title badge, search, the delegation card, per-session model, failed
// compaction, keyboard and the layout.
func TestDailyDriverInBrowser(t *testing.T) {
	for _, width := range []int{1440, 800, 420} {
		t.Run(fmt.Sprintf("%dpx", width), func(t *testing.T) { dailyAt(t, width) })
	}
}

// dailyAt runs daily.e2e.mjs in a window width px wide against a fresh
// headless binary and checks what the provider and the folder saw.
func dailyAt(t *testing.T, width int) {
	root, node, ctx := browserTest(t, 4*time.Minute)
	srv := llmtest.NewServer(t)
	stalls := dailyScript(srv)
	defer stalls.releaseAll()
	project := filepath.Join(t.TempDir(), "proj")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "notes.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "AGENTS.md"), []byte("Keep the notes sorted.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("E2E_PROJECT", project)
	t.Setenv("E2E_WIDTH", fmt.Sprint(width))
	// The key comes from Settings (the scenario types it); the base URL from
	// the environment. No session bus: keys go to the data dir's key file.
	info := startHeadlessEnv(t, ctx, root, []string{"ANTHROPIC_BASE_URL=" + srv.URL, "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent"},
		"--approval-mode", "auto-all")
	runScenario(t, ctx, root, node, "daily.e2e.mjs", info, stalls)

	if b, err := os.ReadFile(filepath.Join(project, "notes.txt")); err != nil || string(b) != "alpha\nBETA\ngamma\n" {
		t.Errorf("notes.txt in the chosen folder = %q (%v)", b, err)
	}
	if reqs := srv.Requests(); len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "Keep the notes sorted.") {
		t.Error("the first request's system prompt lacks the project's AGENTS.md")
	}
	// (The SDK's JSON escapes < and >: look for the parts between them.)
	if reqs := srv.Requests(); len(reqs) == 0 || !strings.Contains(string(reqs[len(reqs)-1].Body), `file path=\"notes.txt\" bytes=\"17\"`) ||
		!strings.Contains(string(reqs[len(reqs)-1].Body), `\nalpha\nBETA\ngamma\n`) {
		t.Error("the last request lacks the @-mentioned notes.txt as it is now")
	}
	var models []string
	for _, r := range srv.Requests() {
		var body struct {
			Model string `json:"model"`
		}
		if err := r.Decode(&body); err == nil {
			models = append(models, body.Model)
		}
	}
	if len(models) == 0 || models[len(models)-1] != "claude-unknown-9" {
		t.Errorf("the last request's model is not the one chosen in the header: %v", models)
	}
	if n := len(srv.TitleRequests()); n != 1 {
		t.Errorf("%d title requests, want 1 (the session is named once)", n)
	}
}
