package hub_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"agenthub/app/hub"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/ipc/dialect"
	"agenthub/store"
)

// TestRetriedStreamIsOneMessage: a stream that breaks twice mid-answer and
// is retried (the midfail script) is one assistant message — one
// message.start, a message.reset before each new attempt streams, one
// message.complete — stored once, with the retries on its record, and the
// partials never reach the model's history.
func TestRetriedStreamIsOneMessage(t *testing.T) {
	h, s, w := watchedSession(t)
	h.srv.Enqueue(llmtest.MidFail("claude-sonnet-4-6", 2, "Partial answer", "The retried answer.")...)
	h.srv.Enqueue(textReply("second turn"))
	h.submit(s.ID, "hi")
	w.turnEnd(s.ID)
	if n := countType(w.got, ipc.TypeMessageStart); n != 1 {
		t.Errorf("%d message.start, want 1 (one message per model call)", n)
	}
	if n := countType(w.got, ipc.TypeMessageReset); n != 2 {
		t.Errorf("%d message.reset, want 2 (one per retry that streamed)", n)
	}
	if n := countType(w.got, ipc.TypeMessageComplete); n != 1 {
		t.Errorf("%d message.complete, want 1", n)
	}
	var msgID string
	for _, e := range w.got {
		switch e.Type {
		case ipc.TypeMessageStart:
			var p ipc.MessageStart
			e.decode(t, &p)
			msgID = p.MessageID
		case ipc.TypeLLMCallStarted, ipc.TypeMessageReset, ipc.TypeTextDelta, ipc.TypeMessageComplete:
			var p struct {
				MessageID string `json:"message_id"`
			}
			e.decode(t, &p)
			if msgID != "" && p.MessageID != msgID {
				t.Errorf("%s names message %s, want the call's one message %s", e.Type, p.MessageID, msgID)
			}
		}
	}
	var reset ipc.MessageReset
	for _, e := range w.got {
		if e.Type == ipc.TypeMessageReset {
			e.decode(t, &reset)
		}
	}
	if reset.Attempt != 3 || reset.ErrorClass != ipc.ErrClassOverloaded || reset.Error == "" {
		t.Errorf("last message.reset %+v, want attempt 3 after an overloaded failure", reset)
	}
	ms := h.messages(s.ID)
	if len(ms) != 2 || ms[1].ID != msgID || ms[1].Status != store.StatusComplete || store.TextOf(ms[1].Content) != "The retried answer." {
		t.Fatalf("messages %s, want the user message and one complete answer", describe(ms))
	}
	if r := ms[1].Retries; r == nil || r.Count != 2 || r.ErrorClass != ipc.ErrClassOverloaded {
		t.Fatalf("stored retries %+v, want 2 × overloaded", r)
	}
	// The next turn's request carries one assistant message, the answer.
	h.submit(s.ID, "again")
	w.turnEnd(s.ID)
	reqs := h.srv.Requests()
	req := checkValidHistory(t, reqs[len(reqs)-1])
	if len(req.Messages) != 3 {
		t.Fatalf("the next request has %d messages, want user, assistant, user", len(req.Messages))
	}
}

// TestRetriesExhaustedMidStreamIsOneErrorMessage: when every attempt
// breaks, the call is still one message, stored with status error and the
// content clients last saw.
func TestRetriesExhaustedMidStreamIsOneErrorMessage(t *testing.T) {
	h, s, w := watchedSession(t, func(c *hub.Config) { c.MaxAttempts = 2 })
	fails := llmtest.MidFail("claude-sonnet-4-6", 2, "Partial answer", "unused")
	h.srv.Enqueue(fails[:2]...)
	h.submit(s.ID, "hi")
	end := w.turnEnd(s.ID)
	var tc ipc.TurnCompleted
	end.decode(t, &tc)
	if tc.Status != ipc.TurnStatusFailed {
		t.Fatalf("turn %+v, want failed", tc)
	}
	ms := h.messages(s.ID)
	if len(ms) != 2 || ms[1].Role != store.RoleAssistant || ms[1].Status != store.StatusError {
		t.Fatalf("messages %s, want the user message and one errored answer", describe(ms))
	}
	if got := store.TextOf(ms[1].Content); got != "Partial answer" {
		t.Errorf("stored text %q, want the last attempt's partial once", got)
	}
	if r := ms[1].Retries; r == nil || r.Count != 1 {
		t.Errorf("stored retries %+v, want 1", r)
	}
	if n := countType(w.got, ipc.TypeMessageComplete); n != 1 {
		t.Errorf("%d message.complete, want 1", n)
	}
}

// TestCancelWhileWaitingToRetry: a cancel during the backoff after a
// broken stream ends the one open message as cancelled with its partial.
func TestCancelWhileWaitingToRetry(t *testing.T) {
	h := newHarness(t, func(c *hub.Config) {
		c.Backoff = func(int, time.Duration) time.Duration { return time.Hour }
	})
	s := h.session()
	w := h.watch(s.ID, false)
	h.srv.Enqueue(llmtest.MidFail("claude-sonnet-4-6", 1, "Partial answer", "unused")[0])
	r := h.submit(s.ID, "hi")
	w.until(func(e ev) bool { return e.Type == ipc.TypeLLMCallFailed })
	if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, "user_cancel"); err != nil {
		t.Fatal(err)
	}
	end := w.turnEnd(s.ID)
	var tc ipc.TurnCancelled
	end.decode(t, &tc)
	ms := h.messages(s.ID)
	if len(ms) < 2 || ms[1].Status != store.StatusCancelled || store.TextOf(ms[1].Content) != "Partial answer" {
		t.Fatalf("messages %s, want the answer cancelled with its partial", describe(ms))
	}
	if tc.PartialMessageID != ms[1].ID {
		t.Errorf("turn.cancelled partial_message_id %q, want %q", tc.PartialMessageID, ms[1].ID)
	}
	if n := countType(w.got, ipc.TypeMessageComplete); n != 1 {
		t.Errorf("%d message.complete, want 1", n)
	}
}

// TestSnapshotMidRetryShowsOnlyTheCurrentAttempt: a client that joins
// while the second attempt streams gets the in-flight message with that
// attempt's content only (and the retry on it), in canonical and seed000.
func TestSnapshotMidRetryShowsOnlyTheCurrentAttempt(t *testing.T) {
	h, s, w := watchedSession(t)
	gate := llmtest.NewGate()
	defer gate.Release()
	h.srv.Enqueue(llmtest.MidFail("claude-sonnet-4-6", 1, "Partial answer", "unused")[0])
	h.srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 1}).
		BeginText().TextDelta("Second try").Stall(gate).TextDelta(" done.").EndBlock().Finish("end_turn", 3).Response())
	h.submit(s.ID, "hi")
	w.until(func(e ev) bool { return e.Type == ipc.TypeTextDelta && countType(w.got, ipc.TypeMessageReset) == 1 })
	<-gate.Reached()

	sub, err := h.bus.Subscribe(context.Background(), ipc.SubscribeRequest{SessionID: s.ID, Snapshot: true, Name: "late"})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	var snap struct {
		Type     string          `json:"type"`
		Messages []store.Message `json:"messages"`
	}
	if err := json.Unmarshal(nextFrame(t, sub), &snap); err != nil || snap.Type != "snapshot" {
		t.Fatalf("first frame: %v %+v", err, snap)
	}
	last := snap.Messages[len(snap.Messages)-1]
	if last.Status != ipc.StatusStreaming || store.TextOf(last.Content) != "Second try" || len(last.Content) != 1 {
		t.Fatalf("in-flight message %+v, want only the current attempt's text", last)
	}
	if last.Retries == nil || last.Retries.Count != 1 {
		t.Errorf("in-flight retries %+v, want 1", last.Retries)
	}

	d, err := h.bus.Subscribe(context.Background(), ipc.SubscribeRequest{SessionID: s.ID, Snapshot: true, Dialect: dialect.Seed000, Name: "late000"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	nextFrame(t, d) // the snapshot
	for _, want := range []string{"message_start", "message_update"} {
		var f struct {
			Event struct {
				Type    string `json:"type"`
				Message struct {
					Content []store.ContentBlock `json:"content"`
				} `json:"message"`
			} `json:"event"`
		}
		if err := json.Unmarshal(nextFrame(t, d), &f); err != nil || f.Event.Type != want {
			t.Fatalf("seed000 resume frame: %v %+v, want %s", err, f, want)
		}
		if want == "message_update" && store.TextOf(f.Event.Message.Content) != "Second try" {
			t.Fatalf("seed000 resumed content %+v, want only the current attempt", f.Event.Message.Content)
		}
	}
	gate.Release()
	w.turnEnd(s.ID)
}

// nextFrame is sub's next frame (the test fails after waitLimit).
func nextFrame(t *testing.T, sub *ipc.Subscription) []byte {
	t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	select {
	case f, ok := <-sub.Frames():
		if !ok {
			t.Fatalf("subscription ended: %v", sub.Err())
		}
		return f.Data
	case <-timer.C:
		t.Fatalf("no frame within %v", waitLimit)
	}
	return nil
}

// TestRetriedWorkerStreamResetsTheDelegateOutput: a worker whose stream
// breaks and is retried voids the text it streamed to its parent's
// delegate call (tool.output_delta with reset), so the card shows the
// partial once, then only the retry.
func TestRetriedWorkerStreamResetsTheDelegateOutput(t *testing.T) {
	h, s, w := watchedSession(t)
	h.srv.Enqueue(toolReply(delegateCall("tu_d", "answer it")))
	h.srv.Enqueue(llmtest.MidFail("claude-sonnet-4-6", 1, "Partial answer", "The retried answer.")...)
	h.srv.Enqueue(textReply("The worker answered."))
	h.submit(s.ID, "delegate")
	w.turnEnd(s.ID)
	var live strings.Builder
	resets := 0
	for _, e := range w.got {
		if e.Type != ipc.TypeToolOutputDelta {
			continue
		}
		var p ipc.ToolOutputDelta
		e.decode(t, &p)
		if p.Reset {
			resets++
			live.Reset()
		}
		live.WriteString(p.Text)
	}
	if resets != 1 || live.String() != "The retried answer." {
		t.Fatalf("%d resets; the worker output reads %q after them, want the retry only", resets, live.String())
	}
}
