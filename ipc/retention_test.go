package ipc

import (
	"context"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"agenthub/store"
)

// A delegated worker's text is logged twice: as the worker session's own
// text.delta (its transcript, what a client of the worker session sees)
// and as the parent's tool.output_delta of the delegate call (what a
// client of the parent sees live in the tool card, without subscribing to
// the worker). Both are streaming-tier events of a group — the worker's
// message, the delegate call — so delta retention deletes both once their
// groups have closed, and keeps both while either is still open.
func TestDelegatedWorkerTextRetainedAlike(t *testing.T) {
	b, db := newTestBus(t, Options{})
	mkSession(t, b, "p", "")
	mkSession(t, b, "w", "p")
	ctx := context.Background()
	commit := func(d Draft) ulid.ULID {
		t.Helper()
		evs, err := b.Commit(ctx, d)
		if err != nil {
			t.Fatal(err)
		}
		return evs[0].ID
	}
	workerText := commit(Draft{Type: TypeTextDelta, SessionID: "w", Actor: ActorAgent, Payload: TextDelta{MessageID: "wm", Text: "found it"}})
	parentEcho := commit(Draft{Type: TypeToolOutputDelta, SessionID: "p", Actor: ActorTool, Payload: ToolOutputDelta{ToolUseID: "call1", Stream: "worker", Text: "found it"}})
	openEcho := commit(Draft{Type: TypeToolOutputDelta, SessionID: "p", Actor: ActorTool, Payload: ToolOutputDelta{ToolUseID: "call2", Stream: "worker", Text: "still going"}})
	workerDone := commit(Draft{Type: TypeMessageComplete, SessionID: "w", Actor: ActorAgent, Payload: MessageComplete{MessageID: "wm", StopReason: "end_turn"}})
	parentDone := commit(Draft{Type: TypeToolCompleted, SessionID: "p", Actor: ActorTool, Payload: ToolCompleted{ToolUseID: "call1", ToolName: "delegate"}})

	for _, id := range []ulid.ULID{workerText, parentEcho, openEcho} {
		var r store.EventRecord
		_ = db.Store.View(func(v StoreView) error { r, _ = v.Event(id); return nil })
		if !r.Streaming || r.Group == "" {
			t.Fatalf("%s %s: streaming %v group %q, want the streaming tier in a group", r.Type, r.SessionID, r.Streaming, r.Group)
		}
	}
	n, err := b.db.Prune(time.Now().Add(2*time.Minute), time.Hour, time.Minute)
	// The worker's message.complete is streaming-tier too (the stored
	// message keeps its final content); tool.completed is bus-tier.
	if err != nil || n != 3 {
		t.Fatalf("pruned %d (%v), want the worker's text.delta and message.complete and the parent's echo", n, err)
	}
	_ = db.Store.View(func(v StoreView) error {
		for _, c := range []struct {
			id   ulid.ULID
			kept bool
		}{{workerText, false}, {parentEcho, false}, {openEcho, true}, {workerDone, false}, {parentDone, true}} {
			if _, err := v.Event(c.id); (err == nil) != c.kept {
				t.Errorf("event %s: kept %v, want %v", c.id, err == nil, c.kept)
			}
		}
		return nil
	})
}
