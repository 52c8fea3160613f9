package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// run is one burst through one target to some clients.
type run struct {
	target  string
	b       burst
	clients int

	delivered int           // deltas received, summed over clients
	closed    int           // clients whose stream ended early
	resumed   int           // streams the hub ended that their reader resumed from its cursor
	closeErr  string        // the first early end, if any
	elapsed   time.Duration // first delta sent → last delta received (slowest client)
	cpu       time.Duration // the target process's CPU over the run
	latencies []time.Duration
}

func (r run) rate() float64 { return float64(r.b.n) / r.elapsed.Seconds() }

// cpuPer1k is the target's CPU per 1,000 deltas produced.
func (r run) cpuPer1k() time.Duration {
	return time.Duration(float64(r.cpu) / float64(r.b.n) * 1000)
}

func (r run) deliveredPct() float64 {
	return 100 * float64(r.delivered) / float64(r.b.n*r.clients)
}

// measure runs burst b through t to n fresh clients and waits for all of
// them to see the turn's end (or their stream to end).
func measure(ctx context.Context, t target, b burst, n int) (run, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cls, err := t.connect(ctx, n)
	if err != nil {
		return run{}, fmt.Errorf("%s: connect %d clients: %w", t.name(), n, err)
	}
	defer t.release(cls)
	results := make([]result, n)
	var wg sync.WaitGroup
	c0 := sampleCPU(t.pid())
	for i, c := range cls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = c.read(ctx, b.n)
		}()
	}
	if err := t.fire(ctx, b); err != nil {
		return run{}, fmt.Errorf("%s: fire: %w", t.name(), err)
	}
	wg.Wait()
	r := run{target: t.name(), b: b, clients: n, cpu: sampleCPU(t.pid()).since(c0)}
	if rt, ok := t.(interface{ resumed() int }); ok {
		r.resumed = rt.resumed()
	}
	var first, last time.Time
	for _, res := range results {
		if res.repeated > 0 {
			return run{}, fmt.Errorf("%s: a client got %d deltas twice or out of order (exactly once, in log order, is the contract)", t.name(), res.repeated)
		}
		r.delivered += res.deltas
		if res.err != nil {
			r.closed++
			if r.closeErr == "" {
				r.closeErr = res.err.Error()
			}
		}
		if res.deltas > 0 {
			if first.IsZero() || res.firstSent.Before(first) {
				first = res.firstSent
			}
			if res.last.After(last) {
				last = res.last
			}
		}
		r.latencies = append(r.latencies, res.latencies...)
	}
	r.elapsed = last.Sub(first)
	slices.Sort(r.latencies)
	return r, nil
}

// best runs measure reps times and keeps the run with the median rate (the
// latencies of paced runs are pooled over the repetitions instead).
func best(ctx context.Context, t target, b burst, n, reps int) (run, error) {
	var rs []run
	for range reps {
		r, err := measure(ctx, t, b, n)
		if err != nil {
			return run{}, err
		}
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b run) int {
		switch {
		case a.rate() < b.rate():
			return -1
		case a.rate() > b.rate():
			return 1
		}
		return 0
	})
	m := rs[len(rs)/2]
	if b.rate > 0 {
		m.latencies = nil
		for _, r := range rs {
			m.latencies = append(m.latencies, r.latencies...)
		}
		slices.Sort(m.latencies)
	}
	return m, nil
}

// pct is the p-th percentile (0–100) of sorted ds.
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(ds)-1))
	return ds[i]
}

// commitCost measures the floor of the design's latency: one bbolt commit
// of one small event with fsync, through the store Agent Hub uses, on the
// same file system as its data directory, back to back (every 0) or one
// every interval, into a log that already holds prefill events of another
// session (a commit rewrites a path of the log's tree, so its cost grows
// with the log; the hub's paced runs each start a fresh session in a log
// that holds the runs before). It returns the sorted durations.
func commitCost(dir string, n int, every time.Duration, prefill int) ([]time.Duration, error) {
	db, err := store.Open(dir+"/commit-bench.db", store.Options{})
	if err != nil {
		return nil, err
	}
	defer func() {
		_ = db.Close()
		_ = os.Remove(dir + "/commit-bench.db")
	}()
	// A text delta's record as Agent Hub stores it: the whole envelope, with
	// ULID-wide ids.
	delta := func(session, turn, msg string) store.EventRecord {
		id := ulid.Make()
		data := fmt.Appendf(nil, `{"id":%q,"type":"text.delta","session_id":%q,"turn_id":%q,"ts":%q,"actor":"agent","payload":{"message_id":%q,"content_block_index":0,"text":"1732460000000000000 "}}`,
			id, session, turn, time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"), msg)
		return store.EventRecord{ID: id, SessionID: session, Type: "text.delta", Streaming: true, Data: data, Actor: "agent", Group: msg}
	}
	earlier, turn, msg := ulid.Make().String(), ulid.Make().String(), ulid.Make().String()
	for done := 0; done < prefill; {
		batch := make([]store.EventRecord, 0, min(1024, prefill-done))
		for range cap(batch) {
			batch = append(batch, delta(earlier, turn, msg))
		}
		if err := db.Commit(batch, nil); err != nil {
			return nil, err
		}
		done += len(batch)
	}
	session, turn, msg := ulid.Make().String(), ulid.Make().String(), ulid.Make().String()
	var ds []time.Duration
	next := time.Now()
	for range n {
		if every > 0 { // paced as the latency runs are: the disk idles between commits
			next = next.Add(every)
			time.Sleep(time.Until(next))
		}
		rec := delta(session, turn, msg)
		began := time.Now()
		if err := db.Commit([]store.EventRecord{rec}, nil); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(began))
	}
	slices.Sort(ds)
	return ds, nil
}
