package hub

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// heapSample reads what releaseFreeHeap decides on, and the forced
// collections so far (debug.FreeOSMemory forces one).
func heapSample(t *testing.T) (held, live, forced uint64) {
	t.Helper()
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/cycles/forced:gc-cycles"},
	}
	metrics.Read(s)
	for _, v := range s {
		if v.Value.Kind() != metrics.KindUint64 {
			t.Fatalf("metric %s unsupported by this runtime", v.Name)
		}
	}
	return s[0].Value.Uint64() + s[1].Value.Uint64(), s[2].Value.Uint64(), s[3].Value.Uint64()
}

var garbage []byte

// A heap holding little beyond its live data is left alone (a forced
// collection would cost more than it gives back); after a burst's garbage
// the heap beyond the live data goes back to the OS at once.
func TestReleaseFreeHeap(t *testing.T) {
	debug.FreeOSMemory() // whatever earlier tests left
	if held, live, _ := heapSample(t); held >= live+releaseAbove {
		t.Fatalf("precondition: a released heap holds %d beyond its live data", held-live)
	}
	_, _, before := heapSample(t)
	releaseFreeHeap()
	if _, _, after := heapSample(t); after != before {
		t.Fatalf("a small heap was collected and released (%d forced collections)", after-before)
	}

	// A burst that outpaces the collector (the hub runs with GOGC 200 and
	// allocates on several goroutines): here the collector is held off.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for range 64 {
		garbage = make([]byte, 1<<20)
	}
	garbage = nil
	held, live, before := heapSample(t)
	if held < live+releaseAbove {
		t.Fatalf("precondition: 64 MB of garbage, yet the heap holds only %d beyond its live data", held-live)
	}
	releaseFreeHeap()
	held, live, after := heapSample(t)
	if after != before+1 || held >= live+releaseAbove {
		t.Fatalf("after the release: %d forced collections, the heap holds %d beyond its live data", after-before, held-live)
	}
}
