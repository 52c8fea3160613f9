package dashboard_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"agenthub/ipc"
)

// BenchmarkStreamLatency measures emit → WebSocket client latency: one
// text.delta per millisecond (1,000 deltas/s) through Bus.Emit, the durable
// group commit, the broker and the dashboard stream, to 10 subscribed
// clients on loopback. Each delta carries its emit time; p50/p99 over every
// (event, client) pair are reported. Run with -benchtime Nx for N deltas.
func BenchmarkStreamLatency(b *testing.B) {
	const clients = 10
	f := newFixture(b, ipc.Options{})
	id := f.session()
	var wg sync.WaitGroup
	lat := make([][]time.Duration, clients)
	for i := range clients {
		c := f.mustDial(id)
		send(b, c, `{"type":"subscribe","filter":{"event_types":["text.delta","turn.completed"]},"since":null,"snapshot":false}`)
		if a := recv(b, c); a.Type != "subscribe_ack" {
			b.Fatalf("ack %s", a.raw)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			for {
				_, data, err := c.Read(ctx)
				if err != nil {
					b.Errorf("client %d: %v", i, err)
					return
				}
				now := time.Now()
				var fr struct {
					Event struct {
						Type    string
						Payload struct{ Text string }
					}
				}
				_ = json.Unmarshal(data, &fr)
				if fr.Event.Type == ipc.TypeTurnCompleted {
					return
				}
				ns, err := strconv.ParseInt(fr.Event.Payload.Text, 10, 64)
				if err == nil {
					lat[i] = append(lat[i], now.Sub(time.Unix(0, ns)))
				}
			}
		}()
	}
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	b.ResetTimer()
	for range b.N {
		<-tick.C
		if err := f.bus.Emit(ipc.Draft{Type: ipc.TypeTextDelta, SessionID: id, TurnID: "t1", Actor: ipc.ActorAgent,
			Payload: ipc.TextDelta{MessageID: "m1", Text: strconv.FormatInt(time.Now().UnixNano(), 10)}}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := f.bus.Commit(context.Background(), ipc.Draft{Type: ipc.TypeTurnCompleted, SessionID: id, TurnID: "t1", Actor: ipc.ActorAgent,
		Payload: ipc.TurnCompleted{Status: ipc.TurnStatusCompleted}}); err != nil {
		b.Fatal(err)
	}
	wg.Wait()
	b.StopTimer()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	if len(all) != clients*b.N {
		b.Fatalf("%d latencies, want %d", len(all), clients*b.N)
	}
	slices.Sort(all)
	b.ReportMetric(float64(all[len(all)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds()), "p99-µs")
	b.ReportMetric(float64(all[len(all)-1].Microseconds()), "max-µs")
}
