package ipc

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"agenthub/store"
)

// guard bounds how long a test waits for a frame before failing; it is a
// failure detector, never a synchronisation point.
const guard = 20 * time.Second

func newTestBus(t testing.TB, opts Options) (*Bus, *store.DB) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "hub.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if opts.PruneInterval == 0 {
		opts.PruneInterval = -1
	}
	b, err := NewBus(BoltStore(db), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = b.Close()
		_ = db.Close()
	})
	return b, db
}

func mkSession(t testing.TB, b *Bus, id, parent string) {
	t.Helper()
	s := store.Session{ID: id, ParentSessionID: parent, CreatedAt: time.Now().UTC()}
	if _, err := b.Commit(context.Background(), Draft{Type: TypeSessionCreated, SessionID: id, Actor: ActorSystem,
		Payload: SessionChanged{Session: s}, Ops: []store.Op{store.PutSession(s)}}); err != nil {
		t.Fatal(err)
	}
}

func delta(sid, msg, text string) Draft {
	return Draft{Type: TypeTextDelta, SessionID: sid, TurnID: "t1", Actor: ActorAgent,
		Payload: TextDelta{MessageID: msg, Text: text}}
}

func subscribe(t testing.TB, b *Bus, req SubscribeRequest) *Subscription {
	t.Helper()
	s, err := b.Subscribe(context.Background(), req)
	if err != nil {
		t.Fatalf("subscribe %+v: %v", req, err)
	}
	t.Cleanup(s.Close)
	return s
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// next returns the next frame or fails the test.
func next(t testing.TB, s *Subscription) OutFrame {
	t.Helper()
	select {
	case f, ok := <-s.Frames():
		if !ok {
			t.Fatalf("subscription ended: %v", s.Err())
		}
		return f
	case <-time.After(guard):
		t.Fatal("no frame within guard time")
	}
	return OutFrame{}
}

// nextEvent decodes the next frame, which must be an event frame.
func nextEvent(t testing.TB, s *Subscription) Event {
	t.Helper()
	f := next(t, s)
	var fr struct {
		Type  string `json:"type"`
		Event Event  `json:"event"`
	}
	if err := json.Unmarshal(f.Data, &fr); err != nil || fr.Type != "event" {
		t.Fatalf("not an event frame: %s (%v)", f.Data, err)
	}
	if fr.Event.ID.String() != f.EventID {
		t.Fatalf("EventID %s != envelope id %s", f.EventID, fr.Event.ID)
	}
	return fr.Event
}

func strp(s string) *string { return &s }

func subErrCode(err error) string {
	if se, ok := err.(*SubscribeError); ok {
		return se.Code
	}
	return ""
}
