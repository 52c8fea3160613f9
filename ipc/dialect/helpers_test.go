package dialect

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/store"
)

// guard bounds every wait for a frame: a failure detector only.
const guard = 20 * time.Second

// newTestBus runs a bus with this package's dialects on the in-memory
// twin of the store.
func newTestBus(t testing.TB, opts ipc.Options) (*ipc.Bus, ipc.StoreReader) {
	t.Helper()
	opts.PruneInterval = -1
	opts.Dialects = New()
	b, err := ipc.NewBus(ipc.NewMemoryStore(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b, b.Reader()
}

// mkSession commits session id (a worker of parent when parent is set).
func mkSession(t testing.TB, b *ipc.Bus, id, parent string) {
	t.Helper()
	s := store.Session{ID: id, ParentSessionID: parent, CreatedAt: time.Now().UTC()}
	d := ipc.Draft{Type: ipc.TypeSessionCreated, SessionID: id, Actor: ipc.ActorSystem,
		Payload: ipc.SessionChanged{Session: s}, Ops: []store.Op{store.PutSession(s)}}
	if _, err := b.Commit(context.Background(), d); err != nil {
		t.Fatal(err)
	}
}

// delta is a text delta of message msg in session sid.
func delta(sid, msg, text string) ipc.Draft {
	return ipc.Draft{Type: ipc.TypeTextDelta, SessionID: sid, TurnID: "t1", Actor: ipc.ActorAgent,
		Payload: ipc.TextDelta{MessageID: msg, Text: text}}
}

// subscribe subscribes or fails the test; the subscription closes with it.
func subscribe(t testing.TB, b *ipc.Bus, req ipc.SubscribeRequest) *ipc.Subscription {
	t.Helper()
	s, err := b.Subscribe(context.Background(), req)
	if err != nil {
		t.Fatalf("subscribe %+v: %v", req, err)
	}
	t.Cleanup(s.Close)
	return s
}

// next returns the subscription's next frame, failing the test when it
// ended or none came within guard.
func next(t testing.TB, s *ipc.Subscription) ipc.OutFrame {
	t.Helper()
	var err error
	select {
	case f, ok := <-s.Frames():
		if ok {
			return f
		}
		err = fmt.Errorf("subscription ended: %v", s.Err())
	case <-time.After(guard):
		err = errors.New("no frame within guard time")
	}
	t.Fatal(err)
	return ipc.OutFrame{}
}
