package llm

import (
	"runtime"
	"testing"

	"agenthub/store"
)

// bytesPerDelta streams n 10-byte deltas into a text and a thinking block
// and returns the bytes allocated per delta.
func bytesPerDelta(n int) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b := newBuilder()
	t := b.add(store.ContentBlock{Type: store.BlockText})
	th := b.add(store.ContentBlock{Type: store.BlockThinking})
	for range n {
		b.appendText(t, "0123456789")
		b.appendThinking(th, "0123456789")
	}
	c := b.content()
	runtime.ReadMemStats(&after)
	if len(c[0].Text) != 10*n || len(c[1].Thinking) != 10*n {
		panic("lost text")
	}
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// TestDeltaCostIsLinear: accumulating a streamed message costs the same per
// delta for a long answer as for a short one (it was quadratic: the whole
// text was copied on every delta).
func TestDeltaCostIsLinear(t *testing.T) {
	short, long := bytesPerDelta(5_000), bytesPerDelta(100_000)
	t.Logf("bytes allocated per delta: %.0f at 5k deltas, %.0f at 100k deltas (%.2fx)", short, long, long/short)
	if long > 2*short { // quadratic would be ~20x
		t.Fatalf("per-delta cost grows with the message: %.0f B at 5k deltas, %.0f B at 100k", short, long)
	}
}
