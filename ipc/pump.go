package ipc

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// outBuffer is the hand-off buffer between a subscription's pump and its
// consumer: the pump copies a whole commit batch into it without waking the
// consumer per frame, and the consumer drains it without waking the pump per
// frame. It is slack on top of the queue bound: a live consumer can be up to
// ClientQueue+outBuffer+1 events behind (queue, hand-off buffer, the frame in
// its hand) before it is closed as too slow. 64 frames is a few KB of
// pointers, a small fraction of the 1,000-event default queue.
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
// Accounting: queued counts events accepted and not yet handed to the
// consumer (pending plus those the pump holds). Before the subscription is
// live (its snapshot/replay/catch-up is still being handed over), a batch
// that would exceed the bound makes the queue "behind": pending is dropped,
// further batches are ignored, and the pump reads the missing events back
// from the log (they are committed before they are published, so the log
// always has them). Once live, such a batch means the consumer is not
// draining: offer reports overflow and the writer closes the subscription.
// A batch that lands on an empty queue is always accepted, so one large
// commit cannot close a consumer that has drained everything before it.
type subQueue struct {
	limit  int
	queued atomic.Int64
	notify chan struct{} // cap 1: "pending is non-empty"
	isLive chan struct{} // closed when the queue goes live

	mu      sync.Mutex
	pending []OutFrame
	live    bool
	behind  bool
}

func (q *subQueue) init(limit int) {
	q.limit = limit
	q.notify = make(chan struct{}, 1)
	q.isLive = make(chan struct{})
}

// setLive marks the queue live (under mu).
func (q *subQueue) setLive() {
	if !q.live {
		q.live = true
		close(q.isLive)
	}
}

// offer appends one commit's frames; false means a live consumer overflowed.
func (q *subQueue) offer(fs []OutFrame) bool {
	q.mu.Lock()
	if q.behind {
		q.mu.Unlock()
		return true // the pump will read these from the log
	}
	if n := q.queued.Load(); n > 0 && int(n)+len(fs) > q.limit {
		if q.live {
			q.mu.Unlock()
			return false
		}
		q.behind = true
		clear(q.pending)
		q.pending = q.pending[:0]
		q.queued.Store(0)
		q.mu.Unlock()
		return true
	}
	q.pending = append(q.pending, fs...)
	q.queued.Add(int64(len(fs)))
	q.mu.Unlock()
	select {
	case q.notify <- struct{}{}:
	default:
	}
	return true
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
// returns the pending frames (the pump holds them; they stay counted).
func (q *subQueue) settle(spare []OutFrame) (batch []OutFrame, live bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.behind {
		q.behind = false
		return nil, false
	}
	q.setLive()
	batch, q.pending = q.pending, spare[:0]
	return batch, true
}

// take swaps the pending frames for spare (emptied) and returns them.
func (q *subQueue) take(spare []OutFrame) []OutFrame {
	q.mu.Lock()
	batch := q.pending
	q.pending = spare[:0]
	q.mu.Unlock()
	return batch
}

// send hands one frame to the consumer; false once the subscription ends.
// While the hand-off buffer has room it is a plain non-blocking send (a
// four-way select per frame was a fifth of the fan-out's CPU); the end of
// the subscription is then noticed at the next full buffer or batch wait.
func (s *Subscription) send(f OutFrame) bool {
	select {
	case s.out <- f:
		return true
	default:
	}
	select {
	case s.out <- f:
		return true
	case <-s.stop:
		s.setErr(ErrClosed)
	case <-s.failed:
	case <-s.ctx.Done():
		s.setErr(s.ctx.Err())
	}
	return false
}

// deliver hands one frame to the consumer in the subscription's dialect:
// event frames are re-encoded (zero or more frames, all carrying the
// event's id), anything else passes unchanged. An event the encoder cannot
// read is logged and skipped. False once the subscription ends.
func (s *Subscription) deliver(f OutFrame) bool {
	if s.enc == nil || f.EventID == "" {
		return s.send(f)
	}
	var ev Event
	env := f.Data
	if len(env) > len(framePre)+len(framePost) {
		env = env[len(framePre) : len(env)-len(framePost)]
	}
	frames, err := [][]byte(nil), json.Unmarshal(env, &ev)
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
		b, live := s.queue.settle(nil)
		if live {
			batch = b
			break
		}
		if !s.catchUp(&last) {
			return
		}
	}
	for {
		for _, f := range batch {
			if f.EventID > last {
				if !s.deliver(f) {
					return
				}
				last = f.EventID
			}
			s.queue.queued.Add(-1)
		}
		clear(batch)
		select {
		case <-s.queue.notify:
			batch = s.queue.take(batch)
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
		err := s.bus.db.View(func(tx *store.Tx) error {
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
