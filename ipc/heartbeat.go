package ipc

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// MaxUnansweredPings is how many pings may go unanswered before the
// connection is closed (seed 001 §3.8).
const MaxUnansweredPings = 3

// HeartbeatAction tells a transport what to do: send a ping with Nonce, or
// (Close) close the connection because MaxUnansweredPings went unanswered.
// The zero action (no Nonce, no Close) means nothing to do: the connection
// was not idle.
type HeartbeatAction struct {
	Nonce string
	Close bool
}

// Heartbeat is the transport-agnostic heartbeat policy: after Interval
// without traffic it asks for a ping; a pong (or any client frame, via
// Activity) resets the count; the MaxUnansweredPings+1-th idle expiry asks
// to close. Seed 001 §3.8 pings only when the connection is "otherwise
// idle": events delivered to the client (Sent) also count as traffic, so a
// client that reads a steady stream but never sends is not pinged or
// closed while the stream flows (a client that stops reading is the
// stall rule's business, not the heartbeat's). A transport calls Activity
// on every received frame, Pong on pong frames and Sent after writing an
// event, and acts on Run's channel; tests drive Expire directly.
type Heartbeat struct {
	Interval time.Duration

	mu          sync.Mutex
	unanswered  int
	seq         int
	outstanding map[string]bool
	kick        chan struct{}
	sent        atomic.Bool
}

// NewHeartbeat returns a policy pinging after interval of idleness.
func NewHeartbeat(interval time.Duration) *Heartbeat {
	return &Heartbeat{Interval: interval, outstanding: map[string]bool{}, kick: make(chan struct{}, 1)}
}

// Activity records a frame received from the client: the client is alive,
// and the idle timer restarts.
func (h *Heartbeat) Activity() {
	h.mu.Lock()
	h.unanswered = 0
	clear(h.outstanding)
	h.mu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default:
	}
}

// Sent records an event written to the client since the last expiry; it is
// one atomic store, cheap enough for every frame.
func (h *Heartbeat) Sent() { h.sent.Store(true) }

// Pong records a pong; it reports whether nonce answered an outstanding ping.
func (h *Heartbeat) Pong(nonce string) bool {
	h.mu.Lock()
	ok := h.outstanding[nonce]
	h.mu.Unlock()
	h.Activity()
	return ok
}

// Expire is the idle-timer expiry: it returns the next action (ping with a
// fresh nonce, or close after MaxUnansweredPings unanswered pings), or the
// zero action when events were Sent since the last expiry (not idle; the
// count restarts).
func (h *Heartbeat) Expire() HeartbeatAction {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sent.Swap(false) {
		h.unanswered = 0
		clear(h.outstanding)
		return HeartbeatAction{}
	}
	if h.unanswered >= MaxUnansweredPings {
		return HeartbeatAction{Close: true}
	}
	h.unanswered++
	h.seq++
	n := "hb-" + strconv.Itoa(h.seq)
	h.outstanding[n] = true
	return HeartbeatAction{Nonce: n}
}

// Run drives the policy with a real timer until ctx ends or a Close action
// is delivered; the returned channel is closed then. The caller owns ctx.
func (h *Heartbeat) Run(ctx context.Context) <-chan HeartbeatAction {
	out := make(chan HeartbeatAction)
	go func() {
		defer close(out)
		t := time.NewTimer(h.Interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-h.kick:
				t.Reset(h.Interval)
			case <-t.C:
				a := h.Expire()
				if a == (HeartbeatAction{}) {
					t.Reset(h.Interval)
					continue
				}
				select {
				case out <- a:
				case <-ctx.Done():
					return
				}
				if a.Close {
					return
				}
				t.Reset(h.Interval)
			}
		}
	}()
	return out
}
