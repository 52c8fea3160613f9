package wailsipc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/dialect"
	"agenthub/ipc/rpc/hubtest"
	"agenthub/ipc/wailsipc"
	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// The fake page and the bus under the bridge tests (bridge_test.go).

// guard bounds how long a test waits for something to arrive; it detects
// failures and is never used to synchronise.
const guard = 20 * time.Second

// page is the fake webview at the Emitter edge: it decodes every batch as the
// page's JS would, checks the size bounds, and delivers frames of the
// subscription it is currently listening to. While down (reloading), emits
// are lost, as they are in WebKitGTK.
type page struct {
	t      *testing.T
	mu     sync.Mutex
	down   bool
	sub    string
	early  []wailsipc.Batch // batches of unknown subscriptions while subscribing
	frames []json.RawMessage
	events []string // event ids delivered, in order
	closed []string // error codes of closed batches
	subs   map[string]bool
	chunks strings.Builder
	notify chan struct{}
	emits  int
	block  chan struct{} // when non-nil, Emit waits on it
	// closedAt is the emit count at which each subscription's closed batch
	// arrived (recorded even while down or listening elsewhere).
	closedAt map[string]int
	// logID returns the id of session's delta with this text, from the log
	// (set by newEnv; expands joined runs of deltas).
	logID func(session, text string) string
}

func newPage(t *testing.T) *page {
	return &page{t: t, notify: make(chan struct{}, 1), subs: map[string]bool{}, closedAt: map[string]int{}}
}

// Emit implements wailsipc.Emitter.
func (p *page) Emit(name string, data ...any) {
	p.mu.Lock()
	block := p.block
	p.mu.Unlock()
	if block != nil {
		<-block
	}
	if name != wailsipc.EventName || len(data) != 1 {
		p.t.Errorf("emit %q with %d args", name, len(data))
		return
	}
	raw, ok := data[0].(json.RawMessage)
	if !ok {
		p.t.Errorf("emit data is %T", data[0])
		return
	}
	if len(raw) > wailsipc.MaxEmitBytes {
		p.t.Errorf("emit of %d bytes", len(raw))
	}
	var b wailsipc.Batch
	if err := json.Unmarshal(raw, &b); err != nil {
		p.t.Errorf("batch not JSON: %v", err)
		return
	}
	if len(b.Frames) > 1 && len(raw) > wailsipc.BatchBytes {
		p.t.Errorf("multi-frame batch of %d bytes", len(raw))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.emits++
	p.subs[b.SubscriptionID] = true
	if b.Closed {
		p.closedAt[b.SubscriptionID] = p.emits
	}
	if p.down {
		return
	}
	switch {
	case b.SubscriptionID == p.sub:
		p.apply(b)
	case p.sub == "":
		p.early = append(p.early, b)
	}
	select {
	case p.notify <- struct{}{}:
	default:
	}
}

func (p *page) apply(b wailsipc.Batch) {
	if b.Chunk != nil {
		p.chunks.WriteString(b.Chunk.Data)
		if b.Chunk.Index == b.Chunk.Count-1 {
			p.frame(json.RawMessage(p.chunks.String()))
			p.chunks.Reset()
		}
	}
	var first, last string
	for _, f := range b.Frames {
		id := p.frame(f)
		if id != "" && first == "" {
			first = id
		}
		if id != "" {
			last = id
		}
	}
	if first != "" && (b.FirstEventID == nil || *b.FirstEventID != first || *b.LastEventID != last) {
		p.t.Errorf("batch ids %v..%v, frames %s..%s", b.FirstEventID, b.LastEventID, first, last)
	}
	if b.Closed {
		var e struct{ Code string }
		_ = json.Unmarshal(b.Frames[len(b.Frames)-1], &e)
		p.closed = append(p.closed, e.Code)
	}
}

func (p *page) frame(f json.RawMessage) string {
	p.frames = append(p.frames, f)
	var ev struct {
		Type  string
		Event struct{ ID string }
	}
	if err := json.Unmarshal(f, &ev); err != nil {
		p.t.Errorf("frame not JSON: %s", f)
	}
	if ev.Type == "event" {
		p.events = append(p.events, p.expand(f, ev.Event.ID)...)
		return ev.Event.ID
	}
	return ""
}

var joinedWords = regexp.MustCompile(`^(word \d+ )+$`)

// expand returns the ids of the events a frame stands for: its own, or for
// a run of deltas joined into one frame (deltaDraft's "word N " texts),
// each joined delta's id from the log, the last being the frame's own.
func (p *page) expand(f json.RawMessage, id string) []string {
	var ev struct {
		Event struct {
			Type      string
			SessionID string `json:"session_id"`
			Payload   struct{ Text string }
		}
	}
	_ = json.Unmarshal(f, &ev)
	words := strings.SplitAfter(ev.Event.Payload.Text, " ")
	if ev.Event.Type != ipc.TypeTextDelta || len(words) <= 3 || p.logID == nil || !joinedWords.MatchString(ev.Event.Payload.Text) {
		return []string{id}
	}
	var ids []string
	for i := 0; i+1 < len(words); i += 2 { // "word", "N ", ...
		ids = append(ids, p.logID(ev.Event.SessionID, words[i]+words[i+1]))
	}
	if ids[len(ids)-1] != id {
		p.t.Errorf("joined frame %s: its id is not its last delta's (%s)", id, ids[len(ids)-1])
	}
	return ids
}

// subscribe calls Bridge.Subscribe as the page does and starts listening to
// the returned subscription, applying batches that raced ahead of the reply.
func (p *page) subscribe(br *wailsipc.Bridge, session, filter string, since *string, snapshot bool) map[string]any {
	p.t.Helper()
	return p.subscribeIn(br, session, filter, since, snapshot, "")
}

// subscribeIn is subscribe in a dialect.
func (p *page) subscribeIn(br *wailsipc.Bridge, session, filter string, since *string, snapshot bool, dialect string) map[string]any {
	p.t.Helper()
	p.mu.Lock()
	p.sub = ""
	p.early = nil
	p.mu.Unlock()
	res, err := br.Subscribe(session, filter, since, snapshot, dialect)
	if err != nil {
		p.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(res.(json.RawMessage), &m); err != nil {
		p.t.Fatal(err)
	}
	if m["type"] == "subscribe_ack" {
		p.mu.Lock()
		p.sub = m["subscription_id"].(string)
		for _, b := range p.early {
			if b.SubscriptionID == p.sub {
				p.apply(b)
			}
		}
		p.early = nil
		p.mu.Unlock()
	}
	return m
}

// waitFor blocks until cond holds (checked under the page lock after every emit).
func (p *page) waitFor(what string, cond func() bool) {
	p.t.Helper()
	deadline := time.After(guard)
	for {
		p.mu.Lock()
		ok := cond()
		p.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-p.notify:
		case <-deadline:
			p.mu.Lock()
			n := len(p.events)
			tail := p.events[max(0, n-3):]
			last := ""
			if len(p.frames) > 0 {
				last = string(p.frames[len(p.frames)-1])
			}
			p.mu.Unlock()
			p.t.Fatalf("timed out waiting for %s (DEBUG %d events, tail %v, last frame %.300s, closed %v)", what, n, tail, last, p.closed)
		}
	}
}

type env struct {
	bus *ipc.Bus
	hub *hubtest.Hub
	svc *wailsipc.Service
	br  *wailsipc.Bridge
	pg  *page
}

func newEnv(t *testing.T, opts ipc.Options) *env {
	t.Helper()
	opts.Dialects = dialect.New()
	h := hubtest.NewBolt(t, opts)
	bus := h.Bus
	pg := newPage(t)
	byText := map[string]string{}
	pg.logID = func(session, text string) string {
		if id, ok := byText[session+"|"+text]; ok {
			return id
		}
		_ = bus.Reader().SessionEvents(session, ulid.ULID{}, func(r store.EventRecord) error {
			var ev struct{ Payload struct{ Text string } }
			if r.Type == ipc.TypeTextDelta && json.Unmarshal(r.Data, &ev) == nil {
				byText[session+"|"+ev.Payload.Text] = r.ID.String()
			}
			return nil
		})
		return byText[session+"|"+text]
	}
	svc, err := wailsipc.NewService(wailsipc.Options{Bus: bus, Hub: h, Emitter: pg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pg.mu.Lock()
		if pg.block != nil {
			close(pg.block)
			pg.block = nil
		}
		pg.mu.Unlock()
		_ = svc.Close()
	})
	return &env{bus: bus, hub: h, svc: svc, br: svc.Bridge(), pg: pg}
}

func (e *env) session(t *testing.T) string {
	t.Helper()
	s, err := e.hub.CreateSession(context.Background(), ipc.CreateSessionRequest{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func deltaDraft(sid string, i int) ipc.Draft {
	return ipc.Draft{Type: ipc.TypeTextDelta, SessionID: sid, TurnID: "t1", Actor: ipc.ActorAgent,
		Payload: ipc.TextDelta{MessageID: "m1", Text: fmt.Sprintf("word %d ", i)}}
}

// logIDs returns the ids of the session's events of type typ, in log order.
func logIDs(t *testing.T, bus *ipc.Bus, sid, typ string) []string {
	t.Helper()
	var ids []string
	err := bus.Reader().SessionEvents(sid, ulid.ULID{}, func(r store.EventRecord) error {
		if r.Type == typ {
			ids = append(ids, r.ID.String())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
