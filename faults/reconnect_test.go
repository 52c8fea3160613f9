package faults

import (
	"fmt"
	"math/rand"
	"testing"

	"agenthub/app/llm/llmtest"
)

// TestReconnectStorm drops and re-opens a client's WebSocket again and
// again while turns stream, each time resuming from the last id it holds.
// Its events, concatenated across connections, must equal what a client
// that never disconnected received: no gap, no duplicate, same order.
func TestReconnectStorm(t *testing.T) {
	turns, reconnects := scale(4, 70), 0
	llm := llmtest.NewServer(t)
	for range turns {
		llm.Enqueue(longReply(300, -1, nil))
	}
	in := start(t, newDirs(t), llm.URL)
	sid := in.session()
	control, _ := in.attach(sid, "")
	storm, _ := in.attach(sid, "")
	rng := rand.New(rand.NewSource(7))
	var got []event
	ended, submitted := 0, 1
	in.submit(sid, "turn 0")
	for ended < turns {
		n := 1 + rng.Intn(40)
		evs := storm.until("events between reconnects", func(e event) bool {
			n--
			return n == 0 || turnEnded(e)
		})
		got = append(got, evs...)
		if last := evs[len(evs)-1]; turnEnded(last) {
			ended++
			if submitted < turns {
				in.submit(sid, fmt.Sprintf("turn %d", submitted))
				submitted++
			}
		}
		storm.close()
		cursor := got[len(got)-1].ID
		var ack frame
		storm, ack = in.attach(sid, cursor)
		if ack.Type != "subscribe_ack" {
			t.Fatalf("reconnect %d from %s: %+v", reconnects, cursor, ack)
		}
		reconnects++
	}
	ends := 0
	want := control.until("every turn's end", func(e event) bool {
		if turnEnded(e) {
			ends++
		}
		return ends == turns
	})
	if len(got) != len(want) {
		t.Fatalf("after %d reconnects: %d events, the steady client has %d", reconnects, len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID {
			t.Fatalf("event %d: %s (%s), want %s (%s): gap, duplicate or reorder", i, got[i].ID, got[i].Type, want[i].ID, want[i].Type)
		}
	}
	rep.add("reconnect storm mid-stream (resume from the last id)",
		fmt.Sprintf("%d reconnects over %d turns, %d events: 0 gaps, 0 duplicates, same order as a steady client", reconnects, turns, len(got)))
}
