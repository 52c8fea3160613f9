package ipc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"agenthub/store"
)

// guard bounds how long a test waits for a frame before failing; it is a
// failure detector, never a synchronisation point.
const guard = 20 * time.Second

// newTestBus runs a bus on the in-memory twin of the store (the
// conformance suite pins that it behaves as bbolt does); tests of
// durability open a bbolt file themselves.
func newTestBus(t testing.TB, opts Options) (*Bus, StoreReader) {
	t.Helper()
	if opts.PruneInterval == 0 {
		opts.PruneInterval = -1
	}
	b, err := NewBus(NewMemoryStore(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b, b.Reader()
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

// next returns the next frame or fails the test (from the test's own
// goroutine only; other goroutines use receive).
func next(t testing.TB, s *Subscription) OutFrame {
	t.Helper()
	f, err := receive(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// receive returns the next frame, or an error if the subscription ended or
// no frame came within guard time.
func receive(s *Subscription) (OutFrame, error) {
	select {
	case f, ok := <-s.Frames():
		if !ok {
			return OutFrame{}, fmt.Errorf("subscription ended: %v", s.Err())
		}
		return f, nil
	case <-time.After(guard):
		return OutFrame{}, errors.New("no frame within guard time")
	}
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

func subErrCode(err error) string {
	if se, ok := err.(*SubscribeError); ok {
		return se.Code
	}
	return ""
}
