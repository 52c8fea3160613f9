package wailsipc_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/dialect"
	"agenthub/ipc/wailsipc"
)

func TestBridgeSnapshotThenLiveInOrder(t *testing.T) {
	e := newEnv(t, ipc.Options{})
	sid := e.session(t)
	if err := e.br.Hello("page-1"); err != nil {
		t.Fatal(err)
	}
	ack := e.pg.subscribe(e.br, sid, "preset:chat", nil, true)
	if ack["type"] != "subscribe_ack" || ack["subscription_id"] == "" || ack["snapshot"] != true {
		t.Fatalf("ack %v", ack)
	}
	e.pg.waitFor("snapshot", func() bool { return len(e.pg.frames) >= 1 })
	const n = 500
	for i := range n - 1 {
		if err := e.bus.Emit(deltaDraft(sid, i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.bus.Commit(context.Background(), deltaDraft(sid, n-1)); err != nil {
		t.Fatal(err)
	}
	want := logIDs(t, e.bus, sid, ipc.TypeTextDelta)
	e.pg.waitFor("all deltas", func() bool { return len(e.pg.events) >= n })
	e.pg.mu.Lock()
	defer e.pg.mu.Unlock()
	if !strings.Contains(string(e.pg.frames[0]), `"type":"snapshot"`) {
		t.Fatalf("first frame %s", e.pg.frames[0])
	}
	if strings.Join(e.pg.events, ",") != strings.Join(want, ",") {
		t.Fatalf("page got %d events, log has %d (order or content differs)", len(e.pg.events), len(want))
	}
	if e.pg.emits >= n {
		t.Fatalf("%d events took %d emits: not coalesced", n, e.pg.emits)
	}
	deltaFrames := 0
	for _, f := range e.pg.frames {
		if strings.Contains(string(f), `"type":"text.delta"`) {
			deltaFrames++
		}
	}
	if deltaFrames >= n {
		t.Fatalf("%d deltas crossed as %d frames: the bus's delta frames were not joined into runs", n, deltaFrames)
	}
}

// TestBridgeReloadMidStreamNoLossNoDuplicates reloads the page while events
// stream: the old page's emits are lost (as in WebKitGTK), DomReady and
// Hello drop its subscription, and the new page resubscribes with its
// cursor. Old + new pages together see every event once, in order.
func TestBridgeReloadMidStreamNoLossNoDuplicates(t *testing.T) {
	e := newEnv(t, ipc.Options{ReplayLimit: 50000}) // the rest of the stream may all be replayed
	sid := e.session(t)
	filter := `{"event_types":["text.delta"]}`
	if err := e.br.Hello("page-1"); err != nil {
		t.Fatal(err)
	}
	e.pg.subscribe(e.br, sid, filter, nil, false)

	// Enough deltas for many batches: runs of deltas are joined into one
	// frame per batch, so the reload must fall mid-stream, not after it.
	const n = 20000
	produced := make(chan error, 1)
	go func() {
		for i := range n - 1 {
			if err := e.bus.Emit(deltaDraft(sid, i)); err != nil {
				produced <- err
				return
			}
		}
		_, err := e.bus.Commit(context.Background(), deltaDraft(sid, n-1))
		produced <- err
	}()

	e.pg.waitFor("some events before the reload", func() bool { return len(e.pg.events) >= 200 })
	// The page goes away: its listeners are dead, emits are lost from here on.
	e.pg.mu.Lock()
	e.pg.down = true
	oldSub := e.pg.sub
	seen := append([]string(nil), e.pg.events...)
	e.pg.events = nil
	e.pg.mu.Unlock()
	cursor := seen[len(seen)-1]
	t.Logf("the page reloads after %d of %d events", len(seen), n)

	e.svc.DomReady()
	if err := e.br.Hello("page-2"); err != nil {
		t.Fatal(err)
	}
	if got := e.svc.Subscriptions(); got != 0 {
		t.Fatalf("%d subscriptions survive the reload", got)
	}
	e.pg.mu.Lock()
	e.pg.down = false
	e.pg.subs = map[string]bool{}
	e.pg.mu.Unlock()
	e.pg.subscribe(e.br, sid, filter, &cursor, false)
	e.svc.DomReady() // may fire after the new page's Hello: must keep its subscription
	if got := e.svc.Subscriptions(); got != 1 {
		t.Fatalf("%d subscriptions after the new page subscribed", got)
	}

	if err := <-produced; err != nil {
		t.Fatal(err)
	}
	want := logIDs(t, e.bus, sid, ipc.TypeTextDelta)
	// Like wails.ts, the page resumes from its cursor if the server closes
	// the subscription (a burst can overflow the live queue during replay).
	for {
		var resume string
		e.pg.waitFor("the rest after the reload", func() bool {
			n := len(e.pg.events)
			if n > 0 && e.pg.events[n-1] == want[len(want)-1] || n == 0 && cursor == want[len(want)-1] {
				return true
			}
			if len(e.pg.closed) > 0 {
				e.pg.closed = nil
				resume = cursor
				if n > 0 {
					resume = e.pg.events[n-1]
				}
				return true
			}
			return false
		})
		if resume == "" {
			break
		}

		t.Logf("server closed the subscription; resuming from %s", resume)
		e.pg.subscribe(e.br, sid, filter, &resume, false)
	}

	e.pg.mu.Lock()
	defer e.pg.mu.Unlock()
	if e.pg.subs[oldSub] {
		t.Fatal("the old page's subscription was emitted after Hello returned")
	}
	all := append(seen, e.pg.events...)
	if len(all) != len(want) {
		t.Fatalf("old page %d + new page %d events, log has %d", len(seen), len(e.pg.events), len(want))
	}
	for i := range want {
		if all[i] != want[i] {
			t.Fatalf("event %d is %s, want %s (loss, duplicate or reorder)", i, all[i], want[i])
		}
	}
}

// TestBridgeCoreEndedSubscriptionSilentAfterHello forces the interleaving
// behind the reload race: the core ends a subscription (here: the bus
// closes) and its pump is paused inside ended while the reloaded page says
// Hello. The old page's closed batch must be emitted before Hello returns,
// never after; with the table entry removed before the batch was queued, it
// came after.
func TestBridgeCoreEndedSubscriptionSilentAfterHello(t *testing.T) {
	e := newEnv(t, ipc.Options{})
	sid := e.session(t)
	reached, cont := make(chan struct{}), make(chan struct{})
	releasing := make(chan struct{}, 1)
	var once sync.Once
	wailsipc.SetTestHooks(e.svc,
		func() { once.Do(func() { close(reached); <-cont }) },
		func() {
			select {
			case releasing <- struct{}{}:
			default:
			}
		})
	if err := e.br.Hello("page-1"); err != nil {
		t.Fatal(err)
	}
	e.pg.subscribe(e.br, sid, "preset:full", nil, true)
	e.pg.mu.Lock()
	oldSub := e.pg.sub
	e.pg.mu.Unlock()

	go func() { _ = e.bus.Close() }()
	select {
	case <-reached:
	case <-time.After(guard):
		t.Fatal("the pump never reached ended")
	}
	helloDone := make(chan int, 1)
	go func() {
		if err := e.br.Hello("page-2"); err != nil {
			t.Error(err)
		}
		e.pg.mu.Lock()
		helloDone <- e.pg.emits
		e.pg.mu.Unlock()
	}()
	var emitsAtHello int
	select {
	case emitsAtHello = <-helloDone: // Hello did not wait for the paused pump
		close(cont)
	case <-releasing: // Hello found the subscription and waits for its pump
		close(cont)
		emitsAtHello = <-helloDone
	case <-time.After(guard):
		t.Fatal("Hello neither returned nor waited for the pump")
	}
	e.pg.waitFor("the old subscription's closed batch", func() bool { return e.pg.closedAt[oldSub] > 0 })
	e.pg.mu.Lock()
	at := e.pg.closedAt[oldSub]
	e.pg.mu.Unlock()
	if at > emitsAtHello {
		t.Fatalf("the old page's closed batch was emit #%d, after Hello returned at #%d", at, emitsAtHello)
	}
}

func TestBridgeDomReadyWithoutHelloDropsEverything(t *testing.T) {
	e := newEnv(t, ipc.Options{})
	sid := e.session(t)
	_ = e.br.Hello("p1")
	e.pg.subscribe(e.br, sid, "preset:full", nil, true)
	e.svc.DomReady() // after p1's Hello: p1 is the live page
	if e.svc.Subscriptions() != 1 {
		t.Fatal("DomReady dropped the page that said Hello")
	}
	e.svc.DomReady() // a reload by a page that never says Hello
	if e.svc.Subscriptions() != 0 {
		t.Fatal("stale subscription survived a reload")
	}
}

func TestBridgeSubscribeErrors(t *testing.T) {
	e := newEnv(t, ipc.Options{})
	sid := e.session(t)
	for _, c := range []struct {
		session, filter, since, code string
	}{
		{"01NOSUCHSESSION0000000000", "", "", ipc.CodeSessionNotFound},
		{sid, `{"event_types":["made.up.thing"]}`, "", ipc.CodeInvalidFilter},
		{sid, "preset:nope", "", ipc.CodeInvalidFilter},
		{sid, "", "not-a-ulid", ipc.CodeCursorExpired},
	} {
		var since *string
		if c.since != "" {
			since = &c.since
		}
		m := e.pg.subscribe(e.br, c.session, c.filter, since, since == nil)
		if m["type"] != "subscribe_error" || m["code"] != c.code {
			t.Errorf("%+v: got %v", c, m)
		}
	}
	if e.svc.Subscriptions() != 0 {
		t.Fatal("failed subscribes left subscriptions behind")
	}
}

func TestBridgeCallsAndUnsubscribe(t *testing.T) {
	e := newEnv(t, ipc.Options{})
	sid := e.session(t)
	_ = e.br.Hello("p1")
	ack := e.pg.subscribe(e.br, sid, "preset:chat", nil, false)

	// Submit and cancel go through the one RPC path (Request), as the page does.
	call := func(id, method, params string) (ok bool, payload json.RawMessage, raw string) {
		t.Helper()
		r, err := e.br.Request(`{"type":"request","requestId":"` + id + `","method":"` + method + `","params":` + params + `}`)
		if err != nil {
			t.Fatal(err)
		}
		var resp struct {
			OK      bool            `json:"ok"`
			Payload json.RawMessage `json:"payload"`
		}
		_ = json.Unmarshal(r.(json.RawMessage), &resp)
		return resp.OK, resp.Payload, string(r.(json.RawMessage))
	}
	ok, payload, raw := call("s1", "submitTurn", `{"agentId":"`+sid+`","content":"hello from the page"}`)
	var res ipc.SubmitResult
	if err := json.Unmarshal(payload, &res); !ok || err != nil || res.TurnID == "" {
		t.Fatalf("submit: %s", raw)
	}
	e.pg.waitFor("the scripted reply", func() bool {
		for _, f := range e.pg.frames {
			if strings.Contains(string(f), `"turn.completed"`) {
				return true
			}
		}
		return false
	})
	if ok, _, raw := call("s2", "submitTurn", `{"agentId":"`+sid+`","content":" "}`); ok {
		t.Fatalf("empty submission accepted: %s", raw)
	}
	if ok, _, raw := call("c1", "cancelTurn", `{"agentId":"`+sid+`","turnId":"`+res.TurnID+`"}`); !ok {
		t.Fatalf("cancel: %s", raw)
	}
	if c := e.hub.Cancels(); len(c) != 1 || c[0] != sid+"/"+res.TurnID+"/user_cancel" {
		t.Fatalf("cancels %v", c)
	}
	if ok, _, _ := call("c2", "cancelTurn", `{"agentId":"missing"}`); ok {
		t.Fatal("cancel on a missing session succeeded")
	}
	r, _ := e.br.Request(`{"type":"request","requestId":"r1","method":"getAgentMessages","params":{"agentId":"` + sid + `"}}`)
	var resp struct {
		RequestID string `json:"requestId"`
		OK        bool
		Payload   struct{ Total int }
	}
	if err := json.Unmarshal(r.(json.RawMessage), &resp); err != nil || !resp.OK || resp.RequestID != "r1" || resp.Payload.Total != 2 {
		t.Fatalf("request: %s", r)
	}
	r, _ = e.br.Request(`{"type":"request","requestId":"r2","method":"nope"}`)
	if !strings.Contains(string(r.(json.RawMessage)), `"METHOD_NOT_FOUND"`) {
		t.Fatalf("request: %s", r)
	}

	if err := e.br.Unsubscribe(ack["subscription_id"].(string)); err != nil {
		t.Fatal(err)
	}
	if err := e.br.Unsubscribe("unknown"); err != nil {
		t.Fatal(err)
	}
	if e.svc.Subscriptions() != 0 {
		t.Fatal("unsubscribe left the subscription")
	}
}

// TestBridgeSlowPageClosedWithClientTooSlow blocks the emitter (a page that
// takes nothing) for longer than ClientStall; the subscription is closed,
// the bus records a bus.handler_warning, and once the emitter runs again the
// page gets a closed batch naming client_too_slow.
func TestBridgeSlowPageClosedWithClientTooSlow(t *testing.T) {
	e := newEnv(t, ipc.Options{ClientQueue: 8, ClientStall: 100 * time.Millisecond})
	sid := e.session(t)
	_ = e.br.Hello("p1")
	e.pg.subscribe(e.br, sid, `{"event_types":["text.delta"]}`, nil, false)
	warn, err := e.bus.Subscribe(context.Background(), ipc.SubscribeRequest{SessionID: sid, Filter: json.RawMessage(`{"event_types":["bus.handler_warning"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer warn.Close()
	block := make(chan struct{})
	e.pg.mu.Lock()
	e.pg.block = block
	e.pg.mu.Unlock()
	// Enough events to fill the coalescer input, the pump and the hand-off
	// buffer (runs of deltas are joined: a batch holds thousands).
	for i := range 20000 {
		if _, err := e.bus.Commit(context.Background(), deltaDraft(sid, i)); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-warn.Frames():
	case <-time.After(guard):
		t.Fatal("no bus.handler_warning for the stalled page")
	}
	e.pg.mu.Lock()
	e.pg.block = nil
	e.pg.mu.Unlock()
	close(block)
	e.pg.waitFor("client_too_slow", func() bool { return len(e.pg.closed) == 1 })
	if e.pg.closed[0] != ipc.CodeClientTooSlow {
		t.Fatalf("closed with %q", e.pg.closed[0])
	}
	if e.svc.Subscriptions() != 0 {
		t.Fatal("overflowed subscription still registered")
	}
	// Every event delivered before the close is in order and gap-free.
	want := logIDs(t, e.bus, sid, ipc.TypeTextDelta)
	e.pg.mu.Lock()
	got := append([]string(nil), e.pg.events...)
	e.pg.mu.Unlock()
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d out of order", i)
		}
	}
}

// approveTool through the window's one RPC path reaches the hub as
// answered by the window.
func TestBridgeApproveTool(t *testing.T) {
	e := newEnv(t, ipc.Options{})
	sid := e.session(t)
	e.hub.Await(sid, "tu_1")
	r, err := e.br.Request(`{"type":"request","requestId":"a1","method":"approveTool","params":{"session_id":"` + sid + `","tool_use_id":"tu_1","decision":"always"}}`)
	if err != nil || !strings.Contains(string(r.(json.RawMessage)), `"ok":true`) {
		t.Fatalf("approveTool: %s %v", r, err)
	}
	if got := e.hub.Approvals(); len(got) != 1 || got[0].By != "window" || got[0].Decision != "always" {
		t.Fatalf("the hub got %+v", got)
	}
}

// The window may subscribe in a seed dialect too: the frames of its
// batches are then the dialect's (seed 002 here); an unknown dialect is a
// subscribe_error.
func TestBridgeDialect(t *testing.T) {
	e := newEnv(t, ipc.Options{})
	sid := e.session(t)
	_ = e.br.Hello("p1")
	if m := e.pg.subscribeIn(e.br, sid, "preset:chat", nil, false, "seed999"); m["type"] != "subscribe_error" || m["code"] != ipc.CodeInvalidFilter {
		t.Fatalf("unknown dialect: %v", m)
	}
	ack := e.pg.subscribeIn(e.br, sid, "preset:chat", nil, false, dialect.Seed002)
	if ack["type"] != "subscribe_ack" || ack["dialect"] != dialect.Seed002 {
		t.Fatalf("ack %v", ack)
	}
	r, err := e.br.Request(`{"type":"request","requestId":"s1","method":"submitTurn","params":{"agentId":"` + sid + `","content":"hi"}}`)
	if err != nil || !strings.Contains(string(r.(json.RawMessage)), `"ok":true`) {
		t.Fatalf("submit: %s %v", r, err)
	}
	e.pg.waitFor("a seed002 message.end", func() bool {
		for _, f := range e.pg.frames {
			if strings.Contains(string(f), `"type":"message.end"`) {
				return true
			}
		}
		return false
	})
	for _, f := range e.pg.frames {
		if strings.Contains(string(f), `"type":"event"`) {
			t.Fatalf("a canonical frame in a seed002 subscription: %s", f)
		}
	}
}
