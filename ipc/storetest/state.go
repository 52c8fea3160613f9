package storetest

// The checks of the state a Store keeps beside its log: sessions, messages
// (offsets, pages, the joined turn outcome) and turns.

import (
	"fmt"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

func sessions(t *testing.T, st ipc.Store) {
	// Newest CreatedAt first; equal times by id, descending.
	commit(t, st, nil, store.PutSession(session("a", 1)), store.PutSession(session("b", 3)),
		store.PutSession(session("c", 3)), store.PutSession(session("d", 2)))
	upd := session("a", 1)
	upd.Title, upd.TurnCount, upd.CostSoFarUSD = "renamed", 3, 0.25
	commit(t, st, nil, store.PutSession(upd))
	read(t, st, func(v ipc.StoreView) error {
		ss, err := v.Sessions()
		if err != nil {
			return err
		}
		var order []string
		for _, s := range ss {
			order = append(order, s.ID)
		}
		if fmt.Sprint(order) != "[c b d a]" {
			t.Fatalf("order %v, want [c b d a]", order)
		}
		got, err := v.Session("a")
		if err != nil {
			return err
		}
		sameJSON(t, "replaced session", got, upd)
		return nil
	})
}

func messageOffsets(t *testing.T, st ipc.Store) {
	commit(t, st, nil, store.PutSession(session("s", 0)))
	m0, m1 := message("s", "m0", "zero"), message("s", "m1", "one")
	m0.Offset = 42 // ignored: offsets are the store's
	commit(t, st, nil, store.PutMessage(m0), store.PutMessage(m1))
	m0.Content[0].Text, m0.Status = "zero, final", store.StatusCancelled
	commit(t, st, nil, store.PutMessage(m0), store.PutMessage(message("s", "m2", "two")))
	read(t, st, func(v ipc.StoreView) error {
		if n := v.MessageCount("s"); n != 3 {
			t.Fatalf("count %d, want 3", n)
		}
		for i, mid := range []string{"m0", "m1", "m2"} {
			m, err := v.Message("s", mid)
			if err != nil {
				return err
			}
			if m.Offset != int64(i) {
				t.Fatalf("%s at offset %d, want %d", mid, m.Offset, i)
			}
		}
		got, _ := v.Message("s", "m0")
		want := m0
		want.Offset = 0
		sameJSON(t, "replaced message", got, want)
		return nil
	})
}

func messagePages(t *testing.T, st ipc.Store) {
	commit(t, st, nil, store.PutSession(session("s", 0)))
	var ops []store.Op
	for i := range 60 {
		ops = append(ops, store.PutMessage(message("s", fmt.Sprintf("m%02d", i), "x")))
	}
	commit(t, st, nil, ops...)
	offsets := func(ms []store.Message) string {
		var out []int64
		for _, m := range ms {
			out = append(out, m.Offset)
		}
		if len(out) > 4 {
			return fmt.Sprintf("%d…%d (%d)", out[0], out[len(out)-1], len(out))
		}
		return fmt.Sprint(out)
	}
	read(t, st, func(v ipc.StoreView) error {
		for _, c := range []struct {
			offset, limit int
			want          string
		}{{0, 0, "0…59 (60)"}, {10, 3, "[10 11 12]"}, {58, 10, "[58 59]"}, {60, 5, "[]"}, {99, 5, "[]"}, {-5, 2, "[0 1]"}} {
			ms, total, err := v.Messages("s", c.offset, c.limit)
			if err != nil || total != 60 || offsets(ms) != c.want {
				t.Fatalf("Messages(%d, %d) = %s total %d %v, want %s total 60", c.offset, c.limit, offsets(ms), total, err, c.want)
			}
		}
		for _, c := range []struct {
			before string
			limit  int
			want   string
			more   bool
		}{{"", 0, "10…59 (50)", true}, {"", 5, "55…59 (5)", true}, {"m03", 10, "[0 1 2]", false}, {"m10", 10, "0…9 (10)", false}, {"m00", 5, "[]", false}} {
			ms, more, err := v.MessagesBefore("s", c.before, c.limit)
			if err != nil || offsets(ms) != c.want || more != c.more {
				t.Fatalf("MessagesBefore(%q, %d) = %s more %v %v, want %s more %v", c.before, c.limit, offsets(ms), more, err, c.want, c.more)
			}
		}
		_, _, err := v.MessagesBefore("s", "nope", 5)
		notFound(t, "before an unknown message", err)
		_, _, err = v.MessagesBefore("other", "nope", 5)
		notFound(t, "before a message of a session without messages", err)
		if ms, more, err := v.MessagesBefore("other", "", 5); len(ms) != 0 || more || err != nil {
			t.Fatalf("a session without messages: %v %v %v", ms, more, err)
		}
		if ms, total, err := v.Messages("other", 0, 0); len(ms) != 0 || total != 0 || err != nil {
			t.Fatalf("a session without messages: %v %d %v", ms, total, err)
		}
		return nil
	})
}

func deleteSession(t *testing.T, st ipc.Store) {
	commit(t, st, []store.EventRecord{ev(1, 1, "s", "a")}, store.PutSession(session("s", 0)),
		store.PutMessage(message("s", "m0", "x")), store.PutMessage(message("s", "m1", "y")),
		store.PutTurn(store.Turn{ID: "t", SessionID: "s", Status: store.TurnCompleted, CreatedAt: base}))
	commit(t, st, nil, store.DeleteSession("s"), store.DeleteSession("never-existed"))
	read(t, st, func(v ipc.StoreView) error {
		_, err := v.Session("s")
		notFound(t, "deleted session", err)
		_, err = v.Message("s", "m0")
		notFound(t, "deleted session's message", err)
		if ts, _ := v.Turns("s"); len(ts) != 0 || v.MessageCount("s") != 0 {
			t.Fatalf("a deleted session kept turns %v or messages %d", ts, v.MessageCount("s"))
		}
		// Its events stay until retention prunes them.
		sameIDs(t, "events of a deleted session", ids(t, func(fn func(store.EventRecord) error) error {
			return v.EventsAfter([]string{"s"}, ulid.ULID{}, fn)
		}), []ulid.ULID{id(1, 1)})
		return nil
	})
	notFound(t, "put message after delete", st.Commit(nil, []store.Op{store.PutMessage(message("s", "m2", "z"))}))
	// A session created again under the same id starts its offsets at 0.
	commit(t, st, nil, store.PutSession(session("s", 1)), store.PutMessage(message("s", "n", "again")))
	read(t, st, func(v ipc.StoreView) error {
		m, err := v.Message("s", "n")
		if err != nil || m.Offset != 0 {
			t.Fatalf("recreated session's first message at offset %d %v", m.Offset, err)
		}
		return nil
	})
}

func turns(t *testing.T, st ipc.Store) {
	turn := func(sid, id, status string, created int) store.Turn {
		return store.Turn{ID: id, SessionID: sid, Status: status, CreatedAt: base.Add(time.Duration(created) * time.Second)}
	}
	commit(t, st, nil, store.PutSession(session("a", 0)), store.PutSession(session("b", 0)),
		store.PutTurn(turn("a", "t3", store.TurnRunning, 3)), store.PutTurn(turn("a", "t1", store.TurnCompleted, 1)),
		store.PutTurn(turn("b", "t2", store.TurnQueued, 2)), store.PutTurn(turn("b", "t0", store.TurnQueued, 2)))
	notFound(t, "turn of an unknown session", st.Commit(nil, []store.Op{store.PutTurn(turn("ghost", "x", store.TurnQueued, 0))}))
	done := turn("a", "t3", store.TurnCompleted, 3)
	done.EndedAt = base.Add(time.Minute)
	commit(t, st, nil, store.PutTurn(done))
	read(t, st, func(v ipc.StoreView) error {
		ts, err := v.Turns("a")
		if err != nil || len(ts) != 2 || ts[0].ID != "t1" || ts[1].ID != "t3" || ts[1].Status != store.TurnCompleted {
			t.Fatalf("turns of a: %+v %v", ts, err)
		}
		sameJSON(t, "replaced turn", ts[1], done)
		q, err := v.TurnsWithStatus(store.TurnQueued, store.TurnRunning)
		if err != nil || len(q) != 2 || q[0].ID != "t0" || q[1].ID != "t2" {
			t.Fatalf("queued or running: %+v %v", q, err)
		}
		return nil
	})
}

// turnOutcomeJoined: a user message that started a turn carries the turn's
// current outcome on every read (Message, Messages, MessagesBefore), never
// a copy stored with the message; a crash-cancelled turn reads as
// "interrupted"; other roles carry none.
func turnOutcomeJoined(t *testing.T, st ipc.Store) {
	user := store.Message{ID: "u1", SessionID: "a", TurnID: "t1", Role: store.RoleUser, Status: store.StatusComplete,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: "hi"}}, CreatedAt: base,
		Turn: &store.TurnOutcome{ID: "stale", Status: "stale"}}
	answer := message("a", "m1", "partial")
	answer.TurnID = "t1"
	running := store.Turn{ID: "t1", SessionID: "a", UserMessageID: "u1", Status: store.TurnRunning, CreatedAt: base}
	commit(t, st, nil, store.PutSession(session("a", 0)), store.PutTurn(running), store.PutMessage(user), store.PutMessage(answer))
	outcome := func(want store.TurnOutcome) {
		t.Helper()
		read(t, st, func(v ipc.StoreView) error {
			m, err := v.Message("a", "u1")
			if err != nil {
				return err
			}
			sameJSON(t, "Message turn", m.Turn, want)
			ms, _, err := v.Messages("a", 0, 0)
			if err != nil || len(ms) != 2 {
				t.Fatalf("messages: %+v %v", ms, err)
			}
			sameJSON(t, "Messages turn", ms[0].Turn, want)
			if ms[1].Turn != nil {
				t.Fatalf("assistant message carries a turn: %+v", ms[1].Turn)
			}
			before, _, err := v.MessagesBefore("a", "", 10)
			if err != nil || len(before) != 2 {
				t.Fatalf("messages before: %+v %v", before, err)
			}
			sameJSON(t, "MessagesBefore turn", before[0].Turn, want)
			return nil
		})
	}
	outcome(store.TurnOutcome{ID: "t1", Status: store.TurnRunning})
	failed := running
	failed.Status, failed.Reason = store.TurnFailed, "rate_limited"
	failed.Error = &store.TurnError{Class: "rate_limited", Message: "slow down", Attempts: 4}
	commit(t, st, nil, store.PutTurn(failed))
	outcome(store.TurnOutcome{ID: "t1", Status: store.TurnFailed, Error: failed.Error})
	crashed := running
	crashed.Status, crashed.Reason = store.TurnCancelled, store.ReasonInterrupted
	commit(t, st, nil, store.PutTurn(crashed))
	outcome(store.TurnOutcome{ID: "t1", Status: store.TurnInterrupted})
}
