package wailsipc

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// EventName is the Wails event that carries every server frame to the page (seed 000).
const EventName = "localChat:event"

// Emitter sends a Wails event to the page. The desktop app adapts
// runtime.EventsEmit with the Wails context; tests use a recorder. Emit is
// called from one goroutine only (the coalescer's), with one argument: the
// encoded Batch as json.RawMessage.
type Emitter interface {
	Emit(name string, data ...any)
}

// item is one instruction to the coalescer goroutine.
type item struct {
	sub     string
	eventID string
	data    []byte // a frame; nil with drop/flush instructions
	drop    bool   // discard sub's pending frames
	barrier bool   // nothing to do: done is closed once everything before it is handled
	closed  []byte // flush sub, then emit this error frame as a closed batch
	done    chan struct{}
}

// coalescer owns the emitter: it batches frames per subscription (at most
// FlushInterval old, at most BatchBytes, hard MaxEmitBytes) and emits them in
// order. It is the only caller of Emitter on the hot path.
type coalescer struct {
	emit     Emitter
	in       chan item
	b        *batcher
	stopOnce sync.Once
	stop     context.CancelFunc
	stopped  chan struct{}
}

func newCoalescer(e Emitter, maxDelay time.Duration, maxBytes int) *coalescer {
	ctx, cancel := context.WithCancel(context.Background())
	c := &coalescer{emit: e, in: make(chan item, 256), b: newBatcher(maxDelay, maxBytes), stop: cancel, stopped: make(chan struct{})}
	go c.run(ctx)
	return c
}

// push queues one frame of sub; it blocks while the coalescer's input is
// full (back-pressure reaches the subscription's bounded queue, whose
// overflow rule then applies) and returns false once the coalescer stopped.
func (c *coalescer) push(ctx context.Context, sub, eventID string, data []byte) bool {
	return c.send(ctx, item{sub: sub, eventID: eventID, data: data})
}

// dropSub discards sub's pending frames and returns once done (or stopped).
func (c *coalescer) dropSub(sub string) {
	done := make(chan struct{})
	if c.send(context.Background(), item{sub: sub, drop: true, done: done}) {
		select {
		case <-done:
		case <-c.stopped:
		}
	}
}

// closeSub flushes sub's pending frames, then emits errFrame as the
// subscription's final (closed) batch.
func (c *coalescer) closeSub(sub string, errFrame []byte) {
	c.send(context.Background(), item{sub: sub, closed: errFrame})
}

// barrier returns once every item queued before it has been handled (and
// emitted, if it was due), or the coalescer stopped.
func (c *coalescer) barrier() {
	done := make(chan struct{})
	if c.send(context.Background(), item{barrier: true, done: done}) {
		select {
		case <-done:
		case <-c.stopped:
		}
	}
}

func (c *coalescer) send(ctx context.Context, it item) bool {
	select {
	case c.in <- it:
		return true
	case <-c.stopped:
		return false
	case <-ctx.Done():
		return false
	}
}

// close flushes everything pending and stops the goroutine.
func (c *coalescer) close() {
	c.stopOnce.Do(c.stop)
	<-c.stopped
}

func (c *coalescer) run(ctx context.Context) {
	defer close(c.stopped)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	armed := false
	rearm := func() {
		if armed {
			timer.Stop()
			armed = false
		}
		if at, ok := c.b.deadline(); ok {
			timer.Reset(time.Until(at))
			armed = true
		}
	}
	for {
		select {
		case it := <-c.in:
			c.handle(it)
			c.drain() // whatever else is queued, before touching the timer
			c.emitAll(c.b.due(time.Now()))
			rearm()
		case <-timer.C:
			armed = false
			c.emitAll(c.b.due(time.Now()))
			rearm()
		case <-ctx.Done():
			c.drain()
			c.emitAll(c.b.due(time.Now().Add(24 * time.Hour)))
			return
		}
	}
}

// drain handles every item already queued, without waiting for more.
func (c *coalescer) drain() {
	for {
		select {
		case it := <-c.in:
			c.handle(it)
		default:
			return
		}
	}
}

func (c *coalescer) handle(it item) {
	switch {
	case it.barrier:
		close(it.done)
	case it.drop:
		c.b.drop(it.sub)
		close(it.done)
	case it.closed != nil:
		if out := c.b.flush(it.sub); out != nil {
			c.emitOne(out)
		}
		c.emitOne(encode(Batch{SubscriptionID: it.sub, Frames: []json.RawMessage{escapeHTML(it.closed)}, Closed: true}))
	default:
		c.emitAll(c.b.add(it.sub, it.eventID, it.data, time.Now()))
	}
}

func (c *coalescer) emitAll(out [][]byte) {
	for _, b := range out {
		c.emitOne(b)
	}
}

func (c *coalescer) emitOne(b []byte) {
	c.emit.Emit(EventName, json.RawMessage(b))
}
