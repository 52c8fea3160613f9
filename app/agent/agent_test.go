package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"agenthub/app/agent"
	"agenthub/app/llm/llmtest"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

// TestParallelToolsOverlap: the two tool calls of one message run at the
// same time. Each tool waits until the other has started, so a sequential
// loop could never finish either; the event order shows both tool.called
// before any tool.completed.
func TestParallelToolsOverlap(t *testing.T) {
	aStarted, bStarted := make(chan struct{}), make(chan struct{})
	rendezvous := func(mine, other chan struct{}) func(context.Context, tool.Env, json.RawMessage) (tool.Result, error) {
		return func(ctx context.Context, _ tool.Env, _ json.RawMessage) (tool.Result, error) {
			close(mine)
			select {
			case <-other:
				return tool.Result{Output: "done"}, nil
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			case <-time.After(guard):
				return tool.Result{}, errors.New("the other tool never started: tools ran sequentially")
			}
		}
	}
	f := newFixture(t,
		testTool{name: "slow_a", run: rendezvous(aStarted, bStarted)},
		testTool{name: "slow_b", run: rendezvous(bStarted, aStarted)},
	)
	script := f.scripted(toolCalls([2]string{"tu_a", "slow_a"}, [2]string{"tu_b", "slow_b"}), llmtest.TextReply("both done"))
	out := f.run(context.Background())
	if out.Status != agent.StatusCompleted || out.FinalText != "both done" {
		t.Fatalf("outcome %+v", out)
	}
	var called, completed []int
	for i, typ := range f.rec.types() {
		switch typ {
		case ipc.TypeToolCalled:
			called = append(called, i)
		case ipc.TypeToolCompleted:
			completed = append(completed, i)
		case ipc.TypeToolFailed:
			t.Fatalf("a tool failed: %v", f.rec.payloads(ipc.TypeToolFailed))
		}
	}
	if len(called) != 2 || len(completed) != 2 || called[1] > completed[0] {
		t.Fatalf("tool events not overlapping: called at %v, completed at %v (%v)", called, completed, f.rec.types())
	}
	sent := map[string]store.Message{}
	for _, m := range script.Requests()[1].Messages {
		if m.Role == store.RoleToolResult {
			sent[m.ToolCallID] = m
		}
	}
	if a, b := sent["tu_a"], sent["tu_b"]; len(a.Content) == 0 || a.Content[0].Text != "done" || a.IsError || len(b.Content) == 0 || b.Content[0].Text != "done" {
		t.Fatalf("results sent to the model: %+v", sent)
	}
}

// TestCancelAtSeamSyntheticResults: a cancel between the model's answer and
// the tools (the §6.2.3 seam) runs no tool; every call gets tool.failed
// (cancelled) and a stored synthetic error result with the cancel text.
func TestCancelAtSeamSyntheticResults(t *testing.T) {
	ran := make(chan string, 2)
	run := func(ctx context.Context, env tool.Env, _ json.RawMessage) (tool.Result, error) {
		ran <- env.ToolUseID
		return tool.Result{Output: "ran"}, nil
	}
	f := newFixture(t, testTool{name: "t1", run: run}, testTool{name: "t2", run: run})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.cfg.BeforeTools = func(context.Context) { cancel() }
	f.cfg.CancelText = func(context.Context) string { return "cancelled: test" }
	f.scripted(toolCalls([2]string{"tu_1", "t1"}, [2]string{"tu_2", "t2"}))
	out := f.run(ctx)
	if out.Status != agent.StatusCancelled || strings.Join(out.CancelledTools, ",") != "tu_1,tu_2" {
		t.Fatalf("outcome %+v", out)
	}
	if len(ran) != 0 {
		t.Fatal("a tool ran after the cancel")
	}
	for _, p := range f.rec.payloads(ipc.TypeToolFailed) {
		tf := p.(ipc.ToolFailed)
		if tf.ErrorClass != ipc.ToolErrCancelled || tf.Message != "cancelled: test" {
			t.Fatalf("tool.failed %+v", tf)
		}
	}
	if n := len(f.rec.payloads(ipc.TypeToolFailed)); n != 2 || len(f.rec.payloads(ipc.TypeToolCalled)) != 0 {
		t.Fatalf("%d tool.failed, events %v", n, f.rec.types())
	}
	for _, id := range []string{"tu_1", "tu_2"} {
		r := f.result(id)
		if !r.IsError || r.Content[0].Text != "cancelled: test" || r.TurnID != f.cfg.TurnID {
			t.Fatalf("synthetic result %+v", r)
		}
	}
}

// TestCancelMidToolSyntheticResult: a running tool cut short by the cancel
// ends with tool.failed (cancelled) and a synthetic result.
func TestCancelMidToolSyntheticResult(t *testing.T) {
	f := newFixture(t, testTool{name: "block", run: func(ctx context.Context, _ tool.Env, _ json.RawMessage) (tool.Result, error) {
		<-ctx.Done()
		return tool.Result{}, &tool.Error{Class: errclass.ToolCancelled, Message: "killed"}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.rec.onDraft = func(d ipc.Draft) {
		if d.Type == ipc.TypeToolCalled {
			cancel()
		}
	}
	f.scripted(toolCalls([2]string{"tu_1", "block"}))
	out := f.run(ctx)
	if out.Status != agent.StatusCancelled || len(out.CancelledTools) != 1 {
		t.Fatalf("outcome %+v", out)
	}
	fails := f.rec.payloads(ipc.TypeToolFailed)
	if len(fails) != 1 || fails[0].(ipc.ToolFailed).ErrorClass != ipc.ToolErrCancelled {
		t.Fatalf("tool.failed %+v", fails)
	}
	if r := f.result("tu_1"); !r.IsError || r.Content[0].Text != "cancelled by user" {
		t.Fatalf("synthetic result %+v", r)
	}
}

// TestCancelMidStreamSyntheticResult: a cancel while the model still streams
// stores the partial message (status cancelled) and, in the same commit, a
// synthetic result for the tool call it already contained.
func TestCancelMidStreamSyntheticResult(t *testing.T) {
	f := newFixture(t, testTool{name: "t1", run: func(context.Context, tool.Env, json.RawMessage) (tool.Result, error) {
		return tool.Result{}, errors.New("must not run")
	}})
	gate := llmtest.NewGate()
	f.srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10}).
		ToolUse("tu_1", "t1", `{}`).Stall(gate).Finish("tool_use", 5).Response())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.rec.onDraft = func(d ipc.Draft) {
		if d.Type == ipc.TypeToolUseEnd { // the block is whole; the stream is held at the gate
			cancel()
		}
	}
	out := f.run(ctx)
	if out.Status != agent.StatusCancelled || out.PartialMessageID == "" || strings.Join(out.CancelledTools, ",") != "tu_1" {
		t.Fatalf("outcome %+v", out)
	}
	var partial store.Message
	for _, m := range f.messages() {
		if m.ID == out.PartialMessageID {
			partial = m
		}
	}
	if partial.Status != store.StatusCancelled || len(partial.Content) != 1 || partial.Content[0].ID != "tu_1" {
		t.Fatalf("partial message %+v", partial)
	}
	if r := f.result("tu_1"); !r.IsError {
		t.Fatalf("synthetic result %+v", r)
	}
	failed := f.rec.payloads(ipc.TypeLLMCallFailed)
	if len(failed) != 1 || failed[0].(ipc.LLMCallFailed).ErrorClass != ipc.ErrClassCancelled {
		t.Fatalf("llm.call_failed %+v", failed)
	}
}

// TestToolResultCap: an output over MaxResultBytes reaches the model and the
// store as its head and tail around an omission marker, cut at UTF-8
// boundaries; tool.completed says truncated and gives the full size.
func TestToolResultCap(t *testing.T) {
	big := "BEGIN" + strings.Repeat("é", 5000) + "END" // 10,008 bytes
	f := newFixture(t, testTool{name: "big", run: func(context.Context, tool.Env, json.RawMessage) (tool.Result, error) {
		return tool.Result{Output: big}, nil
	}})
	f.cfg.MaxResultBytes = 1001
	f.srv.Enqueue(toolsReply([2]string{"tu_1", "big"}), textReply("ok"))
	if out := f.run(context.Background()); out.Status != agent.StatusCompleted {
		t.Fatalf("outcome %+v", out)
	}
	done := f.rec.payloads(ipc.TypeToolCompleted)
	if len(done) != 1 {
		t.Fatalf("tool.completed %+v", done)
	}
	tc := done[0].(ipc.ToolCompleted)
	if !tc.Truncated || tc.OutputBytes != int64(len(big)) {
		t.Fatalf("tool.completed truncated=%v output_bytes=%d", tc.Truncated, tc.OutputBytes)
	}
	got := tc.Output
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "BEGIN") || !strings.HasSuffix(got, "END") ||
		!strings.Contains(got, "bytes omitted") || len(got) > 1001+64 {
		t.Fatalf("capped output (%d bytes) %q…", len(got), got[:min(80, len(got))])
	}
	if r := f.result("tu_1"); r.Content[0].Text != got {
		t.Fatal("stored result differs from tool.completed output")
	}
	if sent := toolResults(t, f.srv.Requests()[1])["tu_1"]; sent.Text != got {
		t.Fatalf("the model saw %d bytes, want the capped %d", len(sent.Text), len(got))
	}
}

// TestUnknownTool: a call to a tool that does not exist fails with
// unknown_tool, and the model sees an error result saying so.
func TestUnknownTool(t *testing.T) {
	f := newFixture(t)
	f.srv.Enqueue(toolsReply([2]string{"tu_x", "frobnicate"}), textReply("sorry"))
	out := f.run(context.Background())
	if out.Status != agent.StatusCompleted || out.FinalText != "sorry" {
		t.Fatalf("outcome %+v", out)
	}
	fails := f.rec.payloads(ipc.TypeToolFailed)
	if len(fails) != 1 {
		t.Fatalf("tool.failed %+v", fails)
	}
	tf := fails[0].(ipc.ToolFailed)
	if tf.ErrorClass != ipc.ToolErrUnknownTool || tf.ToolName != "frobnicate" || !strings.Contains(tf.Message, "frobnicate") {
		t.Fatalf("tool.failed %+v", tf)
	}
	if len(f.rec.payloads(ipc.TypeToolCalled)) != 0 {
		t.Fatal("tool.called emitted for an unknown tool")
	}
	sent := toolResults(t, f.srv.Requests()[1])["tu_x"]
	if !sent.IsError || !strings.Contains(sent.Text, `unknown tool "frobnicate"`) {
		t.Fatalf("the model saw %+v", sent)
	}
}

// TestStuckToolAbandonedAfterGrace: a tool stuck where ctx cannot reach it
// (like open(2) on a FIFO) does not hold the turn: ToolGrace after the
// cancel the turn ends cancelled, the call is reported abandoned, and
// output it writes afterwards is dropped.
func TestStuckToolAbandonedAfterGrace(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	finished := make(chan struct{})
	var once sync.Once
	unstick := func() { once.Do(func() { close(release) }) }
	t.Cleanup(func() { unstick(); <-finished })
	f := newFixture(t, testTool{name: "stuck", run: func(_ context.Context, env tool.Env, _ json.RawMessage) (tool.Result, error) {
		defer close(finished)
		close(started)
		<-release // ignores ctx, as a blocked syscall would
		env.Output("stdout", "late output")
		return tool.Result{Output: "too late"}, nil
	}})
	f.cfg.ToolGrace = 50 * time.Millisecond
	f.srv.Enqueue(toolsReply([2]string{"tu_1", "stuck"}))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	out := f.run(ctx)
	if out.Status != agent.StatusCancelled || strings.Join(out.CancelledTools, ",") != "tu_1" {
		t.Fatalf("outcome %+v", out)
	}
	fails := f.rec.payloads(ipc.TypeToolFailed)
	if len(fails) != 1 || fails[0].(ipc.ToolFailed).ErrorClass != ipc.ToolErrCancelled ||
		!strings.Contains(fails[0].(ipc.ToolFailed).Message, "abandoned") {
		t.Fatalf("tool.failed %+v", fails)
	}
	unstick()
	<-finished
	for _, d := range f.rec.payloads(ipc.TypeToolOutputDelta) {
		t.Fatalf("output after abandonment was recorded: %+v", d)
	}
}

// TestCancelledReplyEstimatesItsOutput (issue 34 row 19): a reply cut
// short has no usage from the provider (it comes with the stream's end);
// its output tokens are estimated from the streamed text and marked so.
func TestCancelledReplyEstimatesItsOutput(t *testing.T) {
	f := newFixture(t)
	gate := llmtest.NewGate()
	defer gate.Release()
	words := strings.Repeat("streamed words of a reply ", 12) // 312 characters ≈ 78 tokens
	f.srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10}).
		BeginText().TextDelta(words).Stall(gate).TextDelta("never sent").EndBlock().Finish("end_turn", 5).Response())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.rec.onDraft = func(d ipc.Draft) {
		if d.Type == ipc.TypeTextDelta {
			cancel()
		}
	}
	out := f.run(ctx)
	var partial store.Message
	for _, m := range f.messages() {
		if m.ID == out.PartialMessageID {
			partial = m
		}
	}
	want := int64((len(words) + 3) / 4)
	if partial.Usage == nil || partial.Usage.OutputTokens != want || !partial.Usage.OutputEstimated {
		t.Fatalf("the cancelled reply's usage = %+v, want %d output tokens, estimated", partial.Usage, want)
	}
	if !out.Usage.OutputEstimated || out.Usage.OutputTokens != want {
		t.Fatalf("the turn's usage = %+v", out.Usage)
	}
}
