package hub_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"agenthub/app/hub"
	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

func TestPlainTurnCanonicalOrderAndCost(t *testing.T) {
	h, s, w := watchedSession(t)
	h.srv.Enqueue(textReply("Hello", ", ", "world"))
	res := h.submit(s.ID, "hi")
	if res.TurnID == "" || res.Queued {
		t.Fatalf("submit = %+v", res)
	}
	end := w.turnEnd(s.ID)
	assertSeq(t, compress(only(w.got, s.ID)),
		"turn.started", "route.decided", "llm.call_started", "message.start", "text.delta*",
		"message.complete", "llm.call_completed", "turn.completed")
	var tc ipc.TurnCompleted
	end.decode(t, &tc)
	if tc.Status != ipc.TurnStatusCompleted || tc.StopReason != "end_turn" {
		t.Fatalf("turn.completed = %+v", tc)
	}
	var rd ipc.RouteDecided
	for _, e := range w.got {
		if e.Type == ipc.TypeRouteDecided {
			e.decode(t, &rd)
		}
	}
	if rd.Model != testModel || rd.Policy == "" || rd.PolicyVersion == "" || rd.Reason == "" {
		t.Fatalf("route.decided = %+v", rd)
	}
	ms := h.messages(s.ID)
	if len(ms) != 2 || ms[0].Role != store.RoleUser || ms[1].Role != store.RoleAssistant || ms[1].Status != store.StatusComplete {
		t.Fatalf("messages: %s", describe(ms))
	}
	if got := ms[1].Content[0].Text; got != "Hello, world" {
		t.Fatalf("assistant text %q", got)
	}
	// Cost: 100 input + 20 output tokens of claude-sonnet-4-6 at $3/$15 per MTok.
	want := (100*3.0 + 20*15.0) / 1e6
	if ms[1].Usage == nil || math.Abs(ms[1].Usage.CostUSD-want) > 1e-12 || ms[1].Usage.InputTokens != 100 || ms[1].Usage.OutputTokens != 20 {
		t.Fatalf("message usage %+v, want cost %v", ms[1].Usage, want)
	}
	if math.Abs(tc.Usage.CostUSD-want) > 1e-12 {
		t.Fatalf("turn usage %+v", tc.Usage)
	}
	sess, err := h.db.Session(s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sess.TurnCount != 1 || math.Abs(sess.CostSoFarUSD-want) > 1e-12 || sess.Usage.InputTokens != 100 || sess.CurrentTurnID != "" {
		t.Fatalf("session after turn: %+v", sess)
	}
	turns, _ := h.db.Turns(s.ID)
	if len(turns) != 1 || turns[0].Status != store.TurnCompleted {
		t.Fatalf("turns %+v", turns)
	}
	// Session lists learn the totals from the session.updated that follows.
	upd := w.untilType(ipc.TypeSessionUpdated)
	var sc ipc.SessionChanged
	upd.decode(t, &sc)
	if sc.Session.TurnCount != 1 || math.Abs(sc.Session.CostSoFarUSD-want) > 1e-12 || sc.Session.CurrentTurnID != "" {
		t.Fatalf("session.updated after the turn: %+v", sc.Session)
	}
}

func TestToolLoopWriteThenReadThenAnswer(t *testing.T) {
	h, s, w := watchedSession(t)
	h.srv.Enqueue(
		toolReply([3]string{"tu_1", "write_file", `{"path":"notes.md","content":"alpha\nbeta\n"}`}),
		toolReply([3]string{"tu_2", "read_file", `{"path":"notes.md"}`}),
		textReply("The file has two lines."),
	)
	h.submit(s.ID, "write and read notes.md")
	w.turnEnd(s.ID)
	assertSeq(t, compress(only(w.got, s.ID)),
		"turn.started", "route.decided",
		"llm.call_started", "message.start", "tool.use_start", "tool.use_input_delta*", "tool.use_end", "message.complete", "llm.call_completed",
		"tool.called", "tool.completed",
		"llm.call_started", "message.start", "tool.use_start", "tool.use_input_delta*", "tool.use_end", "message.complete", "llm.call_completed",
		"tool.called", "tool.completed",
		"llm.call_started", "message.start", "text.delta", "message.complete", "llm.call_completed",
		"turn.completed")
	b, err := os.ReadFile(filepath.Join(h.ws, "notes.md"))
	if err != nil || string(b) != "alpha\nbeta\n" {
		t.Fatalf("notes.md = %q, %v", b, err)
	}
	for _, e := range w.got {
		switch e.Type {
		case ipc.TypeToolCalled:
			var p ipc.ToolCalled
			e.decode(t, &p)
			if p.StatusText == "" || p.Summary == "" {
				t.Fatalf("tool.called without status/summary: %+v", p)
			}
		case ipc.TypeToolCompleted:
			var p ipc.ToolCompleted
			e.decode(t, &p)
			if p.StatusText == "" || p.Summary == "" || p.IsError {
				t.Fatalf("tool.completed: %+v", p)
			}
		case ipc.TypeToolUseEnd:
			var p ipc.ToolUseEnd
			e.decode(t, &p)
			if p.ToolUseID == "tu_1" && string(p.FinalInput) != `{"path":"notes.md","content":"alpha\nbeta\n"}` {
				t.Fatalf("final_input %s", p.FinalInput)
			}
		}
	}
	ms := h.messages(s.ID)
	if len(ms) != 6 || ms[2].Role != store.RoleToolResult || ms[2].ToolCallID != "tu_1" || ms[4].ToolCallID != "tu_2" {
		t.Fatalf("messages: %s", describe(ms))
	}
	// Seed 004's result layer is stored with the result, so a reload shows the same card.
	for _, i := range []int{2, 4} {
		if ms[i].StatusText == "" || ms[i].Summary == "" {
			t.Fatalf("tool result %d without status text/summary: %+v", i, ms[i])
		}
	}
	// The third request carries both tool pairs.
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	req := checkValidHistory(t, reqs[2])
	if len(req.Messages) != 5 {
		t.Fatalf("third request has %d messages", len(req.Messages))
	}
	if string(req.System) == "" || !contains(string(req.System), h.ws) || !contains(string(req.System), "read_file") {
		t.Fatalf("system prompt does not name the workspace and tools: %s", req.System)
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func TestRetryAfter429ThenSuccess(t *testing.T) {
	h, s, w := watchedSession(t)
	h.srv.Enqueue(
		llmtest.HTTPError(429, llmtest.AnthropicErrorBody("rate_limit_error", "slow down")),
		textReply("ok"),
	)
	h.submit(s.ID, "hi")
	end := w.turnEnd(s.ID)
	assertSeq(t, compress(only(w.got, s.ID)),
		"turn.started", "route.decided", "llm.call_started", "llm.call_failed", "llm.call_started",
		"message.start", "text.delta", "message.complete", "llm.call_completed", "turn.completed")
	var attempts []int
	for _, e := range w.got {
		switch e.Type {
		case ipc.TypeLLMCallFailed:
			var p ipc.LLMCallFailed
			e.decode(t, &p)
			if p.ErrorClass != ipc.ErrClassRateLimit || !p.WillRetry || p.Attempt != 1 {
				t.Fatalf("llm.call_failed %+v", p)
			}
		case ipc.TypeLLMCallStarted:
			var p ipc.LLMCallStarted
			e.decode(t, &p)
			attempts = append(attempts, p.Attempt)
		}
	}
	if len(attempts) != 2 || attempts[1] != 2 {
		t.Fatalf("attempts %v", attempts)
	}
	var tc ipc.TurnCompleted
	end.decode(t, &tc)
	if tc.Status != ipc.TurnStatusCompleted {
		t.Fatalf("%+v", tc)
	}
}

func TestFinalFailureMidStreamStoresErrorMessage(t *testing.T) {
	h, s, w := watchedSession(t, func(c *hub.Config) { c.MaxAttempts = 1 })
	h.srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 5}).
		BeginText().TextDelta("partial").Error("overloaded_error", "busy").Response())
	h.submit(s.ID, "hi")
	end := w.turnEnd(s.ID)
	assertSeq(t, compress(only(w.got, s.ID)),
		"turn.started", "route.decided", "llm.call_started", "message.start", "text.delta",
		"message.complete", "llm.call_failed", "turn.completed")
	var tc ipc.TurnCompleted
	end.decode(t, &tc)
	if tc.Status != ipc.TurnStatusFailed || tc.ErrorClass != ipc.ErrClassOverloaded {
		t.Fatalf("%+v", tc)
	}
	ms := h.messages(s.ID)
	if len(ms) != 2 || ms[1].Status != store.StatusError || ms[1].StopReason != "error" || ms[1].Content[0].Text != "partial" {
		t.Fatalf("messages %s", describe(ms))
	}
	want := store.TurnOutcome{ID: *end.TurnID, Status: store.TurnFailed,
		Error: &store.TurnError{Class: ipc.ErrClassOverloaded, Message: tc.Error, Attempts: 1}}
	if o := ms[0].Turn; o == nil || o.Error == nil || *o.Error != *want.Error || o.ID != want.ID || o.Status != want.Status {
		t.Fatalf("the failed turn's user message carries %+v, want %+v", o, want)
	}
}

// TestFailedTurnOutcomeAfterRetries: a turn whose every attempt failed
// leaves the outcome on its user message with the attempt count, in the
// messages every client reads after a reload.
func TestFailedTurnOutcomeAfterRetries(t *testing.T) {
	h, s, w := watchedSession(t, func(c *hub.Config) { c.MaxAttempts = 3 })
	for range 3 {
		h.srv.Enqueue(llmtest.HTTPError(429, llmtest.AnthropicErrorBody("rate_limit_error", "slow down")))
	}
	h.submit(s.ID, "hi")
	end := w.turnEnd(s.ID)
	ms := h.messages(s.ID)
	if len(ms) != 1 {
		t.Fatalf("messages %s", describe(ms))
	}
	o := ms[0].Turn
	if o == nil || o.ID != *end.TurnID || o.Status != store.TurnFailed || o.Error == nil ||
		o.Error.Class != ipc.ErrClassRateLimit || o.Error.Attempts != 3 || !contains(o.Error.Message, "slow down") {
		t.Fatalf("outcome %+v (error %+v)", o, o.Error)
	}
}

func TestNotConfigured(t *testing.T) {
	h := newHarness(t)
	h.hub.SetProviders(llm.New(llm.Config{IgnoreEnv: true}))
	s := h.session()
	w := h.watch(s.ID, false)
	h.submit(s.ID, "hi")
	end := w.turnEnd(s.ID)
	var tc ipc.TurnCompleted
	end.decode(t, &tc)
	if tc.Status != ipc.TurnStatusFailed || tc.ErrorClass != ipc.ErrClassNotConfigured || !contains(tc.Error, "ANTHROPIC_API_KEY") {
		t.Fatalf("%+v", tc)
	}
	assertSeq(t, only(w.got, s.ID), "turn.started", "route.decided", "llm.call_started", "llm.call_failed", "turn.completed")
}

func TestQueuedTurnRunsNextAndQueuedCancel(t *testing.T) {
	h, s, w := watchedSession(t)
	gate := llmtest.NewGate()
	h.srv.Enqueue(
		stalledReply(gate, "first"),
		textReply("third"),
	)
	r1 := h.submit(s.ID, "one")
	w.untilType(ipc.TypeTextDelta)
	r2 := h.submit(s.ID, "two")
	r3 := h.submit(s.ID, "three")
	if !r2.Queued || !r3.Queued {
		t.Fatalf("not queued: %+v %+v", r2, r3)
	}
	if err := h.hub.CancelTurn(context.Background(), s.ID, r2.TurnID, ""); err != nil {
		t.Fatal(err)
	}
	c := w.untilType(ipc.TypeTurnCancelled)
	if *c.TurnID != r2.TurnID {
		t.Fatalf("cancelled %s, want %s", *c.TurnID, r2.TurnID)
	}
	gate.Release()
	e := w.turnEnd(s.ID)
	if *e.TurnID != r1.TurnID {
		t.Fatalf("first end is %s", *e.TurnID)
	}
	st := w.untilType(ipc.TypeTurnStarted)
	if *st.TurnID != r3.TurnID {
		t.Fatalf("next started %s, want %s", *st.TurnID, r3.TurnID)
	}
	w.turnEnd(s.ID)
	turns, _ := h.db.Turns(s.ID)
	status := map[string]string{}
	for _, t := range turns {
		status[t.ID] = t.Status
	}
	if status[r1.TurnID] != store.TurnCompleted || status[r2.TurnID] != store.TurnCancelled || status[r3.TurnID] != store.TurnCompleted {
		t.Fatalf("turn statuses %v", status)
	}
	if err := h.hub.CancelTurn(context.Background(), s.ID, "nope", ""); !errors.Is(err, ipc.ErrTurnNotFound) {
		t.Fatalf("unknown turn: %v", err)
	}
}

// TestStalledStreamReportsIdle: while the provider's stream is silent the
// hub emits llm.call_stalled for the running call, repeatedly with a
// growing idle_ms, and none after the stream resumes and the turn ends.
func TestStalledStreamReportsIdle(t *testing.T) {
	const notice = 40 * time.Millisecond
	h, s, w := watchedSession(t, func(c *hub.Config) { c.StallNotice = notice })
	g := llmtest.NewGate()
	h.srv.Enqueue(stalledReply(g, "thinking about it"))
	h.submit(s.ID, "hi")
	var started ipc.LLMCallStarted
	w.untilType(ipc.TypeLLMCallStarted).decode(t, &started)
	<-g.Reached()
	var first, second ipc.LLMCallStalled
	w.untilType(ipc.TypeLLMCallStalled).decode(t, &first)
	w.untilType(ipc.TypeLLMCallStalled).decode(t, &second)
	if first.CallID != started.CallID || first.IdleMS < notice.Milliseconds() || second.IdleMS <= first.IdleMS {
		t.Fatalf("stalls %+v then %+v for call %s", first, second, started.CallID)
	}
	g.Release()
	end := w.turnEnd(s.ID)
	if end.Type != ipc.TypeTurnCompleted {
		t.Fatalf("turn ended %s", end.Type)
	}
	// The watch stops with the call: no stall follows llm.call_completed.
	completed := false
	for _, e := range w.got {
		completed = completed || e.Type == ipc.TypeLLMCallCompleted
		if completed && e.Type == ipc.TypeLLMCallStalled {
			t.Fatalf("llm.call_stalled after the call completed: %v", types(w.got))
		}
	}
}
