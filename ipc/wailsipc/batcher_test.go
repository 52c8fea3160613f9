package wailsipc

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// decoded is a Batch as the page sees it.
type decoded struct {
	Batch
	size int
}

func decodeBatches(t *testing.T, raw [][]byte) []decoded {
	t.Helper()
	out := make([]decoded, 0, len(raw))
	for _, r := range raw {
		var b Batch
		if err := json.Unmarshal(r, &b); err != nil {
			t.Fatalf("batch %s is not JSON: %v", r, err)
		}
		out = append(out, decoded{b, len(r)})
	}
	return out
}

func eventFrame(id string, pad int) []byte {
	return []byte(fmt.Sprintf(`{"type":"event","event":{"id":%q,"type":"text.delta","payload":{"text":%q}}}`, id, strings.Repeat("x", pad)))
}

func id(i int) string { return fmt.Sprintf("01J%023d", i) }

func TestBatcherWaitsAtMostMaxDelay(t *testing.T) {
	b := newBatcher(FlushInterval, BatchBytes)
	t0 := time.Unix(1000, 0)
	for i := range 5 {
		if out := b.add("s1", id(i), eventFrame(id(i), 10), t0.Add(time.Duration(i)*time.Millisecond)); len(out) != 0 {
			t.Fatalf("emitted early: %s", out)
		}
	}
	if at, ok := b.deadline(); !ok || !at.Equal(t0.Add(FlushInterval)) {
		t.Fatalf("deadline %v %v", at, ok)
	}
	if out := b.due(t0.Add(FlushInterval - time.Nanosecond)); len(out) != 0 {
		t.Fatal("emitted before the interval")
	}
	got := decodeBatches(t, b.due(t0.Add(FlushInterval)))
	if len(got) != 1 || len(got[0].Frames) != 5 || *got[0].FirstEventID != id(0) || *got[0].LastEventID != id(4) || got[0].SubscriptionID != "s1" {
		t.Fatalf("got %+v", got)
	}
	for i, f := range got[0].Frames {
		if string(f) != string(eventFrame(id(i), 10)) {
			t.Fatalf("frame %d = %s", i, f)
		}
	}
	if _, ok := b.deadline(); ok {
		t.Fatal("still pending after flush")
	}
}

func TestBatcherSizeBoundAndOrder(t *testing.T) {
	b := newBatcher(FlushInterval, BatchBytes)
	t0 := time.Unix(1000, 0)
	var raw [][]byte
	const n = 200
	for i := range n {
		raw = append(raw, b.add("s1", id(i), eventFrame(id(i), 1000), t0)...)
	}
	raw = append(raw, b.due(t0.Add(time.Hour))...)
	got := decodeBatches(t, raw)
	if len(got) < 2 {
		t.Fatalf("200 KB went out in %d batches", len(got))
	}
	next := 0
	for _, bt := range got {
		if bt.size > BatchBytes {
			t.Fatalf("batch of %d bytes > %d", bt.size, BatchBytes)
		}
		if *bt.FirstEventID != id(next) || *bt.LastEventID != id(next+len(bt.Frames)-1) {
			t.Fatalf("ids %s..%s, want from %s", *bt.FirstEventID, *bt.LastEventID, id(next))
		}
		for _, f := range bt.Frames {
			if string(f) != string(eventFrame(id(next), 1000)) {
				t.Fatalf("frame out of order at %d", next)
			}
			next++
		}
	}
	if next != n {
		t.Fatalf("%d frames delivered, want %d", next, n)
	}
}

func TestBatcherLargeFrameAloneAndChunked(t *testing.T) {
	b := newBatcher(FlushInterval, BatchBytes)
	t0 := time.Unix(1000, 0)
	small := eventFrame(id(1), 10)
	mid := eventFrame(id(2), 40<<10) // > BatchBytes, < MaxEmitBytes
	// > MaxEmitBytes, with characters that grow when escaped.
	hugeText := strings.Repeat(`<b>"q"</b> & ünïcødé \ `, 20000)
	hugeJSON, _ := json.Marshal(map[string]any{"type": "snapshot", "messages": []string{hugeText}})
	var raw [][]byte
	raw = append(raw, b.add("s1", id(1), small, t0)...)
	raw = append(raw, b.add("s1", id(2), mid, t0)...)
	raw = append(raw, b.add("s1", "", hugeJSON, t0)...)
	raw = append(raw, b.add("s1", id(3), small, t0)...)
	raw = append(raw, b.due(t0.Add(FlushInterval))...)
	got := decodeBatches(t, raw)
	if string(got[0].Frames[0]) != string(small) || len(got[0].Frames) != 1 {
		t.Fatalf("pending small frame not flushed first: %+v", got[0])
	}
	if len(got[1].Frames) != 1 || string(got[1].Frames[0]) != string(mid) {
		t.Fatal("mid-size frame not alone")
	}
	var sb strings.Builder
	i := 2
	for ; got[i].Chunk != nil; i++ {
		c := got[i].Chunk
		if c.Index != i-2 || len(got[i].Frames) != 0 || got[i].FirstEventID != nil {
			t.Fatalf("chunk %d: %+v", i-2, got[i].Batch)
		}
		if got[i].size > MaxEmitBytes {
			t.Fatalf("chunk batch of %d bytes", got[i].size)
		}
		sb.WriteString(c.Data)
	}
	if got[2].Chunk.Count != i-2 || i-2 < 2 {
		t.Fatalf("count %d, chunks %d", got[2].Chunk.Count, i-2)
	}
	var back map[string]any
	if err := json.Unmarshal([]byte(sb.String()), &back); err != nil || back["messages"].([]any)[0] != hugeText {
		t.Fatalf("reassembled frame differs: %v", err)
	}
	if *got[i].FirstEventID != id(3) || i+1 != len(got) {
		t.Fatal("frame after the chunks lost")
	}
	for _, bt := range got {
		if bt.size > MaxEmitBytes {
			t.Fatalf("batch of %d bytes", bt.size)
		}
	}
}

func TestBatcherSubscriptionsSeparateAndDrop(t *testing.T) {
	b := newBatcher(FlushInterval, BatchBytes)
	t0 := time.Unix(1000, 0)
	b.add("a", id(1), eventFrame(id(1), 1), t0)
	b.add("b", id(2), eventFrame(id(2), 1), t0.Add(time.Millisecond))
	b.add("a", "", []byte(`{"type":"snapshot","session":{}}`), t0.Add(2*time.Millisecond))
	b.add("c", "", []byte(`{"type":"snapshot"}`), t0.Add(3*time.Millisecond))
	b.drop("b")
	got := decodeBatches(t, b.due(t0.Add(FlushInterval)))
	if len(got) != 1 || got[0].SubscriptionID != "a" || len(got[0].Frames) != 2 || *got[0].LastEventID != id(1) {
		t.Fatalf("got %+v", got)
	}
	got = decodeBatches(t, b.due(t0.Add(time.Hour)))
	if len(got) != 1 || got[0].SubscriptionID != "c" || got[0].FirstEventID != nil || got[0].LastEventID != nil {
		t.Fatalf("got %+v", got)
	}
}

// TestBatcherRandomInvariants drives the batcher with random frame sizes and
// arrival times, calling due every millisecond as the coalescer's timer
// would: every frame arrives once, in order, within FlushInterval, and every
// emit respects the size bounds.
func TestBatcherRandomInvariants(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	b := newBatcher(FlushInterval, BatchBytes)
	t0 := time.Unix(1000, 0)
	type sent struct {
		at   time.Time
		data string
	}
	var frames []sent
	next := 0
	check := func(now time.Time, raw [][]byte) {
		for _, bt := range decodeBatches(t, raw) {
			if bt.size > MaxEmitBytes || (len(bt.Frames) > 1 && bt.size > BatchBytes) {
				t.Fatalf("batch of %d bytes with %d frames", bt.size, len(bt.Frames))
			}
			if bt.Chunk != nil {
				t.Fatal("unexpected chunk")
			}
			for _, f := range bt.Frames {
				if string(f) != frames[next].data {
					t.Fatalf("frame %d out of order", next)
				}
				if now.Sub(frames[next].at) > FlushInterval {
					t.Fatalf("frame %d waited %v", next, now.Sub(frames[next].at))
				}
				next++
			}
		}
	}
	now := t0
	for i := range 5000 {
		now = now.Add(time.Duration(rng.IntN(3)) * time.Millisecond / 2)
		// The coalescer's timer fires at each deadline.
		for at, ok := b.deadline(); ok && !at.After(now); at, ok = b.deadline() {
			check(at, b.due(at))
		}
		size := rng.IntN(300)
		if rng.IntN(100) == 0 {
			size = 20000 + rng.IntN(30000)
		}
		f := eventFrame(id(i), size)
		frames = append(frames, sent{now, string(f)})
		check(now, b.add("s", id(i), f, now))
	}
	for at, ok := b.deadline(); ok; at, ok = b.deadline() {
		check(at, b.due(at))
	}
	if next != len(frames) {
		t.Fatalf("%d of %d frames emitted", next, len(frames))
	}
}
