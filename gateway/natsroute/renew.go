package natsroute

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ours reports whether the bucket holds e's own claim (its value: this
// instance and this connection), and at which revision.
func (f *Fleet) ours(e *entry) (uint64, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), f.opts.AttemptTimeout)
	defer cancel()
	kve, err := f.kv.Get(ctx, e.key)
	if err != nil || !bytes.Equal(kve.Value(), e.val) {
		return 0, false
	}
	return kve.Revision(), true
}

// renew keeps this instance's claims alive every TTL/3 (and at once after
// a reconnection). A claim found taken by another connection — this
// instance was cut off for longer than the TTL and the device registered
// elsewhere — is given up: its socket is dropped.
func (f *Fleet) renew() {
	defer f.wg.Done()
	t := time.NewTicker(f.opts.TTL / 3)
	defer t.Stop()
	for {
		select {
		case <-f.ctx.Done():
			return
		case <-t.C:
		case <-f.kick:
		}
		f.mu.Lock()
		es := make([]*entry, 0, len(f.local))
		for _, e := range f.local {
			if e.claimed() {
				es = append(es, e)
			}
		}
		f.mu.Unlock()
		f.renewAll(es)
	}
}

// renewParallel bounds the renewals in flight: a pass over a thousand
// claims must take a fraction of the TTL even when each waits on a slow
// node, or the claims would lapse under load.
const renewParallel = 32

// renewAll renews es, renewParallel at a time, and waits for all of them.
func (f *Fleet) renewAll(es []*entry) {
	sem := make(chan struct{}, renewParallel)
	var wg sync.WaitGroup
	for _, e := range es {
		if up, _, _ := f.connected(); !up || f.ctx.Err() != nil {
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f.renewOne(e)
		})
	}
	wg.Wait()
}

func (f *Fleet) renewOne(e *entry) {
	ctx, cancel := context.WithTimeout(f.ctx, f.opts.AttemptTimeout)
	defer cancel()
	e.mu.Lock()
	rev := e.rev
	e.mu.Unlock()
	next, err := f.kv.Update(ctx, e.key, e.val, rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		if r, ok := f.ours(e); ok {
			// An earlier renewal was made and only its answer lost.
			next, err = r, nil
		} else {
			// Expired (or taken): claim it again if it is free.
			next, err = f.kv.Create(ctx, e.key, e.val)
		}
		if errors.Is(err, jetstream.ErrKeyExists) {
			id := e.conn.Info().DeviceID
			f.mu.Lock()
			mine := f.local[id] == e
			if mine {
				delete(f.local, id)
			}
			f.mu.Unlock()
			if mine {
				e.unsubscribe()
				e.conn.Drop("its registration expired while this gateway was cut off from NATS and another connection holds the id now")
			}
			return
		}
	}
	if err != nil {
		f.log.Warn("gateway fleet: renew", "device", e.conn.Info().DeviceID, "err", err)
		return
	}
	e.mu.Lock()
	e.rev = next
	e.mu.Unlock()
}
