package ipc

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"testing"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

var longTests = flag.Bool("long", false, "run the long variants of the property and crash tests")

func isLong() bool { return *longTests || os.Getenv("AGENTHUB_LONG") == "1" }

type pclient struct {
	sid       string
	filter    string
	f         Filter
	sub       *Subscription // nil while disconnected
	last      ulid.ULID     // newest event received (or the starting point)
	delivered int
}

// Property: random interleavings of appends, attaches, disconnects and
// reconnects; every client's sequence equals the filtered log after its
// starting point, in order, exactly once (seeded, reproducible).
func TestPropertyRandomInterleavings(t *testing.T) {
	seeds := 6
	if isLong() {
		seeds = 60
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { runProperty(t, seed) })
	}
}

func runProperty(t *testing.T, seed int64) {
	rng := rand.New(rand.NewSource(seed))
	b, db := newTestBus(t, Options{ClientQueue: 1 << 16})
	ctx := context.Background()
	sessions := []string{"a", "b"}
	for _, s := range sessions {
		mkSession(t, b, s, "")
	}
	types := []string{TypeTextDelta, TypeLLMCallStarted, TypeToolCalled, TypeRouteDecided}
	filters := []string{`"preset:chat"`, `"preset:full"`, `{"event_types":["tool.called"]}`, `{"actors":["tool"]}`}
	draft := func() Draft {
		actor := ActorAgent
		if rng.Intn(3) == 0 {
			actor = ActorTool
		}
		return Draft{Type: types[rng.Intn(len(types))], SessionID: sessions[rng.Intn(len(sessions))], Actor: actor,
			Payload: map[string]int{"n": rng.Int()}}
	}
	head := func() ulid.ULID { id, _ := db.LastEventID(); return id }
	// expected returns the filtered log after c.last.
	expected := func(c *pclient) []ulid.ULID {
		var out []ulid.ULID
		_ = db.SessionEvents(c.sid, c.last, func(r store.EventRecord) error {
			if c.f.Match(r.Type, r.Actor) {
				out = append(out, r.ID)
			}
			return nil
		})
		return out
	}
	read := func(c *pclient, n int) {
		want := expected(c)
		for i := 0; i < n && i < len(want); i++ {
			ev := nextEvent(t, c.sub)
			if ev.ID != want[i] {
				t.Fatalf("seed %d: client %s/%s got %s, want %s", seed, c.sid, c.filter, ev.ID, want[i])
			}
			c.last = ev.ID
			c.delivered++
		}
	}
	var clients []*pclient
	connect := func(c *pclient, snapshot bool) {
		req := SubscribeRequest{SessionID: c.sid, Filter: raw(c.filter), Snapshot: snapshot}
		if !snapshot && c.last != (ulid.ULID{}) {
			s := c.last.String()
			req.Since = &s
		}
		h := head()
		sub, err := b.Subscribe(ctx, req)
		if err != nil {
			t.Fatalf("seed %d: subscribe %+v: %v", seed, req, err)
		}
		c.sub = sub
		if snapshot {
			var snap snapFrame
			if err := json.Unmarshal(next(t, sub).Data, &snap); err != nil {
				t.Fatal(err)
			}
			c.last = ulid.MustParseStrict(*snap.SnapshotAtEventID)
		} else if req.Since == nil {
			c.last = h
		}
	}
	for step := 0; step < 250; step++ {
		switch r := rng.Intn(100); {
		case r < 35: // committed append
			ds := make([]Draft, 1+rng.Intn(4))
			for i := range ds {
				ds[i] = draft()
			}
			if _, err := b.Commit(ctx, ds...); err != nil {
				t.Fatal(err)
			}
		case r < 50: // emitted appends, made visible by a following commit
			for range 1 + rng.Intn(6) {
				if err := b.Emit(draft()); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := b.Commit(ctx, draft()); err != nil {
				t.Fatal(err)
			}
		case r < 60: // attach a new client
			c := &pclient{sid: sessions[rng.Intn(len(sessions))], filter: filters[rng.Intn(len(filters))]}
			c.f, _ = ParseFilter(raw(c.filter))
			if rng.Intn(2) == 0 {
				// start from a random existing event of its session
				var ids []ulid.ULID
				_ = db.SessionEvents(c.sid, ulid.ULID{}, func(r store.EventRecord) error { ids = append(ids, r.ID); return nil })
				c.last = ids[rng.Intn(len(ids))]
			}
			connect(c, rng.Intn(3) == 0)
			clients = append(clients, c)
		case r < 80: // a client reads some of what it is owed
			if len(clients) > 0 {
				c := clients[rng.Intn(len(clients))]
				if c.sub != nil {
					read(c, rng.Intn(20))
				}
			}
		case r < 90: // disconnect
			if len(clients) > 0 {
				c := clients[rng.Intn(len(clients))]
				if c.sub != nil {
					c.sub.Close()
					<-c.sub.Done()
					c.sub = nil
				}
			}
		default: // reconnect with the cursor
			for _, c := range clients {
				if c.sub == nil {
					connect(c, false)
					break
				}
			}
		}
	}
	// Final: every connected client gets exactly what it is owed, then the
	// sentinel and nothing in between.
	for _, s := range sessions {
		if _, err := b.Commit(ctx, Draft{Type: TypeToolCalled, SessionID: s, Actor: ActorTool}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range clients {
		if c.sub == nil {
			connect(c, false)
		}
		read(c, 1<<30)
		if left := expected(c); len(left) != 0 {
			t.Fatalf("seed %d: %d events not delivered", seed, len(left))
		}
		c.sub.Close()
	}
}
