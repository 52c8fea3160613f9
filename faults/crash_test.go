package faults

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// longReply is a reply of n deltas held at gate after held of them.
func longReply(n, held int, gate *llmtest.Gate) llmtest.Response {
	s := llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 50, Output: 1}).BeginText()
	for i := range n {
		if i == held && gate != nil {
			s.Stall(gate)
		}
		s.TextDelta(fmt.Sprintf("w%d ", i))
	}
	return s.EndBlock().Finish("end_turn", int64(n)).Response()
}

// TestKill9CursorResume kills the binary with SIGKILL mid-stream, round
// after round, each time after a client has read part of the stream. After
// the restart the client resumes from the cursor it holds: the same epoch,
// no cursor_expired, every event after the cursor exactly once and in
// order, ending with the recovery that closes the interrupted turn.
func TestKill9CursorResume(t *testing.T) {
	rounds := scale(4, 50)
	d := newDirs(t)
	llm := llmtest.NewServer(t)
	var sid, epoch string
	var restarts []time.Duration
	received := 0
	for round := range rounds {
		gate := llmtest.NewGate()
		llm.Enqueue(longReply(200, 60+round%40, gate))
		in := start(t, d, llm.URL)
		restarts = append(restarts, in.ready)
		if sid == "" {
			sid = in.session()
		}
		cl, ack := in.attach(sid, "")
		if epoch == "" {
			epoch = ack.Epoch
		} else if ack.Epoch != epoch {
			t.Fatalf("round %d: epoch changed %s → %s across a kill -9", round, epoch, ack.Epoch)
		}
		in.submit(sid, fmt.Sprintf("round %d", round))
		seen := cl.until("the stream up to the gate", func(e event) bool {
			return e.Type == "text.delta" && strings.Contains(string(e.Payload), fmt.Sprintf("w%d ", 59+round%40))
		})
		<-gate.Reached()
		cursor := seen[len(seen)-1].ID
		received += len(seen)
		in.kill9()
		gate.Release()

		in = start(t, d, llm.URL)
		restarts = append(restarts, in.ready)
		cl2, ack2 := in.attach(sid, cursor)
		if ack2.Type != "subscribe_ack" || ack2.Epoch != epoch {
			t.Fatalf("round %d: resume from %s: %+v", round, cursor, ack2)
		}
		after := cl2.until("the interrupted turn's end", turnEnded)
		prev := cursor
		for _, e := range after {
			if e.ID <= prev {
				t.Fatalf("round %d: id %s after %s: duplicate or out of order", round, e.ID, prev)
			}
			prev = e.ID
		}
		received += len(after)
		cl2.close()
		in.kill9() // the next round starts from this state (a second crash in a row is fine too)
	}
	rep.add("kill -9 mid-stream, resume from the client's cursor",
		fmt.Sprintf("%d rounds, %d events received, 0 lost, 0 duplicated, epoch unchanged; restart to ready %s (median), %s (max)",
			rounds, received, median(restarts), maxDur(restarts)))
}
