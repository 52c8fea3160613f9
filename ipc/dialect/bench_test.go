//go:build unix

package dialect

import (
	"encoding/json"
	"sync"
	"syscall"
	"testing"
	"time"

	"agenthub/ipc"
)

// BenchmarkFanout10 is ipc's fan-out benchmark in the dialects: one
// emitter, ten subscribers of one session each receiving every event in
// a seed dialect (each decodes nothing — the publisher hands them the
// draft's value — and the event-only frames are encoded once per dialect,
// sharedframes.go). It reports the process's CPU per event, which moves
// with other load much less than the throughput does.
func BenchmarkFanout10(b *testing.B) {
	for _, d := range []string{Seed002, Seed004} {
		b.Run("dialect="+d, func(b *testing.B) {
			bus, _ := newTestBus(b, ipc.Options{ClientQueue: b.N + 16})
			mkSession(b, bus, "s", "")
			var wg sync.WaitGroup
			for range 10 {
				s := subscribe(b, bus, ipc.SubscribeRequest{SessionID: "s", Filter: json.RawMessage(`"preset:chat"`), Dialect: d})
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
			var ru0 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			b.ResetTimer()
			for range b.N {
				if err := bus.Emit(delta("s", "m", "hello world ")); err != nil {
					b.Fatal(err)
				}
			}
			wg.Wait()
			b.StopTimer()
			var ru syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/event")
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
