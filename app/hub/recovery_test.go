package hub_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"agenthub/app/agent"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// TestCrashRecovery writes the events of a turn that was streaming an
// assistant message (text plus a half-received tool call) when the process
// died, plus a queued turn behind it; a new hub on the same db must close the
// turn as interrupted, store the rebuilt message and a synthetic tool result,
// and then run the queued turn with a valid provider history.
func TestCrashRecovery(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	ctx := context.Background()
	now := time.Now().UTC()
	turn := store.Turn{ID: agent.NewID(), SessionID: s.ID, Status: store.TurnRunning, CreatedAt: now, StartedAt: now}
	user := store.Message{ID: agent.NewID(), SessionID: s.ID, TurnID: turn.ID, Role: store.RoleUser, Status: store.StatusComplete,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: "do it"}}, CreatedAt: now}
	turn.UserMessageID = user.ID
	queued := store.Turn{ID: agent.NewID(), SessionID: s.ID, Status: store.TurnQueued, CreatedAt: now.Add(time.Millisecond)}
	quser := store.Message{ID: agent.NewID(), SessionID: s.ID, TurnID: queued.ID, Role: store.RoleUser, Status: store.StatusComplete,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: "next"}}, CreatedAt: now}
	queued.UserMessageID = quser.ID
	msgID := agent.NewID()
	d := func(typ string, p any, ops ...store.Op) ipc.Draft {
		return ipc.Draft{Type: typ, SessionID: s.ID, TurnID: turn.ID, Actor: ipc.ActorAgent, Payload: p, Ops: ops}
	}
	_, err := h.bus.Commit(ctx,
		d(ipc.TypeTurnStarted, ipc.TurnStarted{UserMessageID: user.ID, Input: "do it"}, store.PutMessage(user), store.PutTurn(turn)),
		d(ipc.TypeRouteDecided, ipc.RouteDecided{Model: testModel}),
		d(ipc.TypeLLMCallStarted, ipc.LLMCallStarted{CallID: "c1", Model: testModel, MessageID: msgID, Attempt: 1}),
		d(ipc.TypeMessageStart, ipc.MessageStart{MessageID: msgID, Role: "assistant", Model: testModel}),
		d(ipc.TypeTextDelta, ipc.TextDelta{MessageID: msgID, ContentBlockIndex: 0, Text: "Let me "}),
		d(ipc.TypeTextDelta, ipc.TextDelta{MessageID: msgID, ContentBlockIndex: 0, Text: "look."}),
		d(ipc.TypeToolUseStart, ipc.ToolUseStart{MessageID: msgID, ContentBlockIndex: 1, ToolUseID: "tu_crash", ToolName: "bash"}),
		d(ipc.TypeToolUseInputDelta, ipc.ToolUseInputDelta{MessageID: msgID, ContentBlockIndex: 1, ToolUseID: "tu_crash", PartialJSON: `{"comm`}),
		ipc.Draft{Type: ipc.TypeSessionUpdated, SessionID: s.ID, TurnID: queued.ID, Actor: ipc.ActorUser,
			Payload: ipc.SessionChanged{Session: s}, Ops: []store.Op{store.PutMessage(quser), store.PutTurn(queued)}},
	)
	if err != nil {
		t.Fatal(err)
	}
	h.close()

	// Restart: recovery runs in Start, then the queued turn runs.
	g := llmtest.NewGate()
	h.srv.Enqueue(llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 1}).
		Stall(g).Text("recovered fine").Finish("end_turn", 1).Response())
	h.open()
	w := h.watch(s.ID, false)
	<-g.Reached() // the queued turn is running; its end is still ahead
	g.Release()
	// Recovery's events were committed during Start; find them in the log.
	var recovered []ev
	err = h.db.SessionEvents(s.ID, ulid.ULID{}, func(r store.EventRecord) error {
		var e ev
		if err := json.Unmarshal(r.Data, &e); err != nil {
			return err
		}
		if e.TurnID != nil && *e.TurnID == turn.ID {
			recovered = append(recovered, e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rs := types(recovered)
	assertSeq(t, rs[len(rs)-4:], "message.complete", "llm.call_failed", "tool.failed", "turn.cancelled")
	var cf ipc.LLMCallFailed
	recovered[len(recovered)-3].decode(t, &cf)
	if cf.CallID != "c1" || cf.ErrorClass != ipc.ErrClassCancelled || cf.Message != "interrupted by restart" ||
		cf.MessageID != msgID || cf.Attempt != 1 || cf.WillRetry {
		t.Fatalf("llm.call_failed %+v", cf)
	}
	// Every llm.call_started of the turn has an end.
	ends := map[string]int{}
	for _, e := range recovered {
		var p struct {
			CallID string `json:"call_id"`
		}
		switch e.Type {
		case ipc.TypeLLMCallStarted:
			e.decode(t, &p)
			ends[p.CallID]++
		case ipc.TypeLLMCallCompleted, ipc.TypeLLMCallFailed:
			e.decode(t, &p)
			ends[p.CallID]--
		}
	}
	for id, n := range ends {
		if n != 0 {
			t.Fatalf("call %s left open (%d)", id, n)
		}
	}
	var tc ipc.TurnCancelled
	recovered[len(recovered)-1].decode(t, &tc)
	if tc.Reason != "interrupted" || tc.PartialMessageID != msgID || len(tc.CancelledTools) != 1 {
		t.Fatalf("turn.cancelled %+v", tc)
	}
	// The queued turn runs after recovery with a valid history.
	end := w.turnEnd(s.ID)
	if *end.TurnID != queued.ID || end.Type != ipc.TypeTurnCompleted {
		t.Fatalf("queued turn ended %s %s", end.Type, *end.TurnID)
	}
	ms := h.messages(s.ID)
	// user, queued user, interrupted assistant, synthetic result, new assistant
	// (offsets are insertion order; the request reorders the queued user message)
	if len(ms) != 5 {
		t.Fatalf("messages %s", describe(ms))
	}
	a := ms[2]
	if a.ID != msgID || a.Status != store.StatusInterrupted || len(a.Content) != 2 || a.Content[0].Text != "Let me look." ||
		a.Content[1].ID != "tu_crash" || string(a.Content[1].Arguments) != "{}" {
		t.Fatalf("interrupted message %+v", a)
	}
	if o := ms[0].Turn; o == nil || o.ID != turn.ID || o.Status != store.TurnInterrupted || o.Error != nil {
		t.Fatalf("crashed turn's user message outcome %+v", o)
	}
	if o := ms[1].Turn; o == nil || o.ID != queued.ID || o.Status != store.TurnCompleted {
		t.Fatalf("queued turn's user message outcome %+v", o)
	}
	if r := ms[3]; r.Role != store.RoleToolResult || r.ToolCallID != "tu_crash" || !r.IsError {
		t.Fatalf("synthetic result %+v", r)
	}
	req := checkValidHistory(t, h.srv.Requests()[0])
	// do it / assistant (text + tool_use) / tool_result + next
	if len(req.Messages) != 3 || req.Messages[2].Content[len(req.Messages[2].Content)-1].Text != "next" {
		t.Fatalf("request history %s", h.srv.Requests()[0].Body)
	}
	turns, _ := h.db.Turns(s.ID)
	for _, tr := range turns {
		if tr.ID == turn.ID && (tr.Status != store.TurnCancelled || tr.Reason != "interrupted") {
			t.Fatalf("recovered turn %+v", tr)
		}
	}
	sess, _ := h.db.Session(s.ID)
	if sess.CurrentTurnID != "" || sess.StreamingMessageID != "" || sess.TurnCount != 2 {
		t.Fatalf("session %+v", sess)
	}
}
