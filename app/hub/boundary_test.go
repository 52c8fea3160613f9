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
