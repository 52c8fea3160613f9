package ipc

import (
	"context"
	"fmt"
	"testing"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// A burst of far more than ClientQueue events while a replay is still being
// handed over overflows the live queue before the subscription is live: the
// queue is dropped, the pump catches up from the log, re-attaches live, and
// the client sees exactly the log — no close, no gap, no duplicate.
func TestBurstDuringReplayCatchesUpFromLog(t *testing.T) {
	for _, workers := range []bool{false, true} {
		t.Run(fmt.Sprintf("include_workers=%v", workers), func(t *testing.T) {
			const queue, replay, burst = 16, 3 * outBuffer, 3000
			b, db := newTestBus(t, Options{ClientQueue: queue})
			ctx := context.Background()
			mkSession(t, b, "s", "")
			mkSession(t, b, "w", "s")
			first, err := b.Commit(ctx, delta("s", "m", "start"))
			if err != nil {
				t.Fatal(err)
			}
			for i := range replay {
				if _, err := b.Commit(ctx, delta("s", "m", fmt.Sprint("r", i))); err != nil {
					t.Fatal(err)
				}
			}
			c := first[0].ID.String()
			filter := raw(`"preset:chat"`)
			sessions := []string{"s"}
			if workers {
				filter = raw(`{"include_worker_sessions":true}`)
				sessions = append(sessions, "w")
			}
			s := subscribe(t, b, SubscribeRequest{SessionID: "s", Since: &c, Filter: filter, Name: "replaying"})
			if s.Ack().ReplayEventCount != replay {
				t.Fatalf("replay count %d", s.Ack().ReplayEventCount)
			}
			// The client reads nothing yet: the pump is stuck handing over
			// the replay (more frames than the hand-off buffer), so the
			// burst, committed in small groups, overflows the queue.
			for i := 0; i < burst; i += 10 {
				ds := make([]Draft, 10)
				for j := range ds {
					sid := "s"
					if workers && (i+j)%3 == 0 {
						sid = "w"
					}
					ds[j] = delta(sid, "m", fmt.Sprint("b", i+j))
				}
				if _, err := b.Commit(ctx, ds...); err != nil {
					t.Fatal(err)
				}
			}
			s.queue.mu.Lock()
			behind, live := s.queue.behind, s.queue.live
			s.queue.mu.Unlock()
			if !behind || live {
				t.Fatalf("queue behind=%v live=%v after the burst; want behind, not live", behind, live)
			}
			var want []ulid.ULID
			if err := db.Store.View(func(v StoreView) error {
				return v.EventsAfter(sessions, first[0].ID, func(r store.EventRecord) error {
					if r.Type == TypeTextDelta {
						want = append(want, r.ID)
					}
					return nil
				})
			}); err != nil {
				t.Fatal(err)
			}
			if len(want) != replay+burst {
				t.Fatalf("log has %d events after the cursor", len(want))
			}
			for i, id := range want {
				if ev := nextEvent(t, s); ev.ID != id {
					t.Fatalf("event %d = %s, want %s", i, ev.ID, id)
				}
			}
			// Re-attached live: new events arrive in order, nothing else.
			tail, err := b.Commit(ctx, delta("s", "m", "live"))
			if err != nil {
				t.Fatal(err)
			}
			if ev := nextEvent(t, s); ev.ID != tail[0].ID {
				t.Fatalf("live event %s, want %s", ev.ID, tail[0].ID)
			}
			if err := s.Err(); err != nil {
				t.Fatalf("subscription ended: %v", err)
			}
			select {
			case <-s.queue.isLive:
			default:
				t.Fatal("subscription not live after delivering a live event")
			}
		})
	}
}

// Once live, a client that stops reading is still closed as too slow after
// a catch-up — by the stall timer, not by the overflow.
func TestSlowAfterCatchUpStillCloses(t *testing.T) {
	b, _ := newTestBus(t, Options{ClientQueue: 16, ClientStall: time.Second})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	first, _ := b.Commit(ctx, delta("s", "m", "start"))
	for i := range 2 * outBuffer {
		if _, err := b.Commit(ctx, delta("s", "m", fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	c := first[0].ID.String()
	s := subscribe(t, b, SubscribeRequest{SessionID: "s", Since: &c})
	for i := range 100 { // overflow while replaying
		if _, err := b.Commit(ctx, delta("s", "m", fmt.Sprint("b", i))); err != nil {
			t.Fatal(err)
		}
	}
	for range 2*outBuffer + 100 { // drain replay and catch-up
		nextEvent(t, s)
	}
	<-s.queue.isLive
	// Live now: stop reading; more than the queue and the hand-off buffer.
	for i := range 16 + outBuffer + 10 {
		if _, err := b.Commit(ctx, delta("s", "m", fmt.Sprint("l", i))); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("non-reading live client never closed")
	}
	if subErrCode(s.Err()) != CodeClientTooSlow {
		t.Fatalf("err %v", s.Err())
	}
}

// The slow-client rule: a live client that keeps reading, but slower than a
// burst of far more than ClientQueue events arrives, is never closed; it
// falls behind, catches up from the log and sees exactly the log, in order.
func TestReadingClientSurvivesBurst(t *testing.T) {
	const queue, burst = 16, 5000
	b, db := newTestBus(t, Options{ClientQueue: queue, ClientStall: 5 * time.Second})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	s := subscribe(t, b, SubscribeRequest{SessionID: "s", Filter: raw(`{"event_types":["text.delta"]}`)})
	<-s.queue.isLive
	done := make(chan error, 1)
	go func() {
		for i := range burst {
			if err := b.Emit(delta("s", "m", fmt.Sprint(i))); err != nil {
				done <- err
				return
			}
		}
		_, err := b.Commit(ctx, delta("s", "m", "end"))
		done <- err
	}()
	var got []ulid.ULID
	for range burst + 1 {
		got = append(got, nextEvent(t, s).ID)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := s.Err(); err != nil {
		t.Fatalf("reading client was closed: %v", err)
	}
	want := loggedDeltaIDs(t, db, "s")
	if len(want) != len(got) {
		t.Fatalf("got %d events, log has %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("event %d = %s, want %s", i, got[i], want[i])
		}
	}
}

// While the pump is parked, the publisher hands a live canonical
// subscription's frames straight to its consumer's buffer; a later overflow
// catches up from the log after the last frame handed over that way, so the
// client sees exactly the log: nothing twice, nothing missing.
func TestDirectHandOverThenCatchUp(t *testing.T) {
	b, db := newTestBus(t, Options{ClientQueue: 16, ClientStall: 10 * time.Second})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	s := subscribe(t, b, SubscribeRequest{SessionID: "s", Filter: raw(`{"event_types":["text.delta"]}`)})
	<-s.queue.isLive
	var got []ulid.ULID
	for i := range 10 { // one at a time: the pump is parked between them
		if _, err := b.Commit(ctx, delta("s", "m", fmt.Sprint("d", i))); err != nil {
			t.Fatal(err)
		}
		got = append(got, nextEvent(t, s).ID)
	}
	s.queue.mu.Lock()
	direct := s.queue.handed
	s.queue.mu.Unlock()
	if direct == "" {
		t.Fatal("no frame was handed over directly while the pump was parked")
	}
	for i := range 16 + 2*outBuffer { // not reading: fills the buffer, overflows the queue
		if _, err := b.Commit(ctx, delta("s", "m", fmt.Sprint("o", i))); err != nil {
			t.Fatal(err)
		}
	}
	for range 16 + 2*outBuffer {
		got = append(got, nextEvent(t, s).ID)
	}
	want := loggedDeltaIDs(t, db, "s")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("client saw %d events, log has %d (or order differs)", len(got), len(want))
	}
	if err := s.Err(); err != nil {
		t.Fatalf("reading client was closed: %v", err)
	}
}

// The queue's side of direct hand-over: frames offered while the pump is
// parked go to the consumer's buffer as far as it has room; once the queue
// then overflows, take reports behind with the cursor moved past the last
// frame handed over directly (the catch-up must not repeat it).
func TestSubQueueDirectHandOverMovesCursor(t *testing.T) {
	out := make(chan OutFrame, 2)
	var q subQueue
	q.init(1, out)
	q.markLive()
	q.park("")
	q.offer([]OutFrame{{EventID: "01"}, {EventID: "02"}, {EventID: "03"}}) // 01, 02 direct; 03 queued
	if len(out) != 2 {
		t.Fatalf("%d frames handed over directly, want 2", len(out))
	}
	q.offer([]OutFrame{{EventID: "04"}}) // the pump has not taken 03: overflow
	last := "00"
	batch, behind := q.take(nil, &last)
	if !behind || len(batch) != 0 {
		t.Fatalf("take = %v, behind %v; want behind", batch, behind)
	}
	if last != "02" {
		t.Fatalf("cursor after take = %q, want the last frame handed over directly (02)", last)
	}
	q.offer([]OutFrame{{EventID: "05"}}) // not parked any more: nothing goes direct
	if len(out) != 2 {
		t.Fatal("a frame went direct while the pump was not parked")
	}
}

// loggedDeltaIDs returns the ids of session's text deltas as stored.
func loggedDeltaIDs(t *testing.T, db StoreReader, session string) []ulid.ULID {
	t.Helper()
	var ids []ulid.ULID
	if err := db.SessionEvents(session, ulid.ULID{}, func(r store.EventRecord) error {
		if r.Type == TypeTextDelta {
			ids = append(ids, r.ID)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// A catch-up reads the log, which can be ahead of what has been published:
// it hands over events whose publication is still on its way. When those
// are offered after the pump parked, the direct hand-over skips them (a
// dashboard client once got the same 65 deltas twice this way).
func TestSubQueueDirectHandOverSkipsCaughtUpEvents(t *testing.T) {
	out := make(chan OutFrame, 8)
	var q subQueue
	q.init(100, out)
	q.markLive()
	q.park("05") // the catch-up handed over everything up to 05
	q.offer([]OutFrame{{EventID: "04"}, {EventID: "05"}, {EventID: "06"}})
	if len(out) != 1 {
		t.Fatalf("%d frames handed over, want only 06", len(out))
	}
	if f := <-out; f.EventID != "06" {
		t.Fatalf("handed over %s, want 06", f.EventID)
	}
}
