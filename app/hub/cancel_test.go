package hub_test

import (
	"context"
	"testing"
	"time"

	"agenthub/app/hub"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

func stalledText(g *llmtest.Gate, text string) llmtest.Response {
	return llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10}).
		BeginText().TextDelta(text).Stall(g).TextDelta(" never").EndBlock().Finish("end_turn", 5).Response()
}

func noType(t *testing.T, es []ev, typ string) {
	t.Helper()
	for _, e := range es {
		if e.Type == typ {
			t.Fatalf("unexpected %s in %v", typ, types(es))
		}
	}
}

// §6.2.1
func TestCancelMidLLM(t *testing.T) {
	h, s, w := watchedSession(t)
	g := llmtest.NewGate()
	h.srv.Enqueue(stalledText(g, "I'll start by"))
	r := h.submit(s.ID, "go")
	w.untilType(ipc.TypeTextDelta)
	<-g.Reached()
	if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, "user_cancel"); err != nil {
		t.Fatal(err)
	}
	end := w.turnEnd(s.ID)
	assertSeq(t, compress(only(w.got, s.ID)),
		"turn.started", "route.decided", "llm.call_started", "message.start", "text.delta",
		"message.complete", "llm.call_failed", "turn.cancelled")
	noType(t, w.got, ipc.TypeToolFailed)
	for _, e := range w.got {
		switch e.Type {
		case ipc.TypeMessageComplete:
			var p ipc.MessageComplete
			e.decode(t, &p)
			if p.StopReason != "cancelled" || len(p.FinalContent) != 1 || p.FinalContent[0].Text != "I'll start by" {
				t.Fatalf("message.complete %+v", p)
			}
		case ipc.TypeLLMCallFailed:
			var p ipc.LLMCallFailed
			e.decode(t, &p)
			if p.ErrorClass != ipc.ErrClassCancelled || p.WillRetry {
				t.Fatalf("llm.call_failed %+v", p)
			}
		}
	}
	var tc ipc.TurnCancelled
	end.decode(t, &tc)
	if tc.Reason != "user_cancel" || tc.PartialMessageID == "" {
		t.Fatalf("turn.cancelled %+v", tc)
	}
	ms := h.messages(s.ID)
	if len(ms) != 2 || ms[1].Status != store.StatusCancelled || ms[1].ID != tc.PartialMessageID {
		t.Fatalf("messages %s", describe(ms))
	}
	// §6.5: a second cancel is a no-op with a warning.
	if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, ""); err != nil {
		t.Fatal(err)
	}
	w.awaitWarning("redundant_cancel")
	// The session stays usable and the next request is valid.
	h.srv.Enqueue(textReply("fine"))
	h.submit(s.ID, "again")
	w.turnEnd(s.ID)
	checkValidHistory(t, h.srv.Requests()[1])
}

// §6.5 while the cancel is still in progress.
func TestIdempotentCancelWhileCancelling(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, func(c *hub.Config) {
		c.BeforeTools = func(ctx context.Context, sid, tid string) {
			<-ctx.Done()
			<-release // hold the turn in "cancelling"
		}
	})
	s := h.session()
	w := h.watch(s.ID, false)
	h.srv.Enqueue(toolReply([3]string{"tu_1", "list_dir", `{"path":"."}`}))
	r := h.submit(s.ID, "go")
	w.untilType(ipc.TypeLLMCallCompleted)
	for i := 0; i < 2; i++ {
		if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, ""); err != nil {
			t.Fatal(err)
		}
	}
	w.awaitWarning("redundant_cancel")
	close(release)
	w.turnEnd(s.ID)
	n := 0
	for _, e := range w.got {
		if e.Type == ipc.TypeTurnCancelled {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d turn.cancelled", n)
	}
}

// §6.2.3
func TestCancelAtSeam(t *testing.T) {
	h := newHarness(t, func(c *hub.Config) {
		c.BeforeTools = func(ctx context.Context, sid, tid string) { <-ctx.Done() }
	})
	s := h.session()
	w := h.watch(s.ID, false)
	h.srv.Enqueue(toolReply(
		[3]string{"tu_a", "write_file", `{"path":"a.txt","content":"a"}`},
		[3]string{"tu_b", "bash", `{"command":"touch ran.txt"}`},
	))
	r := h.submit(s.ID, "go")
	w.untilType(ipc.TypeLLMCallCompleted)
	if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, ""); err != nil {
		t.Fatal(err)
	}
	end := w.turnEnd(s.ID)
	got := only(w.got, s.ID)
	assertSeq(t, got[len(got)-4:], "llm.call_completed", "tool.failed", "tool.failed", "turn.cancelled")
	noType(t, w.got, ipc.TypeToolCalled)
	noType(t, w.got, ipc.TypeLLMCallFailed)
	for _, e := range w.got {
		if e.Type == ipc.TypeToolFailed {
			var p ipc.ToolFailed
			e.decode(t, &p)
			if p.ErrorClass != ipc.ToolErrCancelled {
				t.Fatalf("%+v", p)
			}
		}
	}
	var tc ipc.TurnCancelled
	end.decode(t, &tc)
	if len(tc.CancelledTools) != 2 {
		t.Fatalf("%+v", tc)
	}
	if fileExists(h.ws, "a.txt") || fileExists(h.ws, "ran.txt") {
		t.Fatal("a pending tool ran")
	}
	ms := h.messages(s.ID)
	if len(ms) != 4 || ms[2].Role != store.RoleToolResult || !ms[2].IsError || ms[2].Content[0].Text != "cancelled by user" {
		t.Fatalf("messages %s", describe(ms))
	}
}

func TestCancelDuringFollowUpCall(t *testing.T) {
	h, s, w := watchedSession(t)
	g := llmtest.NewGate()
	h.srv.Enqueue(toolReply([3]string{"tu_1", "list_dir", `{"path":"."}`}), stalledText(g, "Looking"))
	r := h.submit(s.ID, "go")
	w.untilType(ipc.TypeToolCompleted)
	w.untilType(ipc.TypeTextDelta)
	<-g.Reached()
	if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, ""); err != nil {
		t.Fatal(err)
	}
	w.turnEnd(s.ID)
	got := only(w.got, s.ID)
	assertSeq(t, got[len(got)-3:], "message.complete", "llm.call_failed", "turn.cancelled")
	noType(t, w.got, ipc.TypeToolFailed)
}

func TestTurnTimeoutCancelsWithReasonTimeout(t *testing.T) {
	h, s, w := watchedSession(t, func(c *hub.Config) { c.TurnTimeout = 300 * time.Millisecond })
	g := llmtest.NewGate()
	h.srv.Enqueue(stalledText(g, "slow"))
	h.submit(s.ID, "go")
	end := w.turnEnd(s.ID)
	var tc ipc.TurnCancelled
	if end.Type != ipc.TypeTurnCancelled {
		t.Fatalf("ended with %s", end.Type)
	}
	end.decode(t, &tc)
	if tc.Reason != "timeout" {
		t.Fatalf("%+v", tc)
	}
	turns, _ := h.db.Turns(s.ID)
	if turns[0].Status != store.TurnCancelled || turns[0].Reason != "timeout" {
		t.Fatalf("%+v", turns[0])
	}
}

func countType(es []ev, typ string) int {
	n := 0
	for _, e := range es {
		if e.Type == typ {
			n++
		}
	}
	return n
}
