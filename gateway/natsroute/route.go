package natsroute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"agenthub/gateway"
	"agenthub/gateway/wire"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
)

// Headers of a routed message between instances, and the holder's replies.
const (
	hdrLane   = "Agenthub-Lane"
	hdrSeq    = "Agenthub-Seq"
	replyOK   = "ok"
	replyGone = "gone"
)

// laneQueue bounds the messages of one sender to one recipient waiting to
// cross; a full lane holds up its sender's socket (backpressure), it never
// drops.
const laneQueue = 256

// laneIdle is how long a lane without messages lives on.
const laneIdle = 30 * time.Second

// seenMax bounds a recipient's memory of lanes (the oldest go first; a
// lane is forgotten only long after its last retry could arrive).
const seenMax = 1024

// laneKey is one sender connection to one recipient id.
type laneKey struct{ from, to string }

// lane carries one sender connection's messages to one recipient, in
// order, one at a time: each is retried until the holder acknowledges it,
// so a later message never overtakes an earlier one.
type lane struct {
	f       *Fleet
	key     laneKey
	id      string
	from    gateway.Conn
	ch      chan wire.RoutedMessage
	pending int // messages pushed and not yet taken (guarded by f.mu)
	seq     uint64
}

// Route implements gateway.Router. A message to a device on this instance
// is delivered before Route returns; one to another instance is queued on
// its lane (Route waits while the lane is full) and a failure to deliver
// it reaches from.SendFailed: ErrDeviceNotFound when no instance holds the
// device, ErrUnreachable when the holder could not be reached within the
// delivery timeout or NATS has been down for longer.
func (f *Fleet) Route(ctx context.Context, from gateway.Conn, msg wire.RoutedMessage) error {
	k := laneKey{from: from.ConnID(), to: msg.To}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return fmt.Errorf("%w: the gateway is stopping", gateway.ErrUnreachable)
	}
	l := f.lanes[k]
	if l == nil {
		if e := f.local[msg.To]; e != nil && e.claimed() {
			f.mu.Unlock()
			return e.conn.Deliver(msg)
		}
		l = &lane{f: f, key: k, id: nuid.Next(), from: from, ch: make(chan wire.RoutedMessage, laneQueue)}
		f.lanes[k] = l
		f.wg.Add(1)
		go l.run()
	}
	l.pending++
	f.mu.Unlock()
	select {
	case l.ch <- msg:
		return nil
	case <-ctx.Done():
	case <-f.ctx.Done():
	}
	f.mu.Lock()
	l.pending--
	f.mu.Unlock()
	return fmt.Errorf("%w: the gateway is stopping", gateway.ErrUnreachable)
}

// run delivers the lane's messages until it has been idle for laneIdle
// with nothing pushed, or the fleet closes.
func (l *lane) run() {
	defer l.f.wg.Done()
	idle := time.NewTimer(laneIdle)
	defer idle.Stop()
	for {
		select {
		case m := <-l.ch:
			l.f.mu.Lock()
			l.pending--
			l.f.mu.Unlock()
			l.deliver(m)
			idle.Reset(laneIdle)
		case <-idle.C:
			l.f.mu.Lock()
			if l.pending == 0 {
				delete(l.f.lanes, l.key)
				l.f.mu.Unlock()
				return
			}
			l.f.mu.Unlock()
			idle.Reset(laneIdle)
		case <-l.f.ctx.Done():
			return
		}
	}
}

// deliver gets m to its recipient, wherever it is, or tells the sender.
func (l *lane) deliver(m wire.RoutedMessage) {
	f := l.f
	l.seq++
	data, err := json.Marshal(m)
	if err != nil {
		l.from.SendFailed(m, fmt.Errorf("%w: encode: %w", gateway.ErrUnreachable, err))
		return
	}
	key := keyOf(m.To)
	nm := &nats.Msg{Subject: f.subject(key), Data: data, Header: nats.Header{}}
	nm.Header.Set(hdrLane, l.id)
	nm.Header.Set(hdrSeq, strconv.FormatUint(l.seq, 10))
	deadline := time.Now().Add(f.opts.DeliveryTimeout)
	// sent: an attempt reached NATS and got no answer (a timeout, a lost
	// connection): the holder may have delivered it and its acknowledgement
	// been lost, so a failure after that is reported as unconfirmed, never
	// as certainly undelivered.
	sent := false
	fail := func(err error) {
		if sent {
			why := strings.TrimPrefix(err.Error(), gateway.ErrUnreachable.Error()+": ")
			err = fmt.Errorf("%w: %s", gateway.ErrUnconfirmed, why)
		}
		f.log.Warn("gateway fleet: message not delivered", "from", m.From, "to", m.To, "id", m.ID, "err", err)
		l.from.SendFailed(m, err)
	}
	for attempt := 0; ; attempt++ {
		// The recipient may be (or have come) here.
		f.mu.Lock()
		e := f.local[m.To]
		f.mu.Unlock()
		if e != nil && e.claimed() {
			if err := e.conn.Deliver(m); err != nil {
				fail(gateway.ErrDeviceNotFound)
			}
			return
		}
		if f.ctx.Err() != nil {
			return
		}
		up, down, back := f.connected()
		if !up && down > f.opts.DeliveryTimeout {
			fail(fmt.Errorf("%w: this gateway has been cut off from NATS for %s", gateway.ErrUnreachable, down.Round(time.Second)))
			return
		}
		if time.Now().After(deadline) {
			fail(fmt.Errorf("%w: not delivered within %s", gateway.ErrUnreachable, f.opts.DeliveryTimeout))
			return
		}
		if !up {
			l.wait(back, deadline, attempt)
			continue
		}
		actx, cancel := context.WithDeadline(f.ctx, minTime(deadline, time.Now().Add(f.opts.AttemptTimeout)))
		reply, err := f.nc.RequestMsgWithContext(actx, nm)
		cancel()
		switch {
		case err == nil && string(reply.Data) == replyOK:
			return
		case errors.Is(err, nats.ErrMaxPayload):
			l.from.SendFailed(m, fmt.Errorf("%w: %d bytes is more than NATS carries (max_payload %d)", gateway.ErrUnreachable, len(data), f.nc.MaxPayload()))
			return
		case err == nil || errors.Is(err, nats.ErrNoResponders):
			// Nobody (or an instance it just left) has the subject: unless
			// the device is still claimed — its holder is reconnecting, or
			// it is moving — it is not connected.
			held, kerr := f.registered(f.ctx, key)
			if kerr == nil && !held {
				fail(gateway.ErrDeviceNotFound)
				return
			}
		default:
			sent = true
		}
		// A timeout, a lost connection, a holder between instances: again.
		l.wait(nil, deadline, attempt)
	}
}

// wait pauses a retry: a short backoff, cut short by back closing (NATS is
// connected again) and bounded by the deadline.
func (l *lane) wait(back <-chan struct{}, deadline time.Time, attempt int) {
	d := min(time.Duration(5<<min(attempt, 5))*time.Millisecond, 200*time.Millisecond, time.Until(deadline))
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-back:
	case <-l.f.ctx.Done():
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// inbound delivers a message another instance routed to e's device: once
// per lane sequence number (a retry of a delivered message is
// acknowledged, not delivered again), and answers gone when e no longer
// holds the device here.
func (f *Fleet) inbound(e *entry, nm *nats.Msg) {
	respond := func(s string) {
		if err := nm.Respond([]byte(s)); err != nil {
			f.log.Debug("gateway fleet: reply", "err", err)
		}
	}
	id := e.conn.Info().DeviceID
	f.mu.Lock()
	here := f.local[id] == e
	f.mu.Unlock()
	if !here {
		respond(replyGone)
		return
	}
	laneID := nm.Header.Get(hdrLane)
	seq, err := strconv.ParseUint(nm.Header.Get(hdrSeq), 10, 64)
	var m wire.RoutedMessage
	if err == nil {
		err = json.Unmarshal(nm.Data, &m)
	}
	if err != nil || laneID == "" || m.To != id {
		// Only gateway instances publish here (docs/gateway.md: the
		// fleet's NATS permissions); a malformed one is dropped, and
		// acknowledged so that it is not retried.
		f.log.Warn("gateway fleet: malformed routed message", "subject", nm.Subject, "err", err)
		respond(replyOK)
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if last, ok := e.seen[laneID]; ok && seq <= last.seq {
		respond(replyOK)
		return
	}
	if err := e.conn.Deliver(m); err != nil {
		respond(replyGone)
		return
	}
	now := time.Now()
	e.seen[laneID] = delivered{seq: seq, at: now}
	if len(e.seen) > seenMax {
		forgetOldest(e.seen)
	}
	respond(replyOK)
}

// forgetOldest drops the least recently delivered lane of seen.
func forgetOldest(seen map[string]delivered) {
	var oldest string
	var at time.Time
	for id, d := range seen {
		if oldest == "" || d.at.Before(at) {
			oldest, at = id, d.at
		}
	}
	delete(seen, oldest)
}
