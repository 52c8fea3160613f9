package ipc

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"agenthub/store"
)

func benchBus(b *testing.B, noSync bool, opts Options) *Bus {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "hub.db"), store.Options{NoSync: noSync})
	if err != nil {
		b.Fatal(err)
	}
	opts.PruneInterval = -1
	bus, err := NewBus(BoltStore(db), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = bus.Close(); _ = db.Close() })
	mkSession(b, bus, "s", "")
	return bus
}

// Durable (fsync'd) appends from many concurrent emitters; group commit.
func BenchmarkDurableAppend(b *testing.B) {
	b.Run("fsync=true", func(b *testing.B) { benchAppend(b, true) })
	b.Run("fsync=false", func(b *testing.B) { benchAppend(b, false) })
}

func benchAppend(b *testing.B, durable bool) {
	bus := benchBus(b, !durable, Options{})
	b.SetParallelism(16)
	b.ResetTimer()
	cpu0 := cpuTime()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := bus.Emit(delta("s", "m", "hello world ")); err != nil {
				b.Error(err)
			}
		}
	})
	// Every emitted event is durable once this commit (queued after them) returns.
	if _, err := bus.Commit(context.Background(), delta("s", "m", "end")); err != nil {
		b.Fatal(err)
	}
	reportEmitRates(b, bus, cpu0)
}

// reportEmitRates stops b's timer and reports the events emitted per second,
// the process's CPU per event since cpu0 and the events per bus commit.
func reportEmitRates(b *testing.B, bus *Bus, cpu0 time.Duration) {
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/event")
	c, e := bus.Stats()
	b.ReportMetric(float64(e)/float64(c), "events/commit")
}

// Fan-out: one emitter, 10 subscribers each receiving every event.
// Ten subscribers of one session, canonical: the frame encoded once, the
// bytes shared (the dialects' fan-out: ipc/dialect's BenchmarkFanout10).
func BenchmarkFanout10(b *testing.B) {
	for _, durable := range []bool{false, true} {
		b.Run(fmt.Sprintf("fsync=%v", durable), func(b *testing.B) {
			bus := benchBus(b, !durable, Options{ClientQueue: b.N + 16})
			var wg sync.WaitGroup
			for range 10 {
				s := subscribe(b, bus, SubscribeRequest{SessionID: "s", Filter: raw(`"preset:chat"`)})
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range b.N {
						if _, ok := <-s.Frames(); !ok {
							b.Error("subscription ended:", s.Err())
							return
						}
					}
				}()
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for range b.N {
				if err := bus.Emit(delta("s", "m", "hello world ")); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
			reportEmitRates(b, bus, cpu0)
		})
	}
}

// Replay of 10,000 events from a cursor (subscribe → last replayed frame).
func BenchmarkReplay10k(b *testing.B) {
	bus := benchBus(b, true, Options{})
	ctx := context.Background()
	first, _ := bus.Commit(ctx, delta("s", "m", "start"))
	commitDeltas(b, bus, 10, 1000, "some streamed text ")
	c := first[0].ID.String()
	b.ResetTimer()
	for range b.N {
		s, err := bus.Subscribe(ctx, SubscribeRequest{SessionID: "s", Since: &c, Filter: raw(`"preset:chat"`)})
		if err != nil {
			b.Fatal(err)
		}
		for range 10000 {
			<-s.Frames()
		}
		s.Close()
	}
}

// Snapshot of a session holding 100,000 messages (subscribe → snapshot frame).
func BenchmarkSnapshot100kMessages(b *testing.B) {
	bus := benchBus(b, true, Options{})
	ctx := context.Background()
	for i := 0; i < 100_000; i += 5000 {
		ops := make([]store.Op, 5000)
		for j := range ops {
			ops[j] = store.PutMessage(store.Message{ID: fmt.Sprintf("m%06d", i+j), SessionID: "s", Role: store.RoleAssistant,
				Status: store.StatusComplete, Content: []store.ContentBlock{{Type: store.BlockText, Text: "a typical reply of moderate length, repeated"}}})
		}
		if _, err := bus.Commit(ctx, Draft{Type: TypeToolCalled, SessionID: "s", Actor: ActorAgent, Ops: ops}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		s, err := bus.Subscribe(ctx, SubscribeRequest{SessionID: "s", Snapshot: true})
		if err != nil {
			b.Fatal(err)
		}
		<-s.Frames()
		s.Close()
	}
}
