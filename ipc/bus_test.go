package ipc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// Subscribers see an event only after its commit: every event a subscriber
// receives is already readable from bbolt.
func TestPublishOnlyAfterCommit(t *testing.T) {
	b, db := newTestBus(t, Options{})
	mkSession(t, b, "s", "")
	sub := subscribe(t, b, SubscribeRequest{SessionID: "s", Filter: raw(`"preset:full"`)})
	const writers, per = 4, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				if err := b.Emit(delta("s", "m", fmt.Sprintf("%d-%d", w, i))); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	var prev ulid.ULID
	lastPerWriter := map[string]int{}
	for range writers * per {
		ev := nextEvent(t, sub)
		if ev.ID.Compare(prev) <= 0 {
			t.Fatalf("ids not increasing: %s after %s", ev.ID, prev)
		}
		prev = ev.ID
		if err := db.Store.View(func(tx StoreView) error { _, err := tx.Event(ev.ID); return err }); err != nil {
			t.Fatalf("event %s delivered before commit: %v", ev.ID, err)
		}
		var p TextDelta
		_ = json.Unmarshal(ev.Payload, &p)
		var w, i int
		fmt.Sscanf(p.Text, "%d-%d", &w, &i)
		k := fmt.Sprint(w)
		if last, ok := lastPerWriter[k]; ok && i != last+1 {
			t.Fatalf("writer %d: %d after %d (Emit order lost)", w, i, last)
		}
		lastPerWriter[k] = i
	}
	wg.Wait()
}

func TestIDsIncreaseAcrossClockSteps(t *testing.T) {
	var mu sync.Mutex
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	steps := []time.Duration{0, -time.Hour, 0, 5 * time.Millisecond, -time.Second, 0}
	i := 0
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(steps[i%len(steps)])
		i++
		return clock
	}
	b, _ := newTestBus(t, Options{Now: now})
	mkSession(t, b, "s", "")
	var prev ulid.ULID
	for range 50 {
		evs, err := b.Commit(context.Background(), delta("s", "m", "x"), delta("s", "m", "y"))
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			if ev.ID.Compare(prev) <= 0 {
				t.Fatalf("id %s not after %s", ev.ID, prev)
			}
			prev = ev.ID
		}
	}
}

func TestIDsSeededFromDisk(t *testing.T) {
	b, db := newTestBus(t, Options{})
	mkSession(t, b, "s", "")
	evs, _ := b.Commit(context.Background(), delta("s", "m", "x"))
	_ = b.Close()
	// A clock far in the past must still produce larger ids.
	b2, err := NewBus(db.Store, Options{PruneInterval: -1, Now: func() time.Time { return time.Unix(1, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	evs2, err := b2.Commit(context.Background(), delta("s", "m", "y"))
	if err != nil {
		t.Fatal(err)
	}
	if evs2[0].ID.Compare(evs[0].ID) <= 0 {
		t.Fatalf("id after reopen %s not > %s", evs2[0].ID, evs[0].ID)
	}
}

func TestBadDraftsRejectedAndIsolated(t *testing.T) {
	b, _ := newTestBus(t, Options{})
	mkSession(t, b, "s", "")
	for _, d := range []Draft{
		{SessionID: "s", Actor: ActorAgent},
		{Type: TypeTextDelta, Actor: ActorAgent},
		{Type: TypeTextDelta, SessionID: "s", Actor: "robot"},
		{Type: TypeTextDelta, SessionID: "s", Actor: ActorAgent, Payload: json.RawMessage(`{bad`)},
		{Type: TypeTextDelta, SessionID: "s", Actor: ActorAgent, Payload: func() {}},
	} {
		if err := b.Emit(d); err == nil {
			t.Errorf("draft %+v accepted", d)
		}
	}
	// A draft whose op fails does not sink the others in its batch.
	bad := Draft{Type: TypeToolCalled, SessionID: "s", Actor: ActorAgent,
		Ops: []store.Op{store.PutMessage(store.Message{ID: "m", SessionID: "ghost"})}}
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := delta("s", "m", "ok")
			if i == 7 {
				d = bad
			}
			_, errs[i] = b.Commit(context.Background(), d)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if (err != nil) != (i == 7) {
			t.Errorf("commit %d: %v", i, err)
		}
	}
}

func TestSubscribeErrors(t *testing.T) {
	b, _ := newTestBus(t, Options{})
	mkSession(t, b, "s", "")
	cases := []struct {
		req  SubscribeRequest
		code string
		want string
	}{
		{SubscribeRequest{SessionID: "nope"}, CodeSessionNotFound, "nope"},
		{SubscribeRequest{SessionID: "s", Filter: raw(`{"event_types":["text.delta","made.up.thing"]}`)}, CodeInvalidFilter, "made.up.thing"},
		{SubscribeRequest{SessionID: "s", Filter: raw(`{"actors":["robot"]}`)}, CodeInvalidFilter, "robot"},
		{SubscribeRequest{SessionID: "s", Filter: raw(`"preset:everything"`)}, CodeInvalidFilter, "preset:everything"},
		{SubscribeRequest{SessionID: "s", Filter: raw(`{"event_types":[1]}`)}, CodeInvalidFilter, "1"},
		{SubscribeRequest{SessionID: "s", Filter: raw(`42`)}, CodeInvalidFilter, "42"},
	}
	for _, c := range cases {
		_, err := b.Subscribe(context.Background(), c.req)
		if subErrCode(err) != c.code || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %s naming %q", c.req, err, c.code, c.want)
		}
	}
	// Streaming and bus types are both valid filter entries.
	s := subscribe(t, b, SubscribeRequest{SessionID: "s", Filter: raw(`{"event_types":["text.delta","route.decided","text.delta"],"actors":["agent"]}`)})
	ack := s.Ack()
	if fmt.Sprint(ack.ResolvedFilter.EventTypes) != "[route.decided text.delta]" || fmt.Sprint(ack.ResolvedFilter.Actors) != "[agent]" {
		t.Fatalf("resolved filter %+v", ack.ResolvedFilter)
	}
	// Deleted sessions are not found.
	if _, err := b.Commit(context.Background(), Draft{Type: TypeSessionUpdated, SessionID: "s", Actor: ActorSystem,
		Payload: SessionChanged{Deleted: true}, Ops: []store.Op{store.DeleteSession("s")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Subscribe(context.Background(), SubscribeRequest{SessionID: "s"}); subErrCode(err) != CodeSessionNotFound {
		t.Fatalf("deleted session: %v", err)
	}
}

func TestPresetsResolve(t *testing.T) {
	full, err := ParseFilter(raw(`"preset:full"`))
	if err != nil || len(full.EventTypes) != len(BusTypes)+len(StreamingTypes) {
		t.Fatalf("preset:full = %v, %v", full.EventTypes, err)
	}
	chat, _ := ParseFilter(raw(`"preset:chat"`))
	for _, want := range []string{TypeTextDelta, TypeThinkingDelta, TypeMessageStart, TypeMessageComplete, TypeToolUseStart,
		TypeToolOutputDelta, TypeToolCalled, TypeToolFailed, TypeRouteDecided, TypeTurnCancelled, TypeLLMCallFailed,
		TypeDelegateStarted, TypeCompactionComplete} {
		if !chat.Match(want, ActorAgent) {
			t.Errorf("preset:chat lacks %s", want)
		}
	}
	if chat.Match(TypeLLMCallStarted, ActorAgent) || chat.Match(TypeBusHandlerWarning, ActorSystem) {
		t.Error("preset:chat includes llm.call_started or bus.handler_warning")
	}
	b, _ := json.Marshal(SubscribeAckFrame{Type: "subscribe_ack", ResolvedFilter: chat})
	if !strings.Contains(string(b), `"event_types":["turn.started"`) || !strings.Contains(string(b), `"actors":null`) {
		t.Fatalf("ack JSON %s", b)
	}
}

// The broker indexes subscriptions by session: an event reaches the
// subscribers of its session and those including worker sessions above
// it, never an idle subscriber of another session; closing a subscription
// leaves no trace in the index.
func TestBrokerIndexBySession(t *testing.T) {
	b, _ := newTestBus(t, Options{})
	ctx := context.Background()
	mkSession(t, b, "a", "")
	mkSession(t, b, "other", "")
	mkSession(t, b, "w", "a")
	plain := subscribe(t, b, SubscribeRequest{SessionID: "a"})
	idle := subscribe(t, b, SubscribeRequest{SessionID: "other"})
	tree := subscribe(t, b, SubscribeRequest{SessionID: "a", Filter: raw(`{"include_worker_sessions":true}`)})
	if _, err := b.Commit(ctx, delta("w", "m", "worker"), delta("a", "m", "main")); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, tree); ev.SessionID != "w" {
		t.Fatalf("tree subscriber first got %s's event", ev.SessionID)
	}
	if ev := nextEvent(t, tree); ev.SessionID != "a" {
		t.Fatalf("tree subscriber then got %s's event", ev.SessionID)
	}
	if ev := nextEvent(t, plain); ev.SessionID != "a" {
		t.Fatalf("plain subscriber got %s's event", ev.SessionID)
	}
	b.broker.mu.Lock()
	n := len(idle.batch)
	b.broker.mu.Unlock()
	idle.queue.mu.Lock()
	n += len(idle.queue.pending)
	idle.queue.mu.Unlock()
	if n != 0 || len(idle.out) != 0 {
		t.Fatalf("the idle subscriber of another session was handed %d frames", n+len(idle.out))
	}
	for _, s := range []*Subscription{plain, idle, tree} {
		s.Close()
		<-s.Done()
	}
	b.broker.mu.Lock()
	defer b.broker.mu.Unlock()
	if len(b.broker.subs) != 0 || len(b.broker.bySession) != 0 || len(b.broker.trees) != 0 {
		t.Fatalf("index not empty after closing: %d subs, %d sessions, %d trees", len(b.broker.subs), len(b.broker.bySession), len(b.broker.trees))
	}
}
