package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"agenthub/app/apptest"
	"agenthub/gateway/natsroute/natstest"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// natsServerVersion is the embedded nats-server's release.
const natsServerVersion = server.VERSION

// A fleet (issue 38): three `agenthub gateway --nats` processes on an
// embedded 3-node NATS cluster (natstest, in this process), the hub of the
// section connected to instance 1. One reader on the hub's own instance
// (same-instance: the fleet's local path) against one on instance 2
// (cross-instance: every frame a NATS request between two nodes, routed
// through the hub's lane), many readers spread over the three instances,
// and the floor: NATS itself between the same two nodes, one-way
// publish → subscribe and the request → reply a lane waits for.

// fleetRuns is the fleet section's plan and figures.
type fleetRuns struct {
	paced, readersBurst burst
	readers             int
	same, cross, many   run
	floorPub, floorReq  []time.Duration
}

// floorPayload is the size of the floor's messages: about one delta's
// RoutedMessage as it crosses between instances.
const floorPayload = 400

func measureFleet(ctx context.Context, bin, upstream, root string, prov *provider, quick bool) (*fleetRuns, error) {
	f := &fleetRuns{paced: burst{n: 5000, rate: 1000}, readers: 1000, readersBurst: burst{n: 200}}
	if quick {
		f.paced, f.readers, f.readersBurst = burst{n: 500, rate: 1000}, 30, burst{n: 100}
	}
	cl, err := natstest.Start(ctx, filepath.Join(root, "nats"), 3)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	var urls []string
	for i := range 3 {
		p, m, err := startProc(ctx, gatewayLine, apptest.Env(), bin, "gateway", "--listen", "127.0.0.1:0", "--websocket-only", "--nats", cl.URL(i))
		if err != nil {
			return nil, fmt.Errorf("fleet instance %d: %w", i+1, err)
		}
		defer p.stop()
		urls = append(urls, m[1])
	}
	hub, err := startHubWith(ctx, bin, upstream, filepath.Join(root, "fleet-hub"), prov, "--gateway", urls[0])
	if err != nil {
		return nil, err
	}
	defer hub.stop()
	same := &gwTarget{hub: hub, url: urls[0], label: "fleet: reader on the hub's instance", prefix: "same-"}
	cross := &gwTarget{hub: hub, url: urls[1], label: "fleet: reader on another instance (over NATS)", prefix: "cross-"}
	many := &gwTarget{hub: hub, spread: urls, label: "fleet: readers over 3 instances", prefix: "many-", buffer: 1024}
	defer same.closeDevices()
	defer cross.closeDevices()
	defer many.closeDevices()
	for _, s := range []struct {
		t   *gwTarget
		b   burst
		n   int
		out *run
	}{{same, f.paced, 1, &f.same}, {cross, f.paced, 1, &f.cross}, {many, f.readersBurst, f.readers, &f.many}} {
		slog.Info("bench: fleet", "target", s.t.name(), "deltas", s.b.n, "rate", s.b.rate, "clients", s.n)
		r, err := measure(ctx, s.t, s.b, s.n)
		if err != nil {
			return nil, err
		}
		*s.out = r
	}
	if f.floorPub, err = natsFloor(ctx, cl, f.paced, false); err != nil {
		return nil, err
	}
	if f.floorReq, err = natsFloor(ctx, cl, f.paced, true); err != nil {
		return nil, err
	}
	return f, nil
}

// natsFloor sends b.n messages at b.rate from a client of node 1 to a
// subscriber on node 2 and returns the sorted latencies: publish → the
// subscriber's callback (the send time travels in the message), or with
// request, request → reply.
func natsFloor(ctx context.Context, cl *natstest.Cluster, b burst, request bool) ([]time.Duration, error) {
	pub, err := nats.Connect(cl.URL(0))
	if err != nil {
		return nil, err
	}
	defer pub.Close()
	sub, err := nats.Connect(cl.URL(1))
	if err != nil {
		return nil, err
	}
	defer sub.Close()
	got := make(chan time.Duration, b.n)
	s, err := sub.Subscribe("bench.floor", func(m *nats.Msg) {
		if m.Reply != "" { // a request (or the warm-up's)
			_ = m.Respond(m.Data[:8])
			return
		}
		got <- time.Since(time.Unix(0, int64(binary.BigEndian.Uint64(m.Data))))
	})
	if err != nil {
		return nil, err
	}
	defer func() { _ = s.Unsubscribe() }()
	if err := sub.Flush(); err != nil {
		return nil, err
	}
	// Until the subscription has crossed the route to node 1.
	for {
		if _, err := pub.Request("bench.floor", make([]byte, 8), time.Second); err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	data := make([]byte, floorPayload)
	every := time.Second / time.Duration(b.rate)
	start := time.Now()
	var out []time.Duration
	for i := range b.n {
		if d := time.Until(start.Add(time.Duration(i) * every)); d > 0 {
			time.Sleep(d)
		}
		sent := time.Now()
		binary.BigEndian.PutUint64(data, uint64(sent.UnixNano()))
		if request {
			if _, err := pub.RequestWithContext(ctx, "bench.floor", data); err != nil {
				return nil, err
			}
			out = append(out, time.Since(sent))
		} else if err := pub.Publish("bench.floor", data); err != nil {
			return nil, err
		}
	}
	for len(out) < b.n && !request {
		select {
		case d := <-got:
			out = append(out, d)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	slices.Sort(out)
	return out, nil
}

// write appends the fleet section to the gateway page.
func (f *fleetRuns) write(w *strings.Builder) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("")
	p("## A fleet: three gateways over NATS (%d deltas at %d/s, 1 reader)", f.paced.n, f.paced.rate)
	p("")
	p("Three `agenthub gateway --websocket-only --nats` processes, each on its own node of a 3-node NATS")
	p("cluster (nats-server %s embedded in the bench process, loopback), a third hub process linked to", natsServerVersion)
	p("instance 1. Same-instance: the reader is on instance 1 (the fleet's local path, no NATS);")
	p("cross-instance: the reader is on instance 2, so every frame is a NATS request from node 1 to node 2")
	p("on the hub's lane, acknowledged before the next. The floors are NATS alone between the same two")
	p("nodes, %d-byte messages at the same rate: publish → subscribe, and request → reply (a lane's", floorPayload)
	p("round trip).")
	p("")
	p("| path | p50 | p99 | max | delivered |")
	p("|---|---|---|---|---|")
	for _, r := range []run{f.same, f.cross} {
		p("| %s | %s | %s | %s | %.1f %% |", r.target, ms(pct(r.latencies, 50)), ms(pct(r.latencies, 99)), ms(pct(r.latencies, 100)), r.deliveredPct())
	}
	p("| floor: NATS publish → subscribe, node 1 → node 2 | %s | %s | %s | %d msgs |", ms(pct(f.floorPub, 50)), ms(pct(f.floorPub, 99)), ms(pct(f.floorPub, 100)), len(f.floorPub))
	p("| floor: NATS request → reply, node 1 ↔ node 2 | %s | %s | %s | %d msgs |", ms(pct(f.floorReq, 50)), ms(pct(f.floorReq, 99)), ms(pct(f.floorReq, 100)), len(f.floorReq))
	p("")
	p("Cross-instance minus same-instance: p50 %+.2f ms, p99 %+.2f ms.",
		float64(pct(f.cross.latencies, 50)-pct(f.same.latencies, 50))/1e6, float64(pct(f.cross.latencies, 99)-pct(f.same.latencies, 99))/1e6)
	p("")
	p("### %d readers over the three instances (a %d-delta burst)", f.readers, f.readersBurst.n)
	p("")
	writeReaders(w, f.many)
}
