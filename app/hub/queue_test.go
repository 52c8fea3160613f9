package hub_test

import (
	"path/filepath"
	"testing"

	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

// TestQueuedTurnMessageOrder: a message submitted while a turn runs is stored
// when its turn starts, so offsets follow the conversation: the first turn's
// user message and answer, then the queued user message and its answer.
func TestQueuedTurnMessageOrder(t *testing.T) {
	h, s, w := watchedSession(t)
	gate := llmtest.NewGate()
	script := h.scripted(llmtest.Reply{Blocks: []llmtest.Block{{Text: "first"}}, Stall: gate}, llmtest.TextReply("second"))
	r1 := h.submit(s.ID, "one")
	w.untilType(ipc.TypeTextDelta)
	r2 := h.submit(s.ID, "two")
	if !r2.Queued {
		t.Fatalf("second submission not queued: %+v", r2)
	}
	// The queued submission is on the session record (snapshot, session.updated)
	// and in a queued Turn record holding the content; no message is stored yet.
	up := w.until(func(e ev) bool { return e.Type == ipc.TypeSessionUpdated && e.TurnID != nil && *e.TurnID == r2.TurnID })
	var sc ipc.SessionChanged
	up.decode(t, &sc)
	if len(sc.Session.QueuedTurns) != 1 || sc.Session.QueuedTurns[0] != (store.QueuedTurn{TurnID: r2.TurnID, Content: "two"}) {
		t.Fatalf("session.updated queued_turns = %+v", sc.Session.QueuedTurns)
	}
	if ms := h.messages(s.ID); len(ms) != 1 {
		t.Fatalf("messages while queued: %s", describe(ms))
	}
	turns, _ := h.db.Turns(s.ID)
	for _, tr := range turns {
		if tr.ID == r2.TurnID && (tr.Status != store.TurnQueued || tr.UserMessageID != "" || store.TextOf(tr.Content) != "two") {
			t.Fatalf("queued turn record %+v", tr)
		}
	}
	gate.Release()
	if e := w.turnEnd(s.ID); *e.TurnID != r1.TurnID {
		t.Fatalf("first end %s", *e.TurnID)
	}
	st := w.untilType(ipc.TypeTurnStarted)
	var ts ipc.TurnStarted
	st.decode(t, &ts)
	w.turnEnd(s.ID)

	ms := h.messages(s.ID)
	if len(ms) != 4 {
		t.Fatalf("messages %s", describe(ms))
	}
	want := []struct{ role, text, turn string }{
		{store.RoleUser, "one", r1.TurnID}, {store.RoleAssistant, "first", r1.TurnID},
		{store.RoleUser, "two", r2.TurnID}, {store.RoleAssistant, "second", r2.TurnID},
	}
	for i, m := range ms {
		if m.Offset != int64(i) || m.Role != want[i].role || store.TextOf(m.Content) != want[i].text || m.TurnID != want[i].turn {
			t.Fatalf("message %d = %d:%s %q turn %s; all: %s", i, m.Offset, m.Role, store.TextOf(m.Content), m.TurnID, describe(ms))
		}
	}
	if *st.TurnID != r2.TurnID || ts.UserMessageID != ms[2].ID || ts.Input != "two" {
		t.Fatalf("turn.started %s %+v, user message %s", *st.TurnID, ts, ms[2].ID)
	}
	turns, _ = h.db.Turns(s.ID)
	for _, tr := range turns {
		if tr.ID == r2.TurnID && (tr.UserMessageID != ms[2].ID || len(tr.Content) != 0 || tr.Status != store.TurnCompleted) {
			t.Fatalf("started turn record %+v", tr)
		}
	}
	sess, _ := h.db.Session(s.ID)
	if len(sess.QueuedTurns) != 0 {
		t.Fatalf("queued_turns after start: %+v", sess.QueuedTurns)
	}
	// The second request's history is in offset order.
	if req := script.Requests()[1]; len(req.Messages) != 3 || store.TextOf(req.Messages[0].Content) != "one" || store.TextOf(req.Messages[2].Content) != "two" {
		t.Fatalf("second request's history %s", describe(req.Messages))
	}
}

// TestQueuedTurnSurvivesRestart: a turn queued at shutdown stays queued on
// the session record, runs after the restart, and its user message follows
// the interrupted turn's messages.
func TestQueuedTurnSurvivesRestart(t *testing.T) {
	h, s, w := watchedSession(t)
	gate := llmtest.NewGate()
	h.srv.Enqueue(stalledReply(gate, "partial"))
	h.submit(s.ID, "one")
	w.untilType(ipc.TypeTextDelta)
	r2 := h.submit(s.ID, "two")
	r3 := h.submit(s.ID, "three")
	// Shut down: the running turn is cancelled (shutdown), the queue stays.
	h.close()
	gate.Release()

	db, err := store.Open(filepath.Join(h.dir, "agenthub.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	sess, err := db.Session(s.ID)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.QueuedTurns) != 2 || sess.QueuedTurns[0].TurnID != r2.TurnID || sess.QueuedTurns[1].Content != "three" {
		t.Fatalf("queued_turns after shutdown: %+v", sess.QueuedTurns)
	}

	g2 := llmtest.NewGate()
	h.srv.Enqueue(
		llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 1}).Stall(g2).Text("answer two").Finish("end_turn", 1).Response(),
		textReply("answer three"),
	)
	h.open()
	w = h.watch(s.ID, false)
	<-g2.Reached()
	// While turn two runs, three is still listed as queued.
	sess, _ = h.db.Session(s.ID)
	if len(sess.QueuedTurns) != 1 || sess.QueuedTurns[0].TurnID != r3.TurnID {
		t.Fatalf("queued_turns while two runs: %+v", sess.QueuedTurns)
	}
	g2.Release()
	e := w.turnEnd(s.ID)
	if *e.TurnID != r2.TurnID || e.Type != ipc.TypeTurnCompleted {
		t.Fatalf("first end after restart: %s %s", e.Type, *e.TurnID)
	}
	if e := w.turnEnd(s.ID); *e.TurnID != r3.TurnID {
		t.Fatalf("second end after restart: %s", *e.TurnID)
	}
	ms := h.messages(s.ID)
	var seq []string
	for _, m := range ms {
		seq = append(seq, m.Role+":"+store.TextOf(m.Content))
	}
	assertSeq(t, seq, "user:one", "assistant:partial", "user:two", "assistant:answer two", "user:three", "assistant:answer three")
	sess, _ = h.db.Session(s.ID)
	if len(sess.QueuedTurns) != 0 || sess.TurnCount != 3 {
		t.Fatalf("session after the queue drained: %+v", sess)
	}
}

// TestSendAfterTurnEndIsNotQueued: a message sent as soon as a client has
// seen turn.completed starts at once: the turn stopped running when its end
// was committed, so the message never passes through the queue (a
// "queued" flash in the window, a queued_turns entry in session.updated).
func TestSendAfterTurnEndIsNotQueued(t *testing.T) {
	h, s, w := watchedSession(t)
	const turns = 30
	replies := make([]llmtest.Reply, turns)
	for i := range replies {
		replies[i] = llmtest.TextReply("ok")
	}
	h.scripted(replies...)
	h.submit(s.ID, "0")
	for i := 1; i < turns; i++ {
		w.turnEnd(s.ID)
		if r := h.submit(s.ID, "next"); r.Queued {
			t.Fatalf("message %d, sent once turn.completed was seen, was queued", i)
		}
	}
	w.turnEnd(s.ID)
}
