package hub

import (
	"runtime/debug"
	"time"
)

// settleRelease is how long after the last turn ends the heap is handed
// back a second time: the transports are still draining the burst then
// (a window that fell behind reads the rest back from the log).
const settleRelease = 2 * time.Second

// releaseMemory runs when the last running turn has ended: it returns to
// the OS the heap a burst grew to, now and once more after settleRelease
// if no turn started meanwhile. A 100k-delta message peaks at tens of MB
// of which a few stay live; with GOGC at 200 the runtime would keep about
// three times the live heap, and the rest for minutes.
func (h *Hub) releaseMemory() {
	debug.FreeOSMemory()
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
			debug.FreeOSMemory()
		}
	})
}
