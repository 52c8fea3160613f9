package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
	"agenthub/store"
)

// TestAGUIClient drives real turns through POST /ag-ui with the stock
// @ag-ui/client HttpAgent (agui.e2e.mjs): three runs on one thread (text
// with reasoning, a tool call, text) and a fresh client on it, each checked
// against the hub's history (ids, order, newMessages); a delegation; an
// abort; a provider error; a stream that breaks twice and is retried. No
// browser: the client runs in node.
func TestAGUIClient(t *testing.T) {
	root, node, ctx := nodeTest(t, "@ag-ui/client", 3*time.Minute)
	srv := llmtest.NewServer(t)
	srv.AnswerTitles("AG-UI thread")
	usage := llmtest.AnthropicUsage{Input: 500, Output: 20}
	text := func(s string) llmtest.Response {
		return llmtest.NewAnthropicStream(model, usage).Text(s).Finish("end_turn", 10).Response()
	}
	// 1. plain
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Thinking("sig-agui", "The user ", "wants a greeting.").
		Text("Hello ", "from Agent Hub.").Finish("end_turn", 10).Response())
	// 2. tools
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text("Running it.").
		ToolUse("toolu_agui_1", "bash", `{"command": "echo agui`, `-tool-output"}`).Finish("tool_use", 20).Response())
	srv.Enqueue(text("The command printed agui-tool-output."))
	// 3. a third run, then a fresh client's run on the thread
	srv.Enqueue(text("Third answer."), text("Fresh client answer."))
	// 4. delegation: the parent's call, the worker's turn, the parent's answer
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).
		ToolUse("toolu_agui_d", "delegate", `{"task": "count the files"}`).Finish("tool_use", 20).Response())
	srv.Enqueue(text("There are 3 files."), text("The worker counted 3 files."))
	// 5. abort: text that stalls until the test ends
	stall := llmtest.NewGate()
	t.Cleanup(stall.Release)
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).BeginText().TextDelta("One, ").Stall(stall).
		TextDelta("two.").EndBlock().Finish("end_turn", 10).Response())
	// 6. provider error (not retriable)
	srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")))
	// 7. a stream that breaks twice, then answers
	srv.Enqueue(llmtest.MidFail(model, 2, "Partial answer", "The retried answer.")...)

	info := startHeadless(t, ctx, root, srv, "--approval-mode", "auto-all")
	runScenarioWith(t, ctx, root, node, "agui.e2e.mjs", info, nil, actions{
		// The aborted run's turn: wait on the hub's own stream for its end.
		"abort-settled": func() string { return turnEndOfThread(ctx, t, info, "0190a0e4-7b3c-7000-8000-0000000000ab") },
	})
}

// turnEndOfThread waits for the running turn of the AG-UI thread's session
// to end and returns the event that ended it ("idle" when none runs).
func turnEndOfThread(ctx context.Context, t *testing.T, info dashboardInfo, threadID string) string {
	c := newDashClient(t, info)
	var sessions []store.Session
	c.http("GET", "/sessions", nil, &sessions)
	sid := ""
	for _, s := range sessions {
		if s.AGUIThreadID == threadID {
			sid = s.ID
		}
	}
	if sid == "" {
		return "no session for the thread"
	}
	defer c.hangUp()
	if ack := c.dial(ctx, sid, map[string]any{"type": "subscribe", "filter": "preset:chat", "since": nil, "snapshot": true}); ack["type"] != "subscribe_ack" {
		return fmt.Sprint(ack)
	}
	snap := c.read(ctx)
	sess, _ := snap["session"].(map[string]any)
	if sess["current_turn_id"] == nil {
		var page struct {
			Messages []store.Message `json:"messages"`
		}
		c.http("GET", "/sessions/"+sid+"/messages", nil, &page)
		for _, m := range page.Messages {
			if m.Turn != nil {
				return "turn." + m.Turn.Status // the turn ended before the subscription
			}
		}
		return "idle"
	}
	for {
		f := c.read(ctx)
		ev, _ := f["event"].(map[string]any)
		if typ, _ := ev["type"].(string); typ == "turn.cancelled" || typ == "turn.completed" {
			return typ
		}
	}
}
