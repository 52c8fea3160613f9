// Package wailsipc is the in-process Wails IPC transport: a Bridge whose
// exported methods the Wails runtime binds for the page, and a coalescer
// that carries server frames to the page as the `localChat:event` Wails
// event in batches (DESIGN.md §4: one JS eval per emit, no back-pressure,
// leaks above ~64 KB). The Go side survives page reloads; a reloaded page
// announces itself (Hello) and resubscribes with its cursor, and replay from
// the log fills the gap.
package wailsipc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/rpc"
)

// Options configures NewService.
type Options struct {
	// Bus is the protocol core the page subscribes to (required).
	Bus *ipc.Bus
	// Hub serves cancels and turn submissions (required).
	Hub ipc.HubAPI
	// RPC answers Request; nil builds one with rpc.RegisterHub(Hub, Bus.Reader()).
	RPC *rpc.Dispatcher
	// Emitter delivers `localChat:event` to the page (required).
	Emitter Emitter
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// FlushInterval and BatchBytes override the coalescing bounds (zero:
	// the package constants).
	FlushInterval time.Duration
	BatchBytes    int
}

// Service is the Go-side owner of the Wails transport: it holds the Bridge
// the page calls, follows page reloads (DomReady) and stops everything on
// Close. Its methods are for the app, not the page, which is why they are
// not on Bridge (Wails binds every exported method of a bound struct).
type Service struct {
	b *Bridge
}

// Bridge is bound into the page by Wails (window.go.wailsipc.Bridge.*).
// Every method is safe for concurrent use. Subscription frames are not
// returned by these methods: they arrive as `localChat:event` batches (see
// Batch) tagged with the subscription id Subscribe returned.
type Bridge struct {
	bus  *ipc.Bus
	hub  ipc.HubAPI
	rpc  *rpc.Dispatcher
	log  *slog.Logger
	co   *coalescer
	ctx  context.Context
	stop context.CancelFunc

	mu         sync.Mutex
	closed     bool
	page       string // page id of the latest Hello
	helloSince bool   // a Hello arrived since the last DomReady
	nextID     uint64
	subs       map[string]*bridgeSub
	pumps      sync.WaitGroup // every pump goroutine; Close waits for them

	// Test hooks (nil in production; set through export_test.go).
	hookEnded     func() // in ended, after the closed batch is queued, before the sub leaves the table
	hookReleasing func() // in release, before waiting for a pump
}

// bridgeSub is one live subscription of the page.
type bridgeSub struct {
	id     string
	page   string
	sub    *ipc.Subscription
	cancel context.CancelFunc
	done   chan struct{} // closed when the pump goroutine exits
}

// NewService starts the coalescer and returns the service.
func NewService(opts Options) (*Service, error) {
	if opts.Bus == nil || opts.Hub == nil || opts.Emitter == nil {
		return nil, errors.New("wailsipc: Bus, Hub and Emitter are required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	d := opts.RPC
	if d == nil {
		d = rpc.NewDispatcher(log)
		rpc.RegisterHub(d, opts.Hub, opts.Bus.Reader())
	}
	interval, size := opts.FlushInterval, opts.BatchBytes
	if interval <= 0 {
		interval = FlushInterval
	}
	if size <= 0 || size > MaxEmitBytes {
		size = BatchBytes
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &Bridge{
		bus: opts.Bus, hub: opts.Hub, rpc: d, log: log,
		co:  newCoalescer(opts.Emitter, interval, size),
		ctx: ctx, stop: cancel,
		subs: map[string]*bridgeSub{},
	}
	return &Service{b: b}, nil
}

// Bridge returns the struct to pass to wails.Run's Bind list.
func (s *Service) Bridge() *Bridge { return s.b }

// DomReady is called from the Wails OnDomReady hook. It fires on the first
// load and again on every reload, when the old page's JS listeners are
// gone: subscriptions of any page other than the one that said Hello since
// the previous DomReady are dropped (all of them when none did), so nothing
// is emitted to a dead page on their behalf.
func (s *Service) DomReady() {
	b := s.b
	b.mu.Lock()
	var drop []*bridgeSub
	for id, bs := range b.subs {
		if !b.helloSince || bs.page != b.page {
			drop = append(drop, bs)
			delete(b.subs, id)
		}
	}
	b.helloSince = false
	b.mu.Unlock()
	b.release(drop)
	b.co.barrier()
}

// Subscriptions reports how many page subscriptions are live.
func (s *Service) Subscriptions() int {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	return len(s.b.subs)
}

// Close ends every subscription, flushes pending batches and stops the
// coalescer. Later page calls fail.
func (s *Service) Close() error {
	b := s.b
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	drop := make([]*bridgeSub, 0, len(b.subs))
	for id, bs := range b.subs {
		drop = append(drop, bs)
		delete(b.subs, id)
	}
	b.mu.Unlock()
	b.release(drop)
	b.stop()
	b.pumps.Wait()
	b.co.close()
	return nil
}

// Hello is called by the page once after it loads, with an id it made for
// itself. A new page id means the previous page is gone (reloaded): all of
// its subscriptions are dropped; the new page resubscribes with its cursors.
func (b *Bridge) Hello(pageID string) error {
	if pageID == "" {
		return errors.New("wailsipc: Hello needs a page id")
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return errors.New("wailsipc: closed")
	}
	var drop []*bridgeSub
	if pageID != b.page {
		for id, bs := range b.subs {
			if bs.page != pageID {
				drop = append(drop, bs)
				delete(b.subs, id)
			}
		}
	}
	b.page, b.helloSince = pageID, true
	b.mu.Unlock()
	b.release(drop)
	// A subscription the core ended just before this Hello left the table
	// with its closed batch already queued: emit it now, so nothing of the
	// old page reaches the page after Hello returns.
	b.co.barrier()
	return nil
}

// Subscribe attaches the page to a session (seed 001 §3.2). filter is a
// preset name ("preset:chat", "preset:full"), a JSON filter object as text,
// or "" for the default; since is the cursor (null for none); dialect is the
// wire shape of the event frames ("" or "canonical" — what the window
// uses — "seed000", "seed002", "seed004"; docs/protocol.md). It returns the
// subscribe_ack frame plus "subscription_id", or the subscribe_error frame
// (session_not_found, cursor_expired, replay_too_large, invalid_filter);
// the error result is only for internal failures. The snapshot, replayed and
// live frames follow as `localChat:event` batches with that subscription id.
func (b *Bridge) Subscribe(sessionID string, filter string, since *string, snapshot bool, dialect string) (any, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, errors.New("wailsipc: closed")
	}
	b.nextID++
	id := fmt.Sprintf("wsub-%d", b.nextID)
	page := b.page
	b.mu.Unlock()

	req := ipc.SubscribeRequest{
		SessionID: sessionID,
		Filter:    filterJSON(filter),
		Since:     since,
		Snapshot:  snapshot,
		Dialect:   dialect,
		Name:      "wails:" + id,
	}
	ctx, cancel := context.WithCancel(b.ctx)
	sub, err := b.bus.Subscribe(ctx, req)
	if err != nil {
		cancel()
		var se *ipc.SubscribeError
		if errors.As(err, &se) {
			return json.RawMessage(se.Frame()), nil
		}
		return nil, fmt.Errorf("wailsipc: subscribe %s: %w", sessionID, err)
	}
	bs := &bridgeSub{id: id, page: page, sub: sub, cancel: cancel, done: make(chan struct{})}
	b.mu.Lock()
	if b.closed || b.page != page {
		// Closed, or a reload (Hello of another page) raced this call: the
		// page that asked is gone, so the subscription must not start.
		closed := b.closed
		b.mu.Unlock()
		sub.Close()
		cancel()
		if closed {
			return nil, errors.New("wailsipc: closed")
		}
		return nil, errors.New("wailsipc: the page reloaded during subscribe")
	}
	b.subs[id] = bs
	b.pumps.Add(1)
	b.mu.Unlock()

	go b.pump(ctx, bs) // frames that beat the reply are kept by the page until it knows the id
	ack, err := json.Marshal(struct {
		ipc.SubscribeAckFrame
		SubscriptionID string `json:"subscription_id"`
	}{sub.Ack(), id})
	if err != nil {
		b.release([]*bridgeSub{b.take(id)})
		return nil, fmt.Errorf("wailsipc: encode ack: %w", err)
	}
	return json.RawMessage(ack), nil
}

// Unsubscribe ends one subscription; its pending frames are discarded.
// Unknown ids are a no-op (the page may race a reload).
func (b *Bridge) Unsubscribe(subscriptionID string) error {
	if bs := b.take(subscriptionID); bs != nil {
		b.release([]*bridgeSub{bs})
	}
	return nil
}

// Request runs one seed 003 RPC request frame (JSON text) and returns the
// response frame; protocol errors are inside the response, never an error.
func (b *Bridge) Request(frame string) (any, error) {
	return json.RawMessage(b.rpc.DispatchFrame(ipc.WithClient(b.ctx, "window"), []byte(frame))), nil
}

// filterJSON turns the page's filter argument into the raw filter of a
// SubscribeRequest.
func filterJSON(filter string) json.RawMessage {
	f := strings.TrimSpace(filter)
	switch {
	case f == "":
		return nil
	case strings.HasPrefix(f, "{"):
		return json.RawMessage(f)
	default:
		b, _ := json.Marshal(f)
		return b
	}
}

// take removes a subscription from the table.
func (b *Bridge) take(id string) *bridgeSub {
	b.mu.Lock()
	defer b.mu.Unlock()
	bs := b.subs[id]
	delete(b.subs, id)
	return bs
}

// release stops subscriptions already removed from the table: closes them,
// waits for their pumps and discards their pending frames.
func (b *Bridge) release(subs []*bridgeSub) {
	for _, bs := range subs {
		if bs == nil {
			continue
		}
		bs.cancel() // first: the pump then knows the end is ours
		bs.sub.Close()
		if b.hookReleasing != nil {
			b.hookReleasing()
		}
		<-bs.done
		b.co.dropSub(bs.id)
	}
}

// pump moves one subscription's frames into the coalescer, in order. When
// the core ends the subscription (client_too_slow, bus closed) the page gets
// a closed batch ending with an error frame and resubscribes with its cursor.
func (b *Bridge) pump(ctx context.Context, bs *bridgeSub) {
	defer b.pumps.Done()
	defer close(bs.done)
	frames := bs.sub.Frames()
	for {
		select {
		case f, ok := <-frames:
			if !ok {
				b.ended(ctx, bs)
				return
			}
			if !b.co.push(ctx, bs.id, f.EventID, f.Data) {
				return
			}
		case <-bs.sub.Done():
			// Deliver what the core queued before it ended the subscription.
		drain:
			for {
				select {
				case f, ok := <-frames:
					if !ok {
						break drain
					}
					if !b.co.push(ctx, bs.id, f.EventID, f.Data) {
						return
					}
				default:
					break drain
				}
			}
			b.ended(ctx, bs)
			return
		case <-ctx.Done():
			return
		}
	}
}

// ended reports a subscription the core closed (not one we released).
//
// Order matters: the closed batch is queued in the coalescer before the
// subscription leaves the table. A Hello or DomReady that still finds it in
// the table releases it (and waits for this pump); one that does not find it
// ends with a coalescer barrier, which emits the queued batch first. Either
// way the batch is out before the reload's Hello returns.
func (b *Bridge) ended(ctx context.Context, bs *bridgeSub) {
	if ctx.Err() != nil {
		return // released by us
	}
	code, msg := "subscription_closed", "the subscription ended; resubscribe with the last event id"
	var se *ipc.SubscribeError
	if err := bs.sub.Err(); errors.As(err, &se) {
		code, msg = se.Code, se.Message
	} else if err != nil {
		msg = err.Error()
	}
	b.log.Info("wails subscription closed by the core", "subscription", bs.id, "code", code)
	frame, _ := json.Marshal(struct {
		Type    string `json:"type"`
		Code    string `json:"code"`
		Message string `json:"message"`
	}{"error", code, msg})
	b.co.closeSub(bs.id, frame)
	if b.hookEnded != nil {
		b.hookEnded()
	}
	b.mu.Lock()
	if b.subs[bs.id] == bs {
		delete(b.subs, bs.id)
	}
	b.mu.Unlock()
}
