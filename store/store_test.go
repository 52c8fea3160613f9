package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "hub.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func idAt(ms uint64, n byte) ulid.ULID {
	var id ulid.ULID
	_ = id.SetTime(ms)
	id[15] = n
	return id
}

func TestEpochCleanAndUnclean(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hub.db")
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if db.RecoveredFromCrash() {
		t.Fatal("fresh db reports crash")
	}
	e1 := db.Epoch()
	ev := EventRecord{ID: idAt(1000, 1), SessionID: "s", Type: "turn.started", Data: []byte(`{}`)}
	if err := db.Commit([]EventRecord{ev}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if db.Epoch() != e1 || db.RecoveredFromCrash() {
		t.Fatalf("clean reopen changed epoch %s → %s", e1, db.Epoch())
	}
	ev2 := EventRecord{ID: idAt(2000, 1), SessionID: "s", Type: "turn.started", Data: []byte(`{}`)}
	if err := db.Commit([]EventRecord{ev2}, nil); err != nil {
		t.Fatal(err)
	}
	// A crash: the file is closed without recording a clean shutdown. Every
	// committed id is on disk, so the epoch (and its floor) stays.
	if err := CloseUnclean(db); err != nil {
		t.Fatal(err)
	}
	db, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Epoch() != e1 || !db.RecoveredFromCrash() {
		t.Fatalf("unclean reopen: epoch %s → %s, recovered %v; want the same epoch, recovered", e1, db.Epoch(), db.RecoveredFromCrash())
	}
	if db.EpochFloor() != (ulid.ULID{}) {
		t.Fatalf("floor moved to %s after a crash", db.EpochFloor())
	}
}

// TestEpochChangesWithTheLogsIdentity: a restored older copy, a replaced
// file and a lost side file each begin a new epoch whose floor is the
// newest id on disk.
func TestEpochChangesWithTheLogsIdentity(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hub.db")
	commit := func(db *DB, ms uint64) {
		t.Helper()
		if err := db.Commit([]EventRecord{{ID: idAt(ms, 1), SessionID: "s", Type: "turn.started", Data: []byte(`{}`)}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	copyFile := func(from, to string) {
		t.Helper()
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	open := func() *DB {
		t.Helper()
		db, err := Open(path, Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	e1 := db.Epoch()
	commit(db, 1000)
	_ = db.Close()
	copyFile(path, filepath.Join(dir, "backup.db")) // a backup with newest id 1000

	db = open()
	commit(db, 2000)
	_ = db.Close()
	copyFile(filepath.Join(dir, "backup.db"), path) // restore it
	db = open()
	if db.Epoch() == e1 || db.EpochFloor() != idAt(1000, 1) {
		t.Fatalf("restored copy: epoch %s (was %s), floor %s", db.Epoch(), e1, db.EpochFloor())
	}
	e2 := db.Epoch()
	_ = db.Close()

	other := filepath.Join(dir, "other.db") // a different log put in its place
	odb, err := Open(other, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	commit(odb, 3000)
	_ = odb.Close()
	copyFile(other, path)
	db = open()
	if db.Epoch() == e2 || db.Epoch() == odb.Epoch() || db.EpochFloor() != idAt(3000, 1) {
		t.Fatalf("replaced file: epoch %s (was %s, other %s), floor %s", db.Epoch(), e2, odb.Epoch(), db.EpochFloor())
	}
	e3 := db.Epoch()
	_ = db.Close()

	if err := os.Remove(identityPath(path)); err != nil {
		t.Fatal(err)
	}
	db = open()
	defer db.Close()
	if db.Epoch() == e3 {
		t.Fatal("lost side file kept the epoch")
	}
}

func TestLockTimeoutNamesDir(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hub.db")
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = Open(path, Options{Timeout: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("second open: %v, want an error naming %s", err, dir)
	}
}

func TestMessagesOffsetsAndPaging(t *testing.T) {
	db := openTest(t)
	s := Session{ID: "s1", Title: "t", CreatedAt: time.Unix(10, 0)}
	if err := db.Commit(nil, []Op{PutSession(s)}); err != nil {
		t.Fatal(err)
	}
	var ops []Op
	for i := range 10 {
		ops = append(ops, PutMessage(Message{ID: fmt.Sprintf("m%d", i), SessionID: "s1", Offset: 99, Role: RoleUser, Status: StatusComplete}))
	}
	if err := db.Commit(nil, ops); err != nil {
		t.Fatal(err)
	}
	// Replace m3 in place: offset kept.
	if err := db.Commit(nil, []Op{PutMessage(Message{ID: "m3", SessionID: "s1", Role: RoleAssistant, Status: StatusCancelled})}); err != nil {
		t.Fatal(err)
	}
	m, err := db.Message("s1", "m3")
	if err != nil || m.Offset != 3 || m.Status != StatusCancelled {
		t.Fatalf("m3 = %+v, %v", m, err)
	}
	page, total, err := db.Messages("s1", 4, 3)
	if err != nil || total != 10 || len(page) != 3 || page[0].ID != "m4" || page[2].Offset != 6 {
		t.Fatalf("Messages(4,3) = %v total %d err %v", page, total, err)
	}
	before, more, err := db.MessagesBefore("s1", "", 4)
	if err != nil || !more || len(before) != 4 || before[0].ID != "m6" || before[3].ID != "m9" {
		t.Fatalf("MessagesBefore('',4) = %v %v %v", before, more, err)
	}
	before, more, err = db.MessagesBefore("s1", "m2", 5)
	if err != nil || more || len(before) != 2 || before[0].ID != "m0" || before[1].ID != "m1" {
		t.Fatalf("MessagesBefore(m2,5) = %v %v %v", before, more, err)
	}
	if _, _, err := db.MessagesBefore("s1", "nope", 5); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown before id: %v", err)
	}
	if _, err := db.Message("s1", "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown message: %v", err)
	}
}

func TestBadOpRollsBackWholeCommit(t *testing.T) {
	db := openTest(t)
	ev := EventRecord{ID: idAt(5, 1), SessionID: "ghost", Type: "x.y", Data: []byte(`{}`)}
	err := db.Commit([]EventRecord{ev}, []Op{PutMessage(Message{ID: "m", SessionID: "ghost"})})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("message in absent session: %v", err)
	}
	if last, _ := db.LastEventID(); last != (ulid.ULID{}) {
		t.Fatalf("event of a failed commit is visible: %s", last)
	}
	// Non-increasing ids are refused.
	if err := db.Commit([]EventRecord{ev}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit([]EventRecord{ev}, nil); err == nil {
		t.Fatal("duplicate id accepted")
	}
}

func TestSessionsTurnsDelete(t *testing.T) {
	db := openTest(t)
	ops := []Op{
		PutSession(Session{ID: "a", CreatedAt: time.Unix(1, 0)}),
		PutSession(Session{ID: "b", CreatedAt: time.Unix(2, 0)}),
		PutTurn(Turn{ID: "t2", SessionID: "a", Status: TurnQueued, CreatedAt: time.Unix(5, 0)}),
		PutTurn(Turn{ID: "t1", SessionID: "a", Status: TurnRunning, CreatedAt: time.Unix(4, 0)}),
		PutTurn(Turn{ID: "t3", SessionID: "b", Status: TurnQueued, CreatedAt: time.Unix(3, 0)}),
		PutMessage(Message{ID: "m", SessionID: "a"}),
	}
	if err := db.Commit(nil, ops); err != nil {
		t.Fatal(err)
	}
	ss, _ := db.Sessions()
	if len(ss) != 2 || ss[0].ID != "b" {
		t.Fatalf("Sessions = %v", ss)
	}
	ts, _ := db.Turns("a")
	if len(ts) != 2 || ts[0].ID != "t1" {
		t.Fatalf("Turns = %v", ts)
	}
	q, _ := db.TurnsWithStatus(TurnQueued)
	if len(q) != 2 || q[0].ID != "t3" || q[1].ID != "t2" {
		t.Fatalf("TurnsWithStatus = %v", q)
	}
	ev := EventRecord{ID: idAt(7, 1), SessionID: "a", Type: "turn.started", Data: []byte(`{"k":1}`)}
	if err := db.Commit([]EventRecord{ev}, []Op{DeleteSession("a")}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Session("a"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted session: %v", err)
	}
	if ms, total, _ := db.Messages("a", 0, 0); len(ms) != 0 || total != 0 {
		t.Fatal("messages survived delete")
	}
	if ts, _ := db.Turns("a"); len(ts) != 0 {
		t.Fatal("turns survived delete")
	}
	var got []EventRecord
	_ = db.SessionEvents("a", ulid.ULID{}, func(r EventRecord) error { got = append(got, r); return nil })
	if len(got) != 1 || string(got[0].Data) != `{"k":1}` {
		t.Fatalf("events of deleted session = %v", got)
	}
}

func TestEventsAfterMergeAndPrune(t *testing.T) {
	db := openTest(t)
	base := uint64(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	var evs []EventRecord
	for i := range 30 {
		sid := []string{"a", "b", "c"}[i%3]
		r := EventRecord{ID: idAt(base+uint64(i)*60_000, 1), SessionID: sid, Type: "tool.called", Actor: "agent", Data: []byte(fmt.Sprintf(`{"i":%d}`, i))}
		if i >= 20 && i < 25 {
			r.Type, r.Streaming, r.Group = "text.delta", true, "msg1"
		}
		if i == 25 {
			r.Type, r.Streaming, r.Closes = "message.complete", true, "msg1"
		}
		evs = append(evs, r)
	}
	if err := db.Commit(evs, nil); err != nil {
		t.Fatal(err)
	}
	var got []int
	err := db.EventsAfter([]string{"a", "c", "a"}, evs[3].ID, func(r EventRecord) error {
		var i int
		fmt.Sscanf(string(r.Data), `{"i":%d}`, &i)
		got = append(got, i)
		if r.Actor != "agent" {
			t.Errorf("actor lost: %+v", r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 23, 24, 26, 27, 29}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("EventsAfter = %v, want %v", got, want)
	}
	// now = base+40min; event retention 30 min kills i<10; delta retention
	// 10 min: msg1 closed at minute 25 (15 min ago) → deltas 20..24 go too.
	now := time.UnixMilli(int64(base + 40*60_000))
	n, err := db.Prune(now, 30*time.Minute, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if n != 10+5 {
		t.Fatalf("pruned %d, want 15", n)
	}
	var left int
	_ = db.EventsAfter([]string{"a", "b", "c"}, ulid.ULID{}, func(EventRecord) error { left++; return nil })
	if left != 15 {
		t.Fatalf("%d events left, want 15", left)
	}
	if last, _ := db.LastEventID(); last != evs[29].ID {
		t.Fatal("LastEventID moved")
	}
	_ = db.View(func(tx *Tx) error {
		if tx.PrunedThrough() != evs[24].ID {
			t.Errorf("PrunedThrough = %s, want %s", tx.PrunedThrough(), evs[24].ID)
		}
		return nil
	})
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestCompactIfSparse: a file whose pages are mostly free after pruning is
// rewritten smaller, with every remaining record, the epoch and the crash
// marker intact; a dense file is left alone.
func TestCompactIfSparse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hub.db")
	db, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	epoch := db.Epoch()
	payload := []byte(`{"text":"` + strings.Repeat("x", 4000) + `"}`)
	base := time.Now().Add(-48 * time.Hour)
	for i := range 2000 {
		ev := EventRecord{ID: idAt(uint64(base.UnixMilli())+uint64(i), 1), SessionID: "s", Type: "text.delta", Data: payload}
		if err := db.Commit([]EventRecord{ev}, nil); err != nil {
			t.Fatal(err)
		}
	}
	keep := EventRecord{ID: idAt(uint64(time.Now().UnixMilli()), 1), SessionID: "s", Type: "turn.started", Data: []byte(`{}`)}
	if err := db.Commit([]EventRecord{keep}, nil); err != nil {
		t.Fatal(err)
	}
	if st, err := CompactIfSparse(path+".absent", 0.5, time.Second); err != nil || st.Compacted {
		t.Fatalf("absent file: %+v %v", st, err)
	}
	if _, err := db.Prune(time.Now(), time.Hour, time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := CloseUnclean(db); err != nil { // the crash marker must survive too
		t.Fatal(err)
	}
	st, err := CompactIfSparse(path, 0.5, time.Second)
	if err != nil || !st.Compacted || st.After >= st.Before/2 {
		t.Fatalf("compaction %+v %v", st, err)
	}
	again, err := CompactIfSparse(path, 0.5, time.Second)
	if err != nil || again.Compacted {
		t.Fatalf("a dense file was compacted again: %+v %v", again, err)
	}
	db, err = Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Epoch() != epoch || !db.RecoveredFromCrash() {
		t.Fatalf("after compaction: epoch %s (was %s), recovered %v", db.Epoch(), epoch, db.RecoveredFromCrash())
	}
	var got []ulid.ULID
	if err := db.SessionEvents("s", ulid.ULID{}, func(r EventRecord) error { got = append(got, r.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != keep.ID {
		t.Fatalf("events after compaction: %v", got)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
}
