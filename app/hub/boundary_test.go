package hub

import (
	"strings"
	"testing"

	"agenthub/store"
)

func TestCompactionBoundaryNeverStartsAtToolResult(t *testing.T) {
	m := func(role string, n int) store.Message {
		return store.Message{Role: role, Content: []store.ContentBlock{{Type: store.BlockText, Text: strings.Repeat("x", n)}}}
	}
	msgs := []store.Message{
		m(store.RoleUser, 400), m(store.RoleAssistant, 40), m(store.RoleToolResult, 40),
		m(store.RoleToolResult, 40), m(store.RoleAssistant, 40),
	}
	for i := range msgs {
		msgs[i].Offset = int64(i)
	}
	for keep := int64(0); keep < 200; keep++ {
		b := compactionBoundary(msgs, keep)
		if b < len(msgs) && msgs[b].Role == store.RoleToolResult {
			t.Fatalf("keep %d: boundary %d is a tool result", keep, b)
		}
		if b >= len(msgs) {
			t.Fatalf("keep %d: nothing kept", keep)
		}
	}
	// A budget covering the results only moves back to their call.
	if b := compactionBoundary(msgs, 35); b != 1 {
		t.Fatalf("boundary %d, want 1", b)
	}
}

func TestRequestMessagesOrdersQueuedUserMessages(t *testing.T) {
	m := func(role, turn, id string) store.Message {
		return store.Message{ID: id, Role: role, TurnID: turn, Status: store.StatusComplete,
			Content: []store.ContentBlock{{Type: store.BlockText, Text: id}}}
	}
	msgs := []store.Message{
		m(store.RoleUser, "t1", "u1"), m(store.RoleUser, "t2", "u2"), m(store.RoleUser, "t3", "u3"),
		m(store.RoleAssistant, "t1", "a1"), m(store.RoleAssistant, "t2", "a2"),
	}
	failed := m(store.RoleAssistant, "t2", "err")
	failed.Status = store.StatusError
	msgs = append(msgs, failed)
	var got []string
	for _, x := range requestMessages(msgs, "t3") {
		got = append(got, x.ID)
	}
	if strings.Join(got, " ") != "u1 a1 u2 a2 u3" {
		t.Fatalf("order %v", got)
	}
}
