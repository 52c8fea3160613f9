package ipc

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// outBuffer is the hand-off buffer between a subscription's pump and its
// consumer: the pump copies a whole commit batch into it without waking the
// consumer per frame, and the consumer drains it without waking the pump per
// frame. 64 frames is a few KB of pointers.
const outBuffer = 64

// catchUpChunk is how many matching events one catch-up read transaction
// takes from the log before handing them over (no read transaction is held
// open while the consumer is slow).
const catchUpChunk = 512

// subQueue is a subscription's live queue. The writer hands it the frames
// of one commit batch at a time (offer); the pump takes everything pending
// at once (take), so a commit costs each subscriber one wake-up rather than
// one per event.
//
// The slow-client rule: queued counts events accepted and not yet taken by
// the pump. A batch that would take it past the bound makes the queue
// "behind": pending is dropped, further batches are ignored, and the pump
// reads the missing events back from the log (they are committed before
// they are published, so the log always has them), then goes live again.
// This holds before the subscription is live (its snapshot, replay or
// catch-up is still being handed over) and after. Overflow never closes a
// subscriber; only a consumer that takes nothing for ClientStall is closed
// (Subscription.send). A batch that lands on an empty queue is always
// accepted, so one large commit does not send a drained consumer to the log.
type subQueue struct {
	limit  int
	queued atomic.Int64
	notify chan struct{} // cap 1: "pending is non-empty or the queue fell behind"
	isLive chan struct{} // closed when the queue first goes live

	mu      sync.Mutex
	pending []OutFrame
	live    bool
	behind  bool
	// Direct hand-over: while the pump is parked (idle: live, nothing
	// pending, everything taken already handed to the consumer), offer puts
	// frames straight into the consumer's buffer out, saving the pump a
	// wake-up per commit. handed is the id of the newest event handed to the
	// consumer by either: offer skips frames at or below it (a catch-up
	// from the log also hands over events committed but not yet published,
	// which are offered afterwards) and the pump's next catch-up starts
	// after it. out is nil when frames need the pump (a dialect
	// subscription re-encodes them).
	out    chan<- OutFrame
	idle   bool
	handed string
}

// init sets the bound and, for a subscription whose frames go to the
// consumer as they are, the consumer's buffer for direct hand-over (nil:
// always through the pump).
func (q *subQueue) init(limit int, out chan<- OutFrame) {
	q.limit = limit
	q.out = out
	q.notify = make(chan struct{}, 1)
	q.isLive = make(chan struct{})
}

// setLive marks the queue live (under mu).
func (q *subQueue) setLive() {
	q.live = true
	select {
	case <-q.isLive:
	default:
		close(q.isLive)
	}
}

// offer appends one commit's frames, or switches the queue to behind when
// they would overflow it. While the pump is parked it hands them straight
// to the consumer's buffer as far as that has room (the rest are queued and
// the pump woken). It never blocks and never fails.
func (q *subQueue) offer(fs []OutFrame) {
	q.mu.Lock()
	if q.idle {
		for len(fs) > 0 && fs[0].EventID <= q.handed {
			fs = fs[1:] // a catch-up handed these over already
		}
		i := 0
	direct:
		for ; i < len(fs); i++ {
			select {
			case q.out <- fs[i]:
			default:
				break direct
			}
		}
		if i > 0 {
			q.handed = fs[i-1].EventID
		}
		if i == len(fs) {
			q.mu.Unlock()
			return
		}
		q.idle = false
		fs = fs[i:]
	}
	if q.behind {
		q.mu.Unlock()
		return // the pump will read these from the log
	}
	if n := q.queued.Load(); n > 0 && int(n)+len(fs) > q.limit {
		q.behind, q.live = true, false
		clear(q.pending)
		q.pending = q.pending[:0]
		q.queued.Store(0)
	} else {
		q.pending = append(q.pending, fs...)
		q.queued.Add(int64(len(fs)))
	}
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// markLive makes the queue live unless it is already behind (Subscribe
// calls it when there is nothing to hand over before the live events).
func (q *subQueue) markLive() {
	q.mu.Lock()
	if !q.behind {
		q.setLive()
	}
	q.mu.Unlock()
}

// settle is called by the pump once everything before the queue has been
// handed over. If the queue fell behind meanwhile it clears that state and
// returns live=false: the pump must read the log after its last id and
// call settle again. Otherwise the queue is live from now on and settle
// returns the pending frames, which leave the count.
func (q *subQueue) settle(spare []OutFrame) (batch []OutFrame, live bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.behind {
		q.behind = false
		return nil, false
	}
	q.setLive()
	batch, q.pending = q.pending, spare[:0]
	q.queued.Add(-int64(len(batch)))
	return batch, true
}

// park tells offer that the pump has handed over everything it took, last
// being the newest event, and is about to wait: from now on offer may hand
// newer frames to the consumer directly (if the queue allows it and is
// live with nothing pending).
func (q *subQueue) park(last string) {
	q.mu.Lock()
	if last > q.handed {
		q.handed = last
	}
	q.idle = q.out != nil && q.live && !q.behind && len(q.pending) == 0
	q.mu.Unlock()
}

// take swaps the pending frames for spare (emptied) and returns them; they
// leave the count, and the pump is no longer parked. *last moves up to the
// newest frame offer handed over directly. behind reports that the queue
// overflowed since the last take: the pump must catch up from the log
// (batch is then empty).
func (q *subQueue) take(spare []OutFrame, last *string) (batch []OutFrame, behind bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.idle = false
	if q.handed > *last {
		*last = q.handed
	}
	if q.behind {
		return spare[:0], true
	}
	batch = q.pending
	q.pending = spare[:0]
	q.queued.Add(-int64(len(batch)))
	return batch, false
}

// send hands one frame to the consumer; false once the subscription ends.
// While the hand-off buffer has room it is a plain non-blocking send (a
// four-way select per frame was a fifth of the fan-out's CPU). When the
// buffer stays full for ClientStall — the consumer took nothing in that
// time — the subscription is closed with client_too_slow (Bus.tooSlow).
func (s *Subscription) send(f OutFrame) bool {
	select {
	case s.out <- f:
		return true
	default:
	}
	if s.stall == nil {
		s.stall = time.NewTimer(s.bus.opts.ClientStall)
	} else {
		s.stall.Reset(s.bus.opts.ClientStall)
	}
	select {
	case s.out <- f:
		s.stall.Stop()
		return true
	case <-s.stall.C:
		s.bus.tooSlow(s)
	case <-s.stop:
		s.setErr(ErrClosed)
	case <-s.failed:
	case <-s.ctx.Done():
		s.setErr(s.ctx.Err())
	}
	s.stall.Stop()
	return false
}

// deliver hands one frame to the consumer in the subscription's dialect:
// event frames are re-encoded (zero or more frames, all carrying the
// event's id; a live event comes decoded by the publisher, once for all
// dialect subscribers, and frames that depend on the event alone are
// encoded once per dialect, sharedframes.go), anything else passes
// unchanged. An event the encoder cannot
// read is logged and skipped. False once the subscription ends.
func (s *Subscription) deliver(f OutFrame) bool {
	if s.enc == nil || f.EventID == "" {
		return s.send(f)
	}
	var ev Event
	var err error
	if f.ev != nil {
		ev = *f.ev // a live event, decoded once by the publisher
	} else { // read back from the log
		env := f.Data
		if len(env) > len(framePre)+len(framePost) {
			env = env[len(framePre) : len(env)-len(framePost)]
		}
		err = json.Unmarshal(env, &ev)
	}
	var frames [][]byte
	if err == nil {
		frames, err = s.enc.Encode(ev)
	}
	if err != nil {
		s.bus.log.Warn("ipc: dialect encoder skipped an event", "subscription", s.name, "event", f.EventID, "err", err)
		return true
	}
	for _, b := range frames {
		if !s.send(OutFrame{EventID: f.EventID, Data: b}) {
			return false
		}
	}
	return true
}

// pump hands frames to the consumer: the initial frames, then (catching up
// from the log for as long as the queue falls behind) the live frames newer
// than the last id handed over.
func (s *Subscription) pump() {
	defer s.bus.wg.Done()
	defer close(s.done)
	defer close(s.out)
	defer s.bus.broker.remove(s)
	last := s.seam // every event with id <= last is covered
	for _, f := range s.initial {
		if !s.deliver(f) {
			return
		}
	}
	s.initial = nil
	var batch []OutFrame
	for {
		// Hand over everything the log has after last until the queue has
		// not fallen behind meanwhile; then it is live.
		for {
			b, live := s.queue.settle(batch)
			if live {
				batch = b
				break
			}
			if !s.catchUp(&last) {
				return
			}
		}
		behind := false
		for !behind {
			for _, f := range batch {
				if f.EventID > last {
					if !s.deliver(f) {
						return
					}
					last = f.EventID
				}
			}
			clear(batch)
			batch = batch[:0]
			s.queue.park(last)
			select {
			case <-s.queue.notify:
				batch, behind = s.queue.take(batch, &last)
			case <-s.stop:
				s.setErr(ErrClosed)
				return
			case <-s.failed:
				return
			case <-s.ctx.Done():
				s.setErr(s.ctx.Err())
				return
			}
		}
	}
}

var errChunkFull = errors.New("catch-up chunk full")

// catchUp hands over every matching event in the log after *last, in
// chunks of catchUpChunk per read transaction, advancing *last. False once
// the subscription ends (a read error ends it with that error).
func (s *Subscription) catchUp(last *string) bool {
	for {
		var after ulid.ULID
		if *last != "" {
			var err error
			if after, err = ulid.ParseStrict(*last); err != nil { // cannot happen: ids come from the log
				s.setErr(fmt.Errorf("ipc: catch-up of %s: bad cursor %q: %w", s.name, *last, err))
				return false
			}
		}
		frames := make([]OutFrame, 0, 64)
		err := s.bus.db.View(func(tx StoreView) error {
			sessions := []string{s.sessionID}
			if s.filter.IncludeWorkerSessions {
				var err error
				if sessions, err = descendants(tx, s.sessionID); err != nil {
					return err
				}
			}
			return tx.EventsAfter(sessions, after, func(r store.EventRecord) error {
				if !s.filter.Match(r.Type, r.Actor) {
					return nil
				}
				frames = append(frames, OutFrame{EventID: r.ID.String(), Data: eventFrame(r.Data)})
				if len(frames) == catchUpChunk {
					return errChunkFull
				}
				return nil
			})
		})
		if err != nil && !errors.Is(err, errChunkFull) {
			s.bus.log.Error("ipc: subscription catch-up read failed", "subscription", s.name, "err", err)
			s.setErr(fmt.Errorf("ipc: catch-up of %s from the log: %w", s.name, err))
			return false
		}
		for _, f := range frames {
			if !s.deliver(f) {
				return false
			}
			*last = f.EventID
		}
		if len(frames) < catchUpChunk {
			return true
		}
	}
}
