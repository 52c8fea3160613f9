package hub_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
)

// TestSubmitTurnWithClientID: a submission may name its user message's id
// (AG-UI keeps the client's ids): stored with it at once or, queued, when
// its turn starts; an id the session already has is a conflict that
// overwrites nothing; a malformed id is refused.
func TestSubmitTurnWithClientID(t *testing.T) {
	h, s, w := watchedSession(t)
	gate := llmtest.NewGate()
	defer gate.Release()
	h.srv.Enqueue(stalledReply(gate, "first"), textReply("second"))
	ctx := context.Background()
	const first, second = "0190a0e4-7b3c-7000-8000-000000000001", "0190a0e4-7b3c-7000-8000-000000000002"
	if _, err := h.hub.SubmitTurnWithID(ctx, s.ID, first, "one"); err != nil {
		t.Fatal(err)
	}
	<-gate.Reached()
	r, err := h.hub.SubmitTurnWithID(ctx, s.ID, second, "two")
	if err != nil || !r.Queued {
		t.Fatalf("second submission %+v, %v; want queued", r, err)
	}
	for _, id := range []string{first, second} { // stored, and queued
		if _, err := h.hub.SubmitTurnWithID(ctx, s.ID, id, "again"); !errors.Is(err, ipc.ErrConflict) {
			t.Errorf("reusing %s: %v, want ErrConflict", id, err)
		}
	}
	for _, bad := range []string{"", "-", "result:x", "a b", "x\n", strings.Repeat("a", ipc.MaxClientMessageID+1), "<script>"} {
		if _, err := h.hub.SubmitTurnWithID(ctx, s.ID, bad, "bad"); !errors.Is(err, ipc.ErrInvalidInput) {
			t.Errorf("id %q: %v, want ErrInvalidInput", bad, err)
		}
	}
	gate.Release()
	w.turnEnd(s.ID)
	w.turnEnd(s.ID)
	ms := h.messages(s.ID)
	var users []string
	for _, m := range ms {
		if m.Role == "user" {
			users = append(users, m.ID+"="+m.Content[0].Text)
		}
	}
	if got := strings.Join(users, " "); got != first+"=one "+second+"=two" {
		t.Fatalf("user messages %s (all: %s)", got, describe(ms))
	}
}
