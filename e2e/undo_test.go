package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/llm/llmtest"
)

// TestUndoInBrowser: a turn edits a file and runs a command that creates
// another; in an 800 px window the user opens "2 files changed", sees the
// diff, undoes after confirming, and the folder is as before the turn
// (undo.e2e.mjs).
func TestUndoInBrowser(t *testing.T) {
	root, node, ctx := browserTest(t, 3*time.Minute)
	srv := llmtest.NewServer(t)
	usage := llmtest.AnthropicUsage{Input: 900, Output: 30}
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("Editing and building.").
		ToolUse("toolu_edit", "edit_file", `{"path": "notes.txt", "old": "beta", "new": "BETA"}`).
		ToolUse("toolu_make", "bash", `{"command": "echo built > out.txt"}`).
		Finish("tool_use", 30).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("Edited the notes and built out.txt.").Finish("end_turn", 10).Response())
	bin := headlessBin(t, ctx, root)
	dataDir, workspace := apptest.Dirs(t)
	if err := os.WriteFile(filepath.Join(workspace, "notes.txt"), []byte("alpha\nbeta\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, stop := launchHeadless(t, ctx, bin, dataDir, workspace,
		[]string{"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test-key"}, "--approval-mode", "auto-all")
	t.Cleanup(stop)
	t.Setenv("E2E_WIDTH", "800")
	runScenario(t, ctx, root, node, "undo.e2e.mjs", info, nil)
	if b, err := os.ReadFile(filepath.Join(workspace, "notes.txt")); err != nil || string(b) != "alpha\nbeta\ngamma\n" {
		t.Errorf("notes.txt after the undo = %q (%v)", b, err)
	}
	if _, err := os.Stat(filepath.Join(workspace, "out.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("out.txt is still there after the undo (%v)", err)
	}
}
