package hub

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// settleRelease is how long after the last turn ends the heap is handed
// back a second time: the transports are still draining the burst then
// (a window that fell behind reads the rest back from the log).
const settleRelease = 2 * time.Second

// releaseAbove is how much heap beyond the live data is worth a forced
// collection and release: below it the collection costs more than it gives
// back (an ordinary chat turn).
const releaseAbove = 16 << 20

// releaseMemory runs when the last running turn has ended: if the heap
// holds more than releaseAbove beyond its live data, it returns it to the
// OS now, and
// checks once more after settleRelease if no turn started meanwhile. A
// 100k-delta message peaks at tens of MB of which a few stay live; with
// GOGC at 200 the runtime would keep about three times the live heap, and
// the rest for minutes.
func (h *Hub) releaseMemory() {
	releaseFreeHeap()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if h.release != nil {
		h.release.Stop()
	}
	h.release = time.AfterFunc(settleRelease, func() {
		if h.active.Load() == 0 {
			releaseFreeHeap()
		}
	})
}

// releaseFreeHeap collects and returns heap to the OS when what the heap
// holds beyond its live data (garbage and free pages kept) is worth it.
func releaseFreeHeap() {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"}, // live and not yet swept garbage
		{Name: "/memory/classes/heap/free:bytes"},    // free, not returned
		{Name: "/gc/heap/live:bytes"},                // live at the last collection
	}
	metrics.Read(s)
	for _, v := range s {
		if v.Value.Kind() != metrics.KindUint64 {
			debug.FreeOSMemory() // metrics unknown to this runtime: release anyway
			return
		}
	}
	held := s[0].Value.Uint64() + s[1].Value.Uint64()
	if live := s[2].Value.Uint64(); held < live+releaseAbove {
		return
	}
	debug.FreeOSMemory()
}
