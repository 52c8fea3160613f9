// Command bench measures Agent Hub end to end — fake provider stream →
// the real binary → dashboard WebSocket clients — beside floors measured
// in the same run (a bare Go WebSocket push, an SSE → WebSocket relay and,
// for latency, that relay committing each delta with fsync before writing
// it), and regenerates docs/benchmarks.md with PNG charts. `make bench`
// runs it; it is never part of `make test`.
//
// Roles: with no -role it is the driver; -role push|relay|durable makes
// this process one of the floors (the driver starts them).
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	role := flag.String("role", "", "internal: run as a floor (push, relay or durable)")
	upstream := flag.String("upstream", "", "internal: the fake provider's URL (relay, durable)")
	floorData := flag.String("floor-data", "", "internal: the durable floor's data directory")
	bin := flag.String("bin", "build/bin/agenthub-headless", "the Agent Hub headless binary to measure")
	out := flag.String("out", "docs", "where benchmarks.md and the charts go")
	quick := flag.Bool("quick", false, "small sizes (a smoke run of the harness; figures not for quoting)")
	reps := flag.Int("reps", 3, "repetitions of the 5k and 20k bursts (the median is kept)")
	desktop := flag.Bool("desktop", false, "the desktop bench instead (run under xvfb-run): writes benchmarks-desktop.md")
	desktopBin := flag.String("desktop-bin", "build/bin/agenthub-smoketest", "the Agent Hub desktop binary (-desktop)")
	bareBin := flag.String("bare-bin", "build/bin/barewails", "the bare Wails window built with the same toolchain (-desktop)")
	rounds := flag.Int("rounds", 5, "launches of each window (-desktop)")
	windowDeltas := flag.Int("window-deltas", 100000, "deltas of the burst streamed into the window (-desktop)")
	only := flag.Int("only", 0, "just send bursts of this many deltas through Agent Hub to one client, print each run's figures and write no report (for profiling: perf record -p the hub's pid)")
	sameSession := flag.Bool("same-session", false, "with -only: every run in the same session (a long conversation)")
	clients := flag.Int("clients", 1, "with -only: this many reading clients")
	rate := flag.Int("rate", 0, "with -only: pace the fake at this many deltas/s and print latency percentiles (a latency probe)")
	peer := flag.String("peer", "", "also measure a peer the same way, as a report row (opencode: npm opencode-ai)")
	gatewayOnly := flag.Bool("gateway", false, "just the gateway section: writes benchmarks-gateway.md (make bench-gateway)")
	searchN := flag.Int("search", 0, "just the search bench: seed this many messages, start the binary on them, time GET /search beside GET /api/info (prints a table)")
	flag.Parse()
	if *role != "" {
		if err := runFloor(*role, *upstream, *floorData); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *desktop {
		began := time.Now()
		runs, err := desktopBench(ctx, *desktopBin, *bareBin, *rounds, 5*time.Second)
		var streams []windowRun
		for _, perEvent := range []bool{false, true} {
			if err != nil {
				break
			}
			slog.Info("bench: streaming into the window", "deltas", *windowDeltas, "per_event", perEvent)
			var r windowRun
			if r, err = windowStream(ctx, *desktopBin, *windowDeltas, perEvent, 5*time.Second); err == nil {
				streams = append(streams, r)
			}
		}
		if err == nil {
			err = writeDesktop(*out, runs, streams, began, *rounds)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *searchN > 0 {
		if err := searchBench(ctx, *bin, *searchN, 200); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *gatewayOnly {
		if err := driveGateway(ctx, *bin, *out, *quick); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if *only > 0 {
		if err := profileRuns(ctx, *bin, burst{n: *only, rate: *rate}, *reps, *clients, *sameSession); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := drive(ctx, *bin, *out, *quick, *reps, *peer); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// plan is the set of measurements.
type plan struct {
	bursts  []int // unpaced burst sizes (1 and 10 clients)
	paced   burst // the paced run (1 and 10 clients)
	commits int
}

func drive(ctx context.Context, bin, out string, quick bool, reps int, peer string) error {
	p := plan{bursts: []int{5000, 20000, 100000}, paced: burst{n: 5000, rate: 1000}, commits: 300}
	if quick {
		p = plan{bursts: []int{1000, 4000}, paced: burst{n: 500, rate: 1000}, commits: 30}
		reps = 1
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("the binary to measure: %w (make headless builds it)", err)
	}
	root, prov, upstream, stop, err := scratch()
	if err != nil {
		return err
	}
	defer stop()

	push, err := startFloor(ctx, "push", upstream, "", prov)
	if err != nil {
		return err
	}
	defer push.stop()
	relay, err := startFloor(ctx, "relay", upstream, "", prov)
	if err != nil {
		return err
	}
	defer relay.stop()
	durable, err := startFloor(ctx, "durable", upstream, filepath.Join(root, "durable"), prov)
	if err != nil {
		return err
	}
	defer durable.stop()
	hubBegan := time.Now()
	hub, err := startHub(ctx, bin, upstream, filepath.Join(root, "hub"), prov)
	if err != nil {
		return err
	}
	hubReady := time.Since(hubBegan)
	defer hub.stop()
	targets := []target{push, relay, hub}

	rep := &report{began: time.Now(), plan: p, quick: quick, reps: reps, hubReady: hubReady, runs: map[runKey]run{}, idleRSS: map[string]int64{}, rss100k: map[string]int64{}}
	for _, t := range targets {
		rep.idleRSS[t.name()] = rss(t.pid())
	}
	// The hub's log holds 0 events when its first paced run starts and one
	// paced run's more when its second does: the floor's log holds one
	// paced run's events of another session.
	slog.Info("bench: commit with fsync", "n", p.commits, "log", p.paced.n)
	if rep.commits, err = commitCost(filepath.Join(root, "hub"), p.commits, 0, p.paced.n); err != nil {
		return fmt.Errorf("commit cost: %w", err)
	}
	slog.Info("bench: commit with fsync, paced", "n", p.commits, "rate", p.paced.rate)
	if rep.pacedCommits, err = commitCost(filepath.Join(root, "hub"), p.commits, time.Second/time.Duration(p.paced.rate), p.paced.n); err != nil {
		return fmt.Errorf("commit cost: %w", err)
	}
	if err := rep.measure(ctx, targets, durable, p, reps); err != nil {
		return err
	}
	if peer != "" {
		slog.Info("bench: peer", "peer", peer)
		if err := rep.measurePeer(ctx, peer, upstream, root, prov, p); err != nil {
			return err
		}
	}
	slog.Info("bench: the gateway section")
	gw, err := measureGateway(ctx, bin, upstream, root, prov, hub, quick)
	if err != nil {
		return fmt.Errorf("gateway: %w", err)
	}
	if err := gw.write(out, quick); err != nil {
		return err
	}
	rep.ended = time.Now()
	rep.names = [3]string{push.name(), relay.name(), hub.name()}
	rep.durable = durable.name()
	return rep.write(out)
}

// measure runs the paced runs of plan p on every target and on the
// durable floor (a latency floor only), then the bursts on every target
// (at the largest size once; smaller one-client ones reps times).
func (rep *report) measure(ctx context.Context, targets []target, durable target, p plan, reps int) error {
	for _, n := range []int{1, 10} {
		for _, t := range append(targets[:len(targets):len(targets)], durable) {
			slog.Info("bench: paced", "target", t.name(), "clients", n, "deltas", p.paced.n, "rate", p.paced.rate)
			r, err := best(ctx, t, p.paced, n, 1)
			if err != nil {
				return err
			}
			rep.runs[key(r)] = r
		}
	}
	for _, size := range p.bursts {
		for _, n := range []int{1, 10} {
			rr := reps
			if size >= 100000 || n > 1 {
				rr = 1
			}
			for _, t := range targets {
				slog.Info("bench: burst", "target", t.name(), "clients", n, "deltas", size, "reps", rr)
				r, err := best(ctx, t, burst{n: size}, n, rr)
				if err != nil {
					return err
				}
				rep.runs[key(r)] = r
				if n == 1 && size == p.bursts[len(p.bursts)-1] {
					rep.rss100k[t.name()] = rss(t.pid())
				}
			}
		}
	}
	return nil
}

// scratch is what a measurement runs in: a scratch folder (root) and the
// fake provider at upstream; stop ends the provider and removes the folder.
func scratch() (root string, prov *provider, upstream string, stop func(), err error) {
	root, err = os.MkdirTemp("", "agenthub-bench-")
	if err != nil {
		return "", nil, "", nil, err
	}
	prov, upstream, stopProv, err := serveProvider()
	if err != nil {
		_ = os.RemoveAll(root)
		return "", nil, "", nil, err
	}
	return root, prov, upstream, func() { stopProv(); _ = os.RemoveAll(root) }, nil
}

// profileRuns sends reps bursts b through Agent Hub alone to the given
// number of clients and prints each run's rate, CPU and latency; nothing is
// written.
func profileRuns(ctx context.Context, bin string, b burst, reps, clients int, sameSession bool) error {
	return withHub(ctx, bin, func(_ string, _ *provider, _ string, hub *hubTarget) error {
		hub.sameSession = sameSession
		fmt.Printf("hub pid %d\n", hub.pid())
		for i := range reps {
			r, err := measure(ctx, hub, b, clients)
			if err != nil {
				return err
			}
			if reps <= 20 || i%(reps/20) == 0 || i == reps-1 {
				fmt.Printf("run %d: %d deltas (%d delivered), %.0f deltas/s, %s CPU per 1k, p50 %s, p99 %s, max %s, RSS %s\n", i, b.n, r.delivered, r.rate(), ms(r.cpuPer1k()),
					ms(pct(r.latencies, 50)), ms(pct(r.latencies, 99)), ms(pct(r.latencies, 100)), mb(rss(hub.pid())))
			}
		}
		return nil
	})
}

// driveGateway runs the gateway section alone (its own provider and local hub).
func driveGateway(ctx context.Context, bin, out string, quick bool) error {
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("the binary to measure: %w (make headless builds it)", err)
	}
	return withHub(ctx, bin, func(root string, prov *provider, upstream string, hub *hubTarget) error {
		gw, err := measureGateway(ctx, bin, upstream, root, prov, hub, quick)
		if err != nil {
			return err
		}
		return gw.write(out, quick)
	})
}

// withHub runs f in a scratch() with Agent Hub (bin) started in root/hub on
// its provider; both are stopped when f returns.
func withHub(ctx context.Context, bin string, f func(root string, prov *provider, upstream string, hub *hubTarget) error) error {
	root, prov, upstream, stop, err := scratch()
	if err != nil {
		return err
	}
	defer stop()
	hub, err := startHub(ctx, bin, upstream, filepath.Join(root, "hub"), prov)
	if err != nil {
		return err
	}
	defer hub.stop()
	return f(root, prov, upstream, hub)
}
