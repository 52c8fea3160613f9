package ipc

// The publish stage: after the writer committed a batch, its events go to
// the subscribers whose filter passes them — by the writer itself at a
// trickle (handOver), or by the publisher goroutine in a burst, pipelined
// with the next commit — each subscriber's slice into its bounded queue
// (broker.go indexes them by session; pump.go delivers).

import (
	"fmt"

	"agenthub/store"
)

// handOver publishes a committed batch. When nothing is waiting to be
// committed and the publisher has nothing in hand, the writer publishes it
// itself (at a steady trickle that saves a goroutine hand-off per event);
// otherwise the publisher does, while the writer commits the next batch.
func (b *Bus) handOver(items []built) {
	if len(b.in) == 0 && b.pubBusy.Load() == 0 {
		b.publish(items)
		for _, it := range items {
			finish(it, nil)
		}
		return
	}
	b.pubBusy.Add(1)
	b.pub <- pubJob{items: items}
}

// pubJob is a committed batch to publish, or (sync set) a marker the
// publisher closes once everything before it is published.
type pubJob struct {
	items []built
	sync  chan struct{}
}

// publisher publishes committed batches in commit order and then answers
// their Commit callers.
func (b *Bus) publisher() {
	defer b.wg.Done()
	for job := range b.pub {
		if job.sync != nil {
			close(job.sync)
			continue
		}
		b.publish(job.items)
		for _, it := range job.items {
			finish(it, nil)
		}
		b.pubBusy.Add(-1)
	}
}

// syncPublisher returns once every batch handed over so far is published.
func (b *Bus) syncPublisher() {
	done := make(chan struct{})
	b.pub <- pubJob{sync: done}
	<-done
}

// publish runs after commit, on the publisher goroutine: it updates the
// session tree from the batch's ops, then hands each matching subscription
// this commit's frames as one batch, without blocking. A subscriber whose
// queue is full falls behind and catches up from the log (subQueue.offer);
// nothing here closes anyone.
func (b *Bus) publish(items []built) {
	for _, it := range items {
		for _, op := range it.ops {
			if s, ok := store.OpSession(op); ok {
				b.tree.set(s.ID, s.ParentSessionID)
			}
		}
	}
	br := &b.broker
	br.mu.Lock()
	touched := br.touched[:0]
	deliver := func(s *Subscription, f *OutFrame, it *built, i int) {
		if f.Data == nil {
			*f = OutFrame{EventID: it.id(i), Data: it.frames[i]}
		}
		if s.enc != nil && f.ev == nil { // decoded once for every dialect subscriber
			f.ev = it.event(i)
		}
		if len(s.batch) == 0 {
			touched = append(touched, s)
		}
		s.batch = append(s.batch, *f)
	}
	for k := range items {
		it := &items[k]
		for i := range it.records {
			r := &it.records[i]
			var f OutFrame
			for _, s := range br.bySession[r.SessionID] {
				if s.filter.Match(r.Type, r.Actor) {
					deliver(s, &f, it, i)
				}
			}
			for _, s := range br.trees {
				if s.matches(r.SessionID, r.Type, r.Actor) {
					deliver(s, &f, it, i)
				}
			}
		}
	}
	for _, s := range touched {
		s.queue.offer(s.batch)
		clear(s.batch)
		s.batch = s.batch[:0]
	}
	clear(touched)
	br.touched = touched
	br.mu.Unlock()
}

// tooSlow ends a subscription whose consumer made no progress for
// ClientStall: it leaves the broker, ends with client_too_slow (the
// transport closes 1008 with that reason), and the bus records a
// bus.handler_warning in the session's log (through addInternal, so the
// caller never waits on the writer).
func (b *Bus) tooSlow(s *Subscription) {
	b.broker.remove(s)
	msg := fmt.Sprintf("No write progress for %s; reconnect with your last event id.", b.opts.ClientStall)
	s.fail(&SubscribeError{Code: CodeClientTooSlow, Message: msg})
	p, err := prepare(Draft{
		Type: TypeBusHandlerWarning, SessionID: s.sessionID, Actor: ActorSystem,
		Payload: HandlerWarning{SubscriptionName: s.name, Code: CodeClientTooSlow, Message: msg},
	})
	if err != nil { // cannot happen: every field is valid
		b.log.Error("ipc: build handler warning", "err", err)
		return
	}
	b.addInternal(single(p))
	b.log.Warn("ipc: subscriber made no progress, closed", "subscription", s.name, "session", s.sessionID, "stall", b.opts.ClientStall)
}
