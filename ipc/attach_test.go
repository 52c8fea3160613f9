package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

type snapFrame struct {
	Type    string `json:"type"`
	Session struct {
		ID                string  `json:"id"`
		SessionID         string  `json:"session_id"`
		CurrentTurnID     *string `json:"current_turn_id"`
		CurrentTurnStatus *string `json:"current_turn_status"`
		TurnCount         int64   `json:"turn_count"`
		CostSoFarUSD      float64 `json:"cost_so_far_usd"`
	} `json:"session"`
	Messages          []store.Message `json:"messages"`
	SnapshotAtEventID *string         `json:"snapshot_at_event_id"`
	Epoch             string          `json:"epoch"`
}

// §11.1.2 Snapshot consistency, with the in-flight partial message rebuilt.
func TestSnapshotConsistency(t *testing.T) {
	b, db := newTestBus(t, Options{ClientQueue: 1 << 14})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	sess, _ := db.Session("s")
	var ops []store.Op
	for i := range 60 {
		ops = append(ops, store.PutMessage(store.Message{ID: fmt.Sprintf("m%02d", i), SessionID: "s", Role: store.RoleUser, Status: store.StatusComplete}))
	}
	sess.TurnCount, sess.CostSoFarUSD, sess.CurrentTurnID = 3, 0.25, "t1"
	ops = append(ops, store.PutSession(sess))
	sig := "sig"
	if _, err := b.Commit(ctx,
		Draft{Type: TypeTurnStarted, SessionID: "s", TurnID: "t1", Actor: ActorUser, Ops: ops},
		Draft{Type: TypeMessageStart, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: MessageStart{MessageID: "a1", Role: "assistant", Model: "anthropic:x"}},
		Draft{Type: TypeThinkingDelta, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: ThinkingDelta{MessageID: "a1", Text: "hmm"}},
		Draft{Type: TypeThinkingDelta, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: ThinkingDelta{MessageID: "a1", Signature: &sig}},
		Draft{Type: TypeTextDelta, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: TextDelta{MessageID: "a1", ContentBlockIndex: 1, Text: "Hel"}},
		Draft{Type: TypeTextDelta, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: TextDelta{MessageID: "a1", ContentBlockIndex: 1, Text: "lo"}},
		Draft{Type: TypeToolUseStart, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: ToolUseStart{MessageID: "a1", ContentBlockIndex: 2, ToolUseID: "tu1", ToolName: "bash"}},
		Draft{Type: TypeToolUseInputDelta, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: ToolUseInputDelta{MessageID: "a1", ContentBlockIndex: 2, ToolUseID: "tu1", PartialJSON: `{"command":"l`}},
	); err != nil {
		t.Fatal(err)
	}
	// Concurrent appends while the snapshot is taken.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 4000 { // bounded: stays within the client queue
			select {
			case <-stop:
				return
			default:
				_ = b.Emit(delta("s", "a1", "."))
			}
		}
	}()
	sub := subscribe(t, b, SubscribeRequest{SessionID: "s", Snapshot: true, Filter: raw(`"preset:chat"`)})
	var snap snapFrame
	if err := json.Unmarshal(next(t, sub).Data, &snap); err != nil || snap.Type != "snapshot" {
		t.Fatalf("first frame not a snapshot: %v", err)
	}
	close(stop)
	wg.Wait()
	at := ulid.MustParseStrict(*snap.SnapshotAtEventID)
	if snap.Session.ID != "s" || snap.Session.TurnCount != 3 || snap.Session.CostSoFarUSD != 0.25 ||
		*snap.Session.CurrentTurnStatus != "in_flight" || *snap.Session.CurrentTurnID != "t1" || snap.Epoch != db.Store.Epoch() {
		t.Fatalf("session summary %+v", snap.Session)
	}
	if len(snap.Messages) != 51 || snap.Messages[0].ID != "m10" || snap.Messages[49].ID != "m59" {
		t.Fatalf("messages: %d, first %s", len(snap.Messages), snap.Messages[0].ID)
	}
	p := snap.Messages[50]
	if p.ID != "a1" || p.Status != StatusStreaming || p.Offset != 60 || p.Model != "anthropic:x" || len(p.Content) != 3 {
		t.Fatalf("partial %+v", p)
	}
	// Deltas up to snapshot_at are in the partial text; later ones follow live.
	var dots int
	_ = db.Store.View(func(tx StoreView) error {
		return tx.EventsAfter([]string{"s"}, ulid.ULID{}, func(r store.EventRecord) error {
			if r.Type == TypeTextDelta && r.ID.Compare(at) <= 0 && json.Valid(r.Data) && string(r.Data[len(r.Data)-6:]) == `":"."}}` {
				dots++
			}
			return nil
		})
	})
	if want := "Hello" + strings.Repeat(".", dots); p.Content[1].Text != want || p.Content[0].Thinking != "hmm" || p.Content[0].Signature != "sig" || p.Content[2].Name != "bash" {
		t.Fatalf("partial content %+v, want text %q", p.Content, want)
	}
	if _, err := b.Commit(ctx, delta("s", "a1", "!")); err != nil {
		t.Fatal(err)
	}
	for {
		ev := nextEvent(t, sub)
		if ev.ID.Compare(at) <= 0 {
			t.Fatalf("event %s not after snapshot_at %s", ev.ID, at)
		}
		if string(ev.Payload) == `{"message_id":"a1","content_block_index":0,"text":"!"}` {
			break
		}
	}
}

// §11.1.3 Reconnect with replay: the replay is exactly the gap, then live.
func TestReconnectWithReplay(t *testing.T) {
	b, _ := newTestBus(t, Options{})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	sub := subscribe(t, b, SubscribeRequest{SessionID: "s", Filter: raw(`"preset:chat"`)})
	var all []Event
	for i := range 50 {
		evs, err := b.Commit(ctx, delta("s", "m", fmt.Sprint(i)))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, evs...)
	}
	for i := range 20 {
		if ev := nextEvent(t, sub); ev.ID != all[i].ID {
			t.Fatalf("live %d: %s want %s", i, ev.ID, all[i].ID)
		}
	}
	sub.Close()
	<-sub.Done()
	cursor := all[19].ID.String()
	sub2 := subscribe(t, b, SubscribeRequest{SessionID: "s", Filter: raw(`"preset:chat"`), Since: &cursor})
	if sub2.Ack().ReplayEventCount != 30 || *sub2.Ack().Since != cursor {
		t.Fatalf("ack %+v", sub2.Ack())
	}
	evs, _ := b.Commit(ctx, delta("s", "m", "live"))
	all = append(all, evs...)
	for i := 20; i < 51; i++ {
		if ev := nextEvent(t, sub2); ev.ID != all[i].ID {
			t.Fatalf("replay %d: %s want %s", i, ev.ID, all[i].ID)
		}
	}
}

// §11.1.4 Replay too large (15,000-event gap).
func TestReplayTooLarge(t *testing.T) {
	b, _ := newTestBus(t, Options{})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	first, _ := b.Commit(ctx, delta("s", "m", "0"))
	commitDeltas(t, b, 15, 1000, "x")
	c := first[0].ID.String()
	_, err := b.Subscribe(ctx, SubscribeRequest{SessionID: "s", Since: &c})
	if subErrCode(err) != CodeReplayTooLarge {
		t.Fatalf("got %v", err)
	}
	// A filter that matches few events makes the same gap replayable.
	s := subscribe(t, b, SubscribeRequest{SessionID: "s", Since: &c, Filter: raw(`{"event_types":["turn.started"]}`)})
	if s.Ack().ReplayEventCount != 0 {
		t.Fatal(s.Ack())
	}
}

// §11.1.5 Cursor expired: pruned by retention, unknown-but-valid, malformed,
// and from before a crash (epoch change).
func TestCursorExpired(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hub.db")
	db, err := store.Open(path, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	clock := time.Now().Add(-3 * time.Hour)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	b, err := NewBus(BoltStore(db), Options{Now: now, PruneInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mkSession(t, b, "s", "")
	old, _ := b.Commit(ctx, Draft{Type: TypeRouteDecided, SessionID: "s", Actor: ActorAgent})
	mu.Lock()
	clock = time.Now()
	mu.Unlock()
	fresh, _ := b.Commit(ctx, Draft{Type: TypeRouteDecided, SessionID: "s", Actor: ActorAgent})
	if n, err := db.Prune(time.Now(), time.Hour, time.Hour); err != nil || n != 2 {
		t.Fatalf("prune: %d %v", n, err)
	}
	expect := func(cursor, why string) {
		t.Helper()
		if _, err := b.Subscribe(ctx, SubscribeRequest{SessionID: "s", Since: &cursor}); subErrCode(err) != CodeCursorExpired {
			t.Fatalf("%s cursor: got %v", why, err)
		}
	}
	expect(old[0].ID.String(), "pruned")
	expect(ulid.Make().String(), "unknown")
	expect("not-a-ulid", "malformed")
	expect("", "empty")
	c := fresh[0].ID.String()
	subscribe(t, b, SubscribeRequest{SessionID: "s", Since: &c}).Close()
	// Crash: the bus stops without a clean store Close.
	_ = b.Close()
	db2 := reopenAfterCrash(t, db, path)
	b2, err := NewBus(BoltStore(db2), Options{PruneInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b2.Close(); _ = db2.Close() })
	// A crash keeps every committed event and the epoch: the pre-crash
	// cursor resumes (nothing after it here).
	resumed := subscribe(t, b2, SubscribeRequest{SessionID: "s", Since: &c})
	if resumed.Ack().Epoch != db.Epoch() || resumed.Ack().ReplayEventCount != 0 {
		t.Fatalf("pre-crash cursor: epoch %s (was %s), replay %d", resumed.Ack().Epoch, db.Epoch(), resumed.Ack().ReplayEventCount)
	}
	resumed.Close()
}

// §11.1.6 Multi-client identical streams.
func TestMultiClientIdenticalStreams(t *testing.T) {
	b, _ := newTestBus(t, Options{})
	mkSession(t, b, "s", "")
	subs := []*Subscription{
		subscribe(t, b, SubscribeRequest{SessionID: "s", Filter: raw(`"preset:chat"`)}),
		subscribe(t, b, SubscribeRequest{SessionID: "s", Filter: raw(`"preset:chat"`)}),
	}
	go func() {
		for i := range 300 {
			_ = b.Emit(delta("s", "m", fmt.Sprint(i)))
			if i%50 == 0 {
				_ = b.Emit(Draft{Type: TypeLLMCallStarted, SessionID: "s", Actor: ActorAgent}) // filtered out
			}
		}
	}()
	var streams [2][]string
	var wg sync.WaitGroup
	for i, s := range subs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 300 {
				f, err := receive(s)
				if err != nil {
					t.Error(err) // t.Fatal must not be called from this goroutine
					return
				}
				streams[i] = append(streams[i], string(f.Data))
			}
		}()
	}
	wg.Wait()
	if fmt.Sprint(streams[0]) != fmt.Sprint(streams[1]) {
		t.Fatal("streams differ")
	}
}

// §11.1.11 Slow client closure, read as "no progress for ClientStall": the
// client that stops reading alone is closed with client_too_slow, a
// bus.handler_warning is emitted, others unaffected.
func TestSlowClientClosure(t *testing.T) {
	b, _ := newTestBus(t, Options{ClientQueue: 16, ClientStall: 50 * time.Millisecond})
	mkSession(t, b, "s", "")
	slow := subscribe(t, b, SubscribeRequest{SessionID: "s", Name: "frozen-tab"})
	fast := subscribe(t, b, SubscribeRequest{SessionID: "s", Name: "tui"})
	// The fast client reads each event before the next is committed; the
	// slow one never reads, so its pump blocks on a full hand-off buffer
	// and the stall timer closes it.
	var evs []Event
	for i := range outBuffer + 40 {
		if _, err := b.Commit(context.Background(), delta("s", "m", fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, nextEvent(t, fast))
	}
	select {
	case <-slow.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("slow client never closed")
	}
	if subErrCode(slow.Err()) != CodeClientTooSlow {
		t.Fatalf("slow client err %v", slow.Err())
	}
	// The warning may arrive among the deltas (the slow client can be
	// closed while they are still being committed): read until both the
	// warning and every delta are in.
	var warning *Event
	var deltas []Event
	for _, ev := range evs {
		if ev.Type == TypeBusHandlerWarning {
			warning = &ev
		} else {
			deltas = append(deltas, ev)
		}
	}
	for warning == nil || len(deltas) < outBuffer+40 {
		ev := nextEvent(t, fast)
		if ev.Type == TypeBusHandlerWarning {
			warning = &ev
		} else {
			deltas = append(deltas, ev)
		}
	}
	var w HandlerWarning
	_ = json.Unmarshal(warning.Payload, &w)
	if w.SubscriptionName != "frozen-tab" || w.Code != CodeClientTooSlow || warning.Actor != ActorSystem {
		t.Fatalf("warning %+v", w)
	}
	for i, ev := range deltas {
		var p TextDelta
		_ = json.Unmarshal(ev.Payload, &p)
		if p.Text != fmt.Sprint(i) {
			t.Fatalf("fast client event %d = %q", i, p.Text)
		}
	}
	var reason map[string]string
	if err := json.Unmarshal(slow.Err().(*SubscribeError).Frame(), &reason); err != nil || reason["code"] != CodeClientTooSlow {
		t.Fatalf("close reason %v %v", reason, err)
	}
}

// §11.1.14 Forward-compatible unknown type: carried intact through replay
// and live for a filter without an event_types list.
func TestUnknownTypeCarriedIntact(t *testing.T) {
	b, _ := newTestBus(t, Options{})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	start, _ := b.Commit(ctx, Draft{Type: TypeRouteDecided, SessionID: "s", Actor: ActorAgent})
	payload := `{"nested":{"a":[1,2,{"b":"ü\u2028"}]},"n":1.5e300}`
	evs, err := b.Commit(ctx, Draft{Type: "future.thing", SessionID: "s", Actor: ActorSystem, Payload: json.RawMessage(payload)})
	if err != nil {
		t.Fatal(err)
	}
	c := start[0].ID.String()
	s := subscribe(t, b, SubscribeRequest{SessionID: "s", Since: &c})
	f := next(t, s)
	want := `{"type":"event","event":{"id":"` + evs[0].ID.String() + `","type":"future.thing","session_id":"s","turn_id":null,"ts":"` +
		evs[0].TS.UTC().Format(TimeFormat) + `","actor":"system","payload":` + payload + `}}`
	if string(f.Data) != want {
		t.Fatalf("replayed frame\n got %s\nwant %s", f.Data, want)
	}
	// preset:full only lists known types: the unknown one is not sent.
	full := subscribe(t, b, SubscribeRequest{SessionID: "s", Since: &c, Filter: raw(`"preset:full"`)})
	if full.Ack().ReplayEventCount != 0 {
		t.Fatal("preset:full matched an unknown type")
	}
}

// §11.1.12 Worker-hidden vs worker-included, live and replayed.
func TestWorkerVisibility(t *testing.T) {
	b, _ := newTestBus(t, Options{})
	ctx := context.Background()
	mkSession(t, b, "p", "")
	start, _ := b.Commit(ctx, Draft{Type: TypeTurnStarted, SessionID: "p", Actor: ActorUser})
	hidden := subscribe(t, b, SubscribeRequest{SessionID: "p"})
	shown := subscribe(t, b, SubscribeRequest{SessionID: "p", Filter: raw(`{"include_worker_sessions":true}`)})
	mkSession(t, b, "w1", "p")
	mkSession(t, b, "w2", "w1") // a worker's worker
	mkSession(t, b, "other", "")
	for _, sid := range []string{"w1", "w2", "other", "p"} {
		if _, err := b.Commit(ctx, delta(sid, "m", sid)); err != nil {
			t.Fatal(err)
		}
	}
	sessionsOf := func(s *Subscription, n int) []string {
		var out []string
		for range n {
			out = append(out, nextEvent(t, s).SessionID)
		}
		return out
	}
	if got := fmt.Sprint(sessionsOf(hidden, 1)); got != "[p]" {
		t.Fatalf("hidden got %s", got)
	}
	if got := fmt.Sprint(sessionsOf(shown, 5)); got != "[w1 w2 w1 w2 p]" {
		t.Fatalf("shown got %s", got)
	}
	c := start[0].ID.String()
	re := subscribe(t, b, SubscribeRequest{SessionID: "p", Since: &c, Filter: raw(`{"include_worker_sessions":true}`)})
	if got := fmt.Sprint(sessionsOf(re, 5)); got != "[w1 w2 w1 w2 p]" {
		t.Fatalf("replay got %s", got)
	}
	reHidden := subscribe(t, b, SubscribeRequest{SessionID: "p", Since: &c})
	if reHidden.Ack().ReplayEventCount != 1 {
		t.Fatalf("hidden replay count %d", reHidden.Ack().ReplayEventCount)
	}
}

// §11.1.16 The snapshot/replay seam under concurrent appends: each client's
// stream is exactly the log after its starting point. Every client reads
// as it goes, as a real one does (one that did not read for --client-stall
// would rightly be closed: reading the clients one after another, the last
// ones sat unread for over 5 s under -race at load 16).
func TestSeamUnderConcurrentAppends(t *testing.T) {
	b, db := newTestBus(t, Options{ClientQueue: 100000})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	first, _ := b.Commit(ctx, delta("s", "m", "start"))
	const total = 1000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range total {
			_ = b.Emit(delta("s", "m", fmt.Sprint(i)))
		}
	}()
	type client struct {
		after ulid.ULID
		got   chan []Event // what it read, up to the "end" delta; nil on error
		err   chan error
	}
	read := func(sub *Subscription, c client) {
		var evs []Event
		for {
			f, err := receive(sub)
			if err != nil {
				c.err <- fmt.Errorf("client after %s, %d events read: %w", c.after, len(evs), err)
				return
			}
			var fr struct {
				Event Event `json:"event"`
			}
			if err := json.Unmarshal(f.Data, &fr); err != nil {
				c.err <- err
				return
			}
			evs = append(evs, fr.Event)
			if bytes.Contains(fr.Event.Payload, []byte(`"text":"end"`)) {
				c.got <- evs
				return
			}
		}
	}
	var clients []client
	for i := 0; i < 10; i++ {
		c := client{got: make(chan []Event, 1), err: make(chan error, 1)}
		var sub *Subscription
		if i%2 == 0 {
			since := first[0].ID.String()
			sub, c.after = subscribe(t, b, SubscribeRequest{SessionID: "s", Since: &since}), first[0].ID
		} else {
			sub = subscribe(t, b, SubscribeRequest{SessionID: "s", Snapshot: true})
			var snap snapFrame
			_ = json.Unmarshal(next(t, sub).Data, &snap)
			c.after = ulid.MustParseStrict(*snap.SnapshotAtEventID)
		}
		go read(sub, c)
		clients = append(clients, c)
	}
	<-done
	last, _ := b.Commit(ctx, delta("s", "m", "end"))
	for _, c := range clients {
		var got []Event
		select {
		case got = <-c.got:
		case err := <-c.err:
			t.Fatal(err)
		}
		var want []ulid.ULID
		_ = db.SessionEvents("s", c.after, func(r store.EventRecord) error { want = append(want, r.ID); return nil })
		if len(got) != len(want) {
			t.Fatalf("client after %s: %d events, the log has %d after it", c.after, len(got), len(want))
		}
		for i, id := range want {
			if got[i].ID != id {
				t.Fatalf("client after %s: event %d = %s, want %s", c.after, i, got[i].ID, id)
			}
		}
		if want[len(want)-1] != last[0].ID {
			t.Fatal("log does not end with the last commit")
		}
	}
}

// A streaming event whose payload does not decode as its type is skipped
// (and logged) when the in-flight message is rebuilt: the snapshot still
// comes, with the rest of the message.
func TestSnapshotSkipsUnreadableDelta(t *testing.T) {
	b, db := newTestBus(t, Options{})
	ctx := context.Background()
	mkSession(t, b, "s", "")
	sess, _ := db.Session("s")
	sess.CurrentTurnID, sess.StreamingMessageID = "t1", "a1"
	if _, err := b.Commit(ctx,
		Draft{Type: TypeTurnStarted, SessionID: "s", TurnID: "t1", Actor: ActorUser, Ops: []store.Op{store.PutSession(sess)}},
		Draft{Type: TypeMessageStart, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: MessageStart{MessageID: "a1", Role: "assistant"}},
		Draft{Type: TypeTextDelta, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: TextDelta{MessageID: "a1", Text: "Hel"}},
		Draft{Type: TypeTextDelta, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: json.RawMessage(`{"message_id":"a1","text":5}`)},
		Draft{Type: TypeTextDelta, SessionID: "s", TurnID: "t1", Actor: ActorAgent, Payload: TextDelta{MessageID: "a1", Text: "lo"}},
	); err != nil {
		t.Fatal(err)
	}
	sub := subscribe(t, b, SubscribeRequest{SessionID: "s", Snapshot: true})
	var snap snapFrame
	if err := json.Unmarshal(next(t, sub).Data, &snap); err != nil || snap.Type != "snapshot" {
		t.Fatalf("no snapshot: %v", err)
	}
	last := snap.Messages[len(snap.Messages)-1]
	if last.ID != "a1" || len(last.Content) != 1 || last.Content[0].Text != "Hello" {
		t.Fatalf("partial message %+v, want a1 with the readable text", last)
	}
}
