// Package storetest is the conformance suite of ipc.Store: what any backend
// of the bus's log and state must do, checked the same way on each. The
// bbolt store and ipc.MemoryStore run it (ipc/store_conformance_test.go); a
// new backend (NATS JetStream for the scale-out path) passes it before the
// bus may run on it.
package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"agenthub/ipc"
	"agenthub/store"
)

// Open returns a new, empty Store for one subtest and arranges its cleanup.
type Open func(t *testing.T) ipc.Store

// Run runs every conformance check as a subtest, each on a fresh Store.
func Run(t *testing.T, open Open) {
	checks := []struct {
		name string
		fn   func(t *testing.T, st ipc.Store)
	}{
		{"Empty", empty},
		{"EventOrder", eventOrder},
		{"CommitIsAtomic", commitIsAtomic},
		{"CallerBuffersNotKept", callerBuffersNotKept},
		{"Sessions", sessions},
		{"MessageOffsets", messageOffsets},
		{"MessagePages", messagePages},
		{"DeleteSession", deleteSession},
		{"Turns", turns},
		{"TurnOutcomeJoined", turnOutcomeJoined},
		{"EventsAfterMerges", eventsAfterMerges},
		{"EventsBefore", eventsBefore},
		{"ViewIsASnapshot", viewIsASnapshot},
		{"Prune", prune},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open(t)) })
	}
}

// base is the timestamp of the suite's events: far enough in the past that
// retention can be tested relative to it.
var base = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// id returns a ULID at base+ms with n in its entropy, so ids sort by (ms, n).
func id(ms, n int) ulid.ULID {
	var u ulid.ULID
	if err := u.SetTime(ulid.Timestamp(base.Add(time.Duration(ms) * time.Millisecond))); err != nil {
		panic(err)
	}
	u[15] = byte(n)
	u[14] = byte(n >> 8)
	return u
}

func ev(ms, n int, sid, typ string) store.EventRecord {
	return store.EventRecord{ID: id(ms, n), SessionID: sid, Type: typ, Actor: "system",
		Data: fmt.Appendf(nil, `{"event_id":"%s","type":%q}`, id(ms, n), typ)}
}

func session(id string, created int) store.Session {
	return store.Session{ID: id, Title: "t " + id, CreatedAt: base.Add(time.Duration(created) * time.Second)}
}

func message(sid, id, text string) store.Message {
	return store.Message{ID: id, SessionID: sid, Role: store.RoleAssistant, Status: store.StatusComplete,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: text}}, CreatedAt: base}
}

func commit(t *testing.T, st ipc.Store, events []store.EventRecord, ops ...store.Op) {
	t.Helper()
	if err := st.Commit(events, ops); err != nil {
		t.Fatalf("commit: %v", err)
	}
}

// read runs fn in one View and fails the test on its error.
func read(t *testing.T, st ipc.Store, fn func(v ipc.StoreView) error) {
	t.Helper()
	if err := st.View(fn); err != nil {
		t.Fatalf("view: %v", err)
	}
}

func ids(t *testing.T, walk func(fn func(store.EventRecord) error) error) []ulid.ULID {
	t.Helper()
	var out []ulid.ULID
	if err := walk(func(r store.EventRecord) error { out = append(out, r.ID); return nil }); err != nil {
		t.Fatalf("walk: %v", err)
	}
	return out
}

func sameIDs(t *testing.T, what string, got, want []ulid.ULID) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

// sameJSON compares two values as the wire and the disk see them.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s:\n got %s\nwant %s", what, g, w)
	}
}

func notFound(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("%s: want store.ErrNotFound, got %v", what, err)
	}
}

func empty(t *testing.T, st ipc.Store) {
	if st.Epoch() == "" {
		t.Fatal("empty epoch")
	}
	if st.EpochFloor() != (ulid.ULID{}) {
		t.Fatalf("a new store's epoch floor is %s, want zero", st.EpochFloor())
	}
	read(t, st, func(v ipc.StoreView) error {
		if v.LastEventID() != (ulid.ULID{}) || v.PrunedThrough() != (ulid.ULID{}) {
			t.Fatalf("last %s pruned %s, want zero", v.LastEventID(), v.PrunedThrough())
		}
		if ss, err := v.Sessions(); err != nil || len(ss) != 0 {
			t.Fatalf("sessions %v %v", ss, err)
		}
		_, err := v.Event(id(1, 1))
		notFound(t, "unknown event", err)
		_, err = v.Session("nope")
		notFound(t, "unknown session", err)
		_, err = v.Message("nope", "m")
		notFound(t, "unknown message", err)
		if n := v.MessageCount("nope"); n != 0 {
			t.Fatalf("message count of an unknown session %d", n)
		}
		return nil
	})
}

func eventOrder(t *testing.T, st ipc.Store) {
	commit(t, st, []store.EventRecord{ev(1, 1, "s", "a"), ev(1, 2, "s", "b")})
	commit(t, st, []store.EventRecord{ev(2, 1, "s", "c")})
	for _, bad := range [][]store.EventRecord{
		{ev(2, 1, "s", "again")},                    // equal to the newest
		{ev(1, 9, "s", "older")},                    // older than the newest
		{ev(3, 2, "s", "x"), ev(3, 1, "s", "y")},    // not increasing within the batch
		{{ID: id(4, 1), Type: "no-session"}},        // no session id
		{{ID: id(4, 1), SessionID: "s", Type: ""}},  // no type
		{ev(5, 1, "s", "ok"), ev(5, 1, "s", "dup")}, // a duplicate within the batch
	} {
		if err := st.Commit(bad, nil); err == nil {
			t.Fatalf("commit of %v accepted", bad)
		}
	}
	read(t, st, func(v ipc.StoreView) error {
		if v.LastEventID() != id(2, 1) {
			t.Fatalf("last %s, want %s", v.LastEventID(), id(2, 1))
		}
		r, err := v.Event(id(1, 2))
		if err != nil || r.Type != "b" || r.SessionID != "s" || r.Actor != "system" || string(r.Data) != string(ev(1, 2, "s", "b").Data) {
			t.Fatalf("event: %+v %v", r, err)
		}
		sameIDs(t, "events after zero", ids(t, func(fn func(store.EventRecord) error) error {
			return v.EventsAfter([]string{"s"}, ulid.ULID{}, fn)
		}), []ulid.ULID{id(1, 1), id(1, 2), id(2, 1)})
		return nil
	})
}

func commitIsAtomic(t *testing.T, st ipc.Store) {
	commit(t, st, nil, store.PutSession(session("s", 0)))
	// The events are valid; the op is not (no such session): nothing lands.
	err := st.Commit([]store.EventRecord{ev(1, 1, "s", "a")},
		[]store.Op{store.PutMessage(message("s", "m1", "x")), store.PutMessage(message("ghost", "m2", "y"))})
	notFound(t, "put message of an unknown session", err)
	if err := st.Commit(nil, []store.Op{{}}); err == nil {
		t.Fatal("an empty op was accepted")
	}
	if err := st.Commit(nil, []store.Op{store.PutSession(store.Session{})}); err == nil {
		t.Fatal("a session without id was accepted")
	}
	read(t, st, func(v ipc.StoreView) error {
		if v.LastEventID() != (ulid.ULID{}) {
			t.Fatalf("a failed commit's event is visible: last %s", v.LastEventID())
		}
		if _, err := v.Message("s", "m1"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("a failed commit's first op is visible: %v", err)
		}
		return nil
	})
	// The store still takes the same ids afterwards.
	commit(t, st, []store.EventRecord{ev(1, 1, "s", "a")}, store.PutMessage(message("s", "m1", "x")))
}

func callerBuffersNotKept(t *testing.T, st ipc.Store) {
	r := ev(1, 1, "s", "a")
	want := string(r.Data)
	s := session("s", 0)
	s.QueuedTurns = []store.QueuedTurn{{TurnID: "t", Content: "queued"}}
	m := message("s", "m", "hello")
	commit(t, st, []store.EventRecord{r}, store.PutSession(s), store.PutMessage(m))
	r.Data[2] = 'X'
	s.QueuedTurns[0].Content = "changed"
	m.Content[0].Text = "changed"
	read(t, st, func(v ipc.StoreView) error {
		got, _ := v.Event(r.ID)
		gs, _ := v.Session("s")
		gm, _ := v.Message("s", "m")
		if string(got.Data) != want || gs.QueuedTurns[0].Content != "queued" || gm.Content[0].Text != "hello" {
			t.Fatalf("the store kept the caller's buffers: %s / %+v / %+v", got.Data, gs.QueuedTurns, gm.Content)
		}
		return nil
	})
}

func eventsAfterMerges(t *testing.T, st ipc.Store) {
	commit(t, st, []store.EventRecord{ev(1, 1, "a", "x"), ev(1, 2, "b", "x"), ev(1, 3, "c", "x")})
	commit(t, st, []store.EventRecord{ev(2, 1, "b", "x"), ev(2, 2, "a", "x"), ev(2, 3, "a", "x")})
	read(t, st, func(v ipc.StoreView) error {
		walk := func(sids []string, after ulid.ULID) []ulid.ULID {
			return ids(t, func(fn func(store.EventRecord) error) error { return v.EventsAfter(sids, after, fn) })
		}
		sameIDs(t, "a and b", walk([]string{"b", "a", "b"}, ulid.ULID{}), []ulid.ULID{id(1, 1), id(1, 2), id(2, 1), id(2, 2), id(2, 3)})
		sameIDs(t, "after a cursor", walk([]string{"a", "b"}, id(2, 1)), []ulid.ULID{id(2, 2), id(2, 3)})
		sameIDs(t, "after an id of another session", walk([]string{"a"}, id(1, 3)), []ulid.ULID{id(2, 2), id(2, 3)})
		sameIDs(t, "unknown session", walk([]string{"zzz"}, ulid.ULID{}), nil)
		stop := errors.New("stop")
		n := 0
		err := v.EventsAfter([]string{"a", "b", "c"}, ulid.ULID{}, func(store.EventRecord) error {
			if n++; n == 2 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 2 {
			t.Fatalf("fn's error: got %v after %d events", err, n)
		}
		return nil
	})
}

func eventsBefore(t *testing.T, st ipc.Store) {
	commit(t, st, []store.EventRecord{ev(1, 1, "a", "x"), ev(1, 2, "b", "x"), ev(1, 3, "a", "x"), ev(1, 4, "a", "x")})
	read(t, st, func(v ipc.StoreView) error {
		walk := func(before ulid.ULID) []ulid.ULID {
			return ids(t, func(fn func(store.EventRecord) error) error { return v.EventsBefore("a", before, fn) })
		}
		sameIDs(t, "from the newest", walk(ulid.ULID{}), []ulid.ULID{id(1, 4), id(1, 3), id(1, 1)})
		sameIDs(t, "before an id", walk(id(1, 3)), []ulid.ULID{id(1, 1)})
		sameIDs(t, "before another session's id", walk(id(1, 2)), []ulid.ULID{id(1, 1)})
		sameIDs(t, "before a future id", walk(id(9, 9)), []ulid.ULID{id(1, 4), id(1, 3), id(1, 1)})
		n := 0
		err := v.EventsBefore("a", ulid.ULID{}, func(store.EventRecord) error { n++; return store.ErrStop })
		if err != nil || n != 1 {
			t.Fatalf("ErrStop: %v after %d", err, n)
		}
		return nil
	})
}

// viewIsASnapshot: what a View reads does not change while it is open,
// even when a commit finishes meanwhile (a backend may make the commit
// wait for the view instead: then it must finish once the view ends).
func viewIsASnapshot(t *testing.T, st ipc.Store) {
	commit(t, st, []store.EventRecord{ev(1, 1, "s", "a")}, store.PutSession(session("s", 0)))
	done := make(chan error, 1)
	read(t, st, func(v ipc.StoreView) error {
		before := v.LastEventID()
		go func() {
			done <- st.Commit([]store.EventRecord{ev(2, 1, "s", "b")},
				[]store.Op{store.PutSession(session("t", 1)), store.PutMessage(message("s", "m", "x"))})
		}()
		select {
		case err := <-done:
			done <- err // finished while the view is open
		case <-time.After(500 * time.Millisecond): // waits for the view: allowed
		}
		if v.LastEventID() != before || v.MessageCount("s") != 0 {
			t.Fatalf("the view saw a later commit: last %s, %d messages", v.LastEventID(), v.MessageCount("s"))
		}
		if _, err := v.Session("t"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the view saw a later commit's session: %v", err)
		}
		if _, err := v.Event(id(2, 1)); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("the view saw a later commit's event: %v", err)
		}
		return nil
	})
	if err := <-done; err != nil {
		t.Fatalf("the concurrent commit: %v", err)
	}
	read(t, st, func(v ipc.StoreView) error {
		if v.LastEventID() != id(2, 1) || v.MessageCount("s") != 1 {
			t.Fatalf("a view after the commit: last %s, %d messages", v.LastEventID(), v.MessageCount("s"))
		}
		return nil
	})
	wantErr := errors.New("fn's own error")
	if err := st.View(func(ipc.StoreView) error { return wantErr }); !errors.Is(err, wantErr) {
		t.Fatalf("View returned %v, want fn's error", err)
	}
}

func prune(t *testing.T, st ipc.Store) {
	// At base+0s..: a bus event, a closed group's deltas, an open group's
	// deltas; then recent events at base+1h.
	stream := func(ms, n int, group, closes string) store.EventRecord {
		r := ev(ms, n, "s", "text.delta")
		r.Streaming, r.Group, r.Closes = true, group, closes
		return r
	}
	closeGroup := ev(1000, 3, "s", "message.complete")
	closeGroup.Group, closeGroup.Closes = "m1", "m1"
	commit(t, st, []store.EventRecord{
		ev(0, 1, "s", "session.created"),
		stream(1000, 1, "m1", ""), stream(1000, 2, "m1", ""), closeGroup,
		stream(2000, 1, "m2", ""),
		ev(3_600_000, 1, "s", "turn.started"), stream(3_600_000, 2, "m3", ""),
	}, store.PutSession(session("s", 0)))
	left := func() []ulid.ULID {
		var out []ulid.ULID
		read(t, st, func(v ipc.StoreView) error {
			out = ids(t, func(fn func(store.EventRecord) error) error { return v.EventsAfter([]string{"s"}, ulid.ULID{}, fn) })
			return nil
		})
		return out
	}
	// Nothing is old enough yet.
	if n, err := st.Prune(base.Add(time.Hour), 2*time.Hour, 2*time.Hour); err != nil || n != 0 {
		t.Fatalf("prune with nothing due: %d %v", n, err)
	}
	// The closed group's deltas go 1 min after it closed; its closing event
	// (not streaming), the open group and the bus event stay.
	n, err := st.Prune(base.Add(2*time.Minute), 2*time.Hour, time.Minute)
	if err != nil || n != 2 {
		t.Fatalf("delta retention pruned %d %v, want 2", n, err)
	}
	sameIDs(t, "after delta retention", left(), []ulid.ULID{id(0, 1), id(1000, 3), id(2000, 1), id(3_600_000, 1), id(3_600_000, 2)})
	read(t, st, func(v ipc.StoreView) error {
		if v.PrunedThrough() != id(1000, 2) {
			t.Fatalf("pruned through %s, want %s", v.PrunedThrough(), id(1000, 2))
		}
		_, err := v.Event(id(1000, 1))
		notFound(t, "a pruned event", err)
		return nil
	})
	// Event retention takes everything older than it, whatever its tier.
	n, err = st.Prune(base.Add(90*time.Minute), time.Hour, time.Minute)
	if err != nil || n != 3 {
		t.Fatalf("event retention pruned %d %v, want 3", n, err)
	}
	sameIDs(t, "after event retention", left(), []ulid.ULID{id(3_600_000, 1), id(3_600_000, 2)})
	read(t, st, func(v ipc.StoreView) error {
		if v.PrunedThrough() != id(2000, 1) || v.LastEventID() != id(3_600_000, 2) {
			t.Fatalf("pruned through %s last %s", v.PrunedThrough(), v.LastEventID())
		}
		if _, err := v.Session("s"); err != nil {
			t.Fatalf("prune touched state: %v", err)
		}
		return nil
	})
	// Pruning everything keeps the newest id: new ids must still be greater.
	if _, err := st.Prune(base.Add(10*time.Hour), time.Hour, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit([]store.EventRecord{ev(3_600_000, 2, "s", "reused")}, nil); err == nil {
		t.Fatal("an id at or below a pruned newest id was accepted")
	}
	read(t, st, func(v ipc.StoreView) error {
		if v.LastEventID() != id(3_600_000, 2) {
			t.Fatalf("last %s after pruning everything", v.LastEventID())
		}
		return nil
	})
}
