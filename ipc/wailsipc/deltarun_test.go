package wailsipc

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// busDelta is a delta frame exactly as the bus encodes it.
func busDelta(typ string, n int, msg string, block int, text string) []byte {
	q, _ := json.Marshal(text)
	sig := ""
	if typ == "thinking.delta" {
		sig = `,"signature":null`
	}
	return []byte(fmt.Sprintf(`{"type":"event","event":{"id":%q,"type":%q,"session_id":"s1","turn_id":"t1","ts":"2026-11-25T08:00:00.%03dZ","actor":"agent","payload":{"message_id":%q,"content_block_index":%d,"text":%s%s}}}`,
		id(n), typ, n%1000, msg, block, q, sig))
}

type pageEvent struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	TS      string `json:"ts"`
	Payload struct {
		MessageID string `json:"message_id"`
		Block     int    `json:"content_block_index"`
		Text      string `json:"text"`
	} `json:"payload"`
}

func pageEvents(t *testing.T, raw [][]byte) (batches []decoded, evs []pageEvent) {
	t.Helper()
	batches = decodeBatches(t, raw)
	for _, b := range batches {
		for _, f := range b.Frames {
			var fr struct{ Event pageEvent }
			if err := json.Unmarshal(f, &fr); err != nil {
				t.Fatal(err)
			}
			evs = append(evs, fr.Event)
		}
	}
	return batches, evs
}

// Consecutive deltas of one block in one batch travel as one frame: the
// joined text, the last delta's id and ts; anything between them, another
// block or message, a thinking delta's signature, or a field the merge
// would lose ends the run.
func TestBatcherJoinsDeltaRuns(t *testing.T) {
	b := newBatcher(FlushInterval, BatchBytes)
	now := time.Unix(1000, 0)
	add := func(data []byte, eventID string) { b.add("s", eventID, data, now) }
	add(busDelta("text.delta", 1, "m1", 0, "Hel"), id(1))
	add(busDelta("text.delta", 2, "m1", 0, "lo <b>&"), id(2))
	add(busDelta("text.delta", 3, "m1", 0, " world\n"), id(3))
	add(busDelta("text.delta", 4, "m1", 1, "other block"), id(4))
	add([]byte(`{"type":"event","event":{"id":"`+id(5)+`","type":"tool.use_start","payload":{}}}`), id(5))
	add(busDelta("text.delta", 6, "m1", 1, "after"), id(6))
	add(busDelta("thinking.delta", 7, "m2", 0, "think "), id(7))
	add(busDelta("thinking.delta", 8, "m2", 0, "more"), id(8))
	signed := strings.Replace(string(busDelta("thinking.delta", 9, "m2", 0, "")), `"signature":null`, `"signature":"sig"`, 1)
	add([]byte(signed), id(9))
	extra := strings.Replace(string(busDelta("text.delta", 10, "m3", 0, "x")), `"text":"x"`, `"text":"x","lang":"en"`, 1)
	add([]byte(extra), id(10))
	add(busDelta("text.delta", 11, "m3", 0, "y"), id(11))
	batches, evs := pageEvents(t, [][]byte{b.flush("s")})
	want := []struct{ id, text string }{
		{id(3), "Hello <b>& world\n"}, {id(4), "other block"}, {id(5), ""}, {id(6), "after"},
		{id(8), "think more"}, {id(9), ""}, {id(10), "x"}, {id(11), "y"},
	}
	if len(evs) != len(want) {
		t.Fatalf("%d frames, want %d: %+v", len(evs), len(want), evs)
	}
	for i, w := range want {
		if evs[i].ID != w.id || evs[i].Payload.Text != w.text {
			t.Errorf("frame %d: id %s text %q, want %s %q", i, evs[i].ID, evs[i].Payload.Text, w.id, w.text)
		}
	}
	if evs[0].TS != "2026-11-25T08:00:00.003Z" {
		t.Errorf("joined frame ts %s is not the last delta's", evs[0].TS)
	}
	if got := batches[0]; *got.FirstEventID != id(3) || *got.LastEventID != id(11) {
		t.Errorf("batch ids %s..%s, want the frames' %s..%s", *got.FirstEventID, *got.LastEventID, id(3), id(11))
	}
	if strings.Contains(string(batches[0].Frames[0]), "<b>") {
		t.Error("a joined frame is not HTML-escaped as the page expects")
	}
}

// Joined runs keep every batch within its size bound (the batcher's size
// accounting stays exact as texts are joined) and the texts in order.
func TestBatcherDeltaRunsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	b := newBatcher(FlushInterval, BatchBytes)
	now := time.Unix(1000, 0)
	var sent strings.Builder
	var got strings.Builder
	last := ""
	check := func(raw [][]byte) {
		for i, r := range raw {
			batches, evs := pageEvents(t, [][]byte{r})
			if bt := batches[0]; bt.size > BatchBytes && len(bt.Frames) > 1 {
				t.Fatalf("batch %d: %d bytes", i, bt.size)
			}
			for _, e := range evs {
				if e.ID <= last {
					t.Fatalf("frame id %s after %s", e.ID, last)
				}
				last = e.ID
				got.WriteString(e.Payload.Text)
			}
		}
	}
	alphabet := []string{"a", "é", "<", "&", "\"", "\n", "\u2028", "word ", "😀"}
	for i := range 20000 {
		now = now.Add(time.Duration(rng.IntN(3)) * time.Millisecond / 4)
		for at, ok := b.deadline(); ok && !at.After(now); at, ok = b.deadline() {
			check(b.due(at))
		}
		var text strings.Builder
		for range rng.IntN(12) {
			text.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		sent.WriteString(text.String())
		check(b.add("s", id(i+1), busDelta("text.delta", i+1, "m1", 0, text.String()), now))
	}
	for at, ok := b.deadline(); ok; at, ok = b.deadline() {
		check(b.due(at))
	}
	if got.String() != sent.String() {
		t.Fatalf("page text (%d bytes) differs from the deltas sent (%d bytes)", got.Len(), sent.Len())
	}
}

// The window path's cost per delta in the coalescer: one burst of small
// text deltas joined into runs (go test -run '^$' -bench DeltaRun ./ipc/wailsipc/).
func BenchmarkBatcherDeltaRun(b *testing.B) {
	frames := make([][]byte, 1000)
	for i := range frames {
		frames[i] = busDelta("text.delta", i+1, "m1", 0, "1780000000000000000 ")
	}
	bt := newBatcher(FlushInterval, BatchBytes)
	now := time.Unix(1000, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		_ = bt.add("s", id(i%1000+1), frames[i%1000], now)
		if i%1000 == 999 {
			bt.flush("s")
		}
	}
}
