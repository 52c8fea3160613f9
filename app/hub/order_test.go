package hub_test

import (
	"fmt"
	"strings"
	"testing"

	"agenthub/ipc"
)

// The model's order is the log's order: the tool.called events of one
// assistant message are committed in the order of its tool calls, all of
// them before any call's result, however the parallel calls are scheduled.
// Two and five calls, fifty turns each.
func TestToolCalledFollowsTheModelsOrder(t *testing.T) {
	h, s, w := watchedSession(t)
	for _, n := range []int{2, 5} {
		for run := range 50 {
			var calls [][3]string
			var want []string
			for i := range n {
				id := fmt.Sprintf("tu_%d_%d_%d", n, run, i)
				calls = append(calls, [3]string{id, "list_dir", `{"path": "."}`})
				want = append(want, id)
			}
			h.srv.Enqueue(toolReply(calls...), textReply("listed"))
			h.submit(s.ID, "list it")
			start := len(w.got)
			w.turnEnd(s.ID)
			var called []string
			for _, e := range w.got[start:] {
				switch e.Type {
				case ipc.TypeToolCalled:
					var c ipc.ToolCalled
					e.decode(t, &c)
					called = append(called, c.ToolUseID)
				case ipc.TypeToolCompleted, ipc.TypeToolFailed, ipc.TypeToolOutputDelta:
					if len(called) < n {
						t.Fatalf("%d calls, run %d: %s after only %v were called", n, run, e.Type, called)
					}
				}
			}
			if strings.Join(called, " ") != strings.Join(want, " ") {
				t.Fatalf("%d calls, run %d: tool.called in the order %v, the model's is %v", n, run, called, want)
			}
		}
	}
}
