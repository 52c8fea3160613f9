package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// TestAGUIClient drives real turns through POST /ag-ui with the stock
// @ag-ui/client HttpAgent (agui.e2e.mjs): plain text with reasoning, a
// second run with history and a tool call, a delegation, an abort and a
// provider error. No browser: the client runs in node.
func TestAGUIClient(t *testing.T) {
	root := repoRoot(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("e2e: node is not installed")
	}
	if _, err := os.Stat(filepath.Join(root, "frontend/node_modules/@ag-ui/client/package.json")); err != nil {
		t.Skip("e2e: frontend/node_modules/@ag-ui/client is missing (cd frontend && npm ci)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	srv := llmtest.NewServer(t)
	srv.AnswerTitles("AG-UI thread")
	usage := llmtest.AnthropicUsage{Input: 500, Output: 20}
	// 1. plain
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Thinking("sig-agui", "The user ", "wants a greeting.").
		Text("Hello ", "from Agent Hub.").Finish("end_turn", 10).Response())
	// 2. tools
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("Running it.").
		ToolUse("toolu_agui_1", "bash", `{"command": "echo agui`, `-tool-output"}`).Finish("tool_use", 20).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("The command printed agui-tool-output.").Finish("end_turn", 10).Response())
	// 3. delegation: the parent's call, the worker's turn, the parent's answer
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		ToolUse("toolu_agui_d", "delegate", `{"task": "count the files"}`).Finish("tool_use", 20).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("There are 3 files.").Finish("end_turn", 10).Response())
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("The worker counted 3 files.").Finish("end_turn", 10).Response())
	// 4. abort: text that stalls until the test ends
	stall := llmtest.NewGate()
	t.Cleanup(stall.Release)
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).BeginText().TextDelta("One, ").Stall(stall).
		TextDelta("two.").EndBlock().Finish("end_turn", 10).Response())
	// 5. provider error (not retriable)
	srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")))

	info := startHeadless(t, ctx, root, srv, "--approval-mode", "auto-all")
	runScenario(t, ctx, root, node, "agui.e2e.mjs", info, nil)
}
