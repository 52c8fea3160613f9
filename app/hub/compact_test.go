package hub_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"agenthub/app/hub"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

// compactHarness has a 2000-token window: 0.8 → compaction above 1600
// estimated tokens, keeping about 600.
func compactHarness(t *testing.T) *harness {
	return newHarness(t, func(c *hub.Config) { c.ContextWindow = 2000 })
}

// firstTurn runs user(3000 chars) → list_dir call → result → "ok".
func firstTurn(t *testing.T, h *harness, w *watcher, sid string) {
	h.srv.Enqueue(toolReply([3]string{"tu_1", "list_dir", `{"path":"."}`}), textReply("ok"))
	h.submit(sid, strings.Repeat("a", 3000))
	w.turnEnd(sid)
	noType(t, w.got, ipc.TypeCompactionStarted)
}

func TestCompactionAtThresholdWithSummary(t *testing.T) {
	h := compactHarness(t)
	s := h.session()
	w := h.watch(s.ID, false)
	firstTurn(t, h, w, s.ID)
	before := h.messages(s.ID)
	h.srv.Enqueue(textReply("SUMMARY: user sent a's; agent listed the dir."), textReply("second answer"))
	h.submit(s.ID, strings.Repeat("b", 3000))
	w.turnEnd(s.ID)
	got := only(w.got, s.ID)
	i := indexOfType(got, ipc.TypeCompactionStarted)
	if i < 0 || strings.Join(got[i-1:i+5], " ") != strings.Join([]string{ipc.TypeRouteDecided, ipc.TypeCompactionStarted,
		ipc.TypeLLMCallStarted, ipc.TypeLLMCallCompleted, ipc.TypeCompactionComplete, ipc.TypeLLMCallStarted}, " ") {
		t.Fatalf("compaction (with its summary call) not before the turn's call: %v", got)
	}
	// The summary call has its own call_id, no message, and its usage counts
	// toward the session's cost.
	var calls []ipc.LLMCallStarted
	var sumDone ipc.LLMCallCompleted
	seen := false
	for _, e := range w.got {
		switch {
		case e.Type == ipc.TypeCompactionStarted:
			seen = true
		case e.Type == ipc.TypeLLMCallStarted && seen:
			var p ipc.LLMCallStarted
			e.decode(t, &p)
			calls = append(calls, p)
		case e.Type == ipc.TypeLLMCallCompleted && seen && sumDone.CallID == "":
			e.decode(t, &sumDone)
		}
	}
	if len(calls) != 2 || calls[0].CallID == calls[1].CallID || calls[0].MessageID != "" || sumDone.CallID != calls[0].CallID ||
		sumDone.Usage.InputTokens != 100 || sumDone.Usage.CostUSD <= 0 {
		t.Fatalf("summary call %+v, completed %+v", calls, sumDone)
	}
	var turns []ipc.TurnCompleted
	for _, e := range w.got {
		if e.Type == ipc.TypeTurnCompleted {
			var tc ipc.TurnCompleted
			e.decode(t, &tc)
			turns = append(turns, tc)
		}
	}
	wantCost := turns[0].Usage.CostUSD + turns[1].Usage.CostUSD + sumDone.Usage.CostUSD
	if sess, _ := h.db.Session(s.ID); math.Abs(sess.CostSoFarUSD-wantCost) > 1e-12 || sess.Usage.InputTokens != 400 {
		t.Fatalf("session cost %v (usage %+v), want %v", sess.CostSoFarUSD, sess.Usage, wantCost)
	}
	var cc ipc.CompactionCompleted
	findEvent(w.got, ipc.TypeCompactionComplete).decode(t, &cc)
	if cc.Reason != hub.CompactSummary || cc.Removed != 4 || cc.Kept != 1 || cc.ContextStartOffset != 4 || cc.TokensRemoved <= 0 || cc.TokensKept <= 0 {
		t.Fatalf("compaction.completed %+v", cc)
	}
	// Non-destructive: the first messages are unchanged.
	after := h.messages(s.ID)
	for i, m := range before {
		if after[i].ID != m.ID || after[i].Offset != m.Offset {
			t.Fatalf("message %d changed: %s vs %s", i, describe(before), describe(after))
		}
	}
	sess, _ := h.db.Session(s.ID)
	if sess.ContextStartOffset != 4 || !strings.Contains(sess.ContextSummary, "SUMMARY") {
		t.Fatalf("session %+v", sess)
	}
	// The summary call saw the removed span; the turn's call sees only the kept span
	// with the summary in the system prompt.
	reqs := h.srv.Requests()
	sumReq := string(reqs[2].Body)
	if !strings.Contains(sumReq, "aaaa") || strings.Contains(sumReq, "bbbb") {
		t.Fatal("summary request does not cover exactly the removed span")
	}
	turnReq := checkValidHistory(t, reqs[3])
	if len(turnReq.Messages) != 1 || !strings.Contains(string(turnReq.System), "SUMMARY") {
		t.Fatalf("turn request: %d messages, system %s", len(turnReq.Messages), turnReq.System)
	}
}

// A compaction the user asks for summarises everything but the last
// exchange however little of the window is used (issue 34 row 6: "nothing
// was compacted" at 19%); when the summary call fails it truncates.
func TestCompactionOnRequestFallsBackToTokens(t *testing.T) {
	h := newHarness(t) // a large window: the automatic threshold is far away
	s := h.session()
	w := h.watch(s.ID, false)
	firstTurn(t, h, w, s.ID)
	h.srv.Enqueue(textReply("second answer"))
	h.submit(s.ID, "a second question")
	w.turnEnd(s.ID)
	h.srv.Enqueue(llmtest.HTTPError(400, llmtest.AnthropicErrorBody("invalid_request_error", "nope")))
	if err := h.hub.CompactSession(context.Background(), s.ID); err != nil {
		t.Fatal(err)
	}
	w.untilType(ipc.TypeCompactionStarted)
	var st ipc.LLMCallStarted
	w.untilType(ipc.TypeLLMCallStarted).decode(t, &st)
	var fl ipc.LLMCallFailed
	w.untilType(ipc.TypeLLMCallFailed).decode(t, &fl)
	if fl.CallID != st.CallID || fl.ErrorClass != ipc.ErrClassInvalidRequest || fl.WillRetry {
		t.Fatalf("summary call failed %+v (started %+v)", fl, st)
	}
	e := w.next()
	if e.Type != ipc.TypeCompactionComplete {
		t.Fatalf("after llm.call_failed: %s", e.Type)
	}
	var cc ipc.CompactionCompleted
	e.decode(t, &cc)
	// 6 messages: user(3000), assistant call, result, "ok", then the last
	// exchange (question, answer), which alone is kept.
	if cc.Reason != hub.CompactTokens || cc.Removed != 4 || cc.Kept != 2 || !strings.Contains(cc.Error, "nope") {
		t.Fatalf("%+v", cc)
	}
	ms := h.messages(s.ID)
	if ms[cc.ContextStartOffset].Role != store.RoleUser {
		t.Fatalf("kept span does not start at the last question: %+v", cc)
	}
	sess, _ := h.db.Session(s.ID)
	if sess.ContextStartOffset != cc.ContextStartOffset || sess.ContextSummary != "" || len(ms) != 6 {
		t.Fatalf("session %+v, %d messages", sess, len(ms))
	}
	// Session lists learn the new marker and cost from the session.updated that follows.
	var upd ipc.SessionChanged
	if e := w.next(); e.Type != ipc.TypeSessionUpdated {
		t.Fatalf("after compaction.completed: %s", e.Type)
	} else {
		e.decode(t, &upd)
	}
	if upd.Session.ContextStartOffset != cc.ContextStartOffset || upd.Session.CostSoFarUSD != sess.CostSoFarUSD {
		t.Fatalf("session.updated %+v, stored %+v", upd.Session, sess)
	}
}

func indexOfType(ts []string, typ string) int {
	for i, t := range ts {
		if t == typ {
			return i
		}
	}
	return -1
}

func findEvent(es []ev, typ string) ev {
	for _, e := range es {
		if e.Type == typ {
			return e
		}
	}
	return ev{}
}
