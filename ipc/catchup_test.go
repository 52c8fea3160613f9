package ipc

import (
	"context"
	"fmt"
	"testing"

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
			if err := db.EventsAfter(sessions, first[0].ID, func(r store.EventRecord) error {
				if r.Type == TypeTextDelta {
					want = append(want, r.ID)
				}
				return nil
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

// Once live, a client that stops reading is still closed as too slow even
// after a catch-up.
func TestSlowAfterCatchUpStillCloses(t *testing.T) {
	b, _ := newTestBus(t, Options{ClientQueue: 16})
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
	// Live now: stop reading and keep committing until the writer closes it.
	for i := 0; s.Err() == nil; i++ {
		if i > 16+outBuffer+10 {
			t.Fatal("non-reading live client never closed")
		}
		if _, err := b.Commit(ctx, delta("s", "m", fmt.Sprint("l", i))); err != nil {
			t.Fatal(err)
		}
	}
	if subErrCode(s.Err()) != CodeClientTooSlow {
		t.Fatalf("err %v", s.Err())
	}
}
