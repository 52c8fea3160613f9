//go:build unix

package hub_test

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"syscall"
	"testing"

	"agenthub/ipc"
	"agenthub/store"
)

// §6.2.2 with real processes: a plain sleep and a SIGTERM-ignoring child.
func TestCancelMidToolKillsProcesses(t *testing.T) {
	h, s, w := watchedSession(t)
	cmd := `bash -c 'trap "" TERM; sleep 100' & echo pid:$!; sleep 100 & echo pid:$!; wait`
	h.srv.Enqueue(toolReply([3]string{"tu_sh", "bash", mustJSON(map[string]string{"command": cmd})}))
	r := h.submit(s.ID, "run it")
	re := regexp.MustCompile(`pid:(\d+)`)
	var out string
	var pids []int
	for len(pids) < 2 {
		e := w.untilType(ipc.TypeToolOutputDelta)
		var p ipc.ToolOutputDelta
		e.decode(t, &p)
		out += p.Text
		pids = pids[:0]
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			pids = append(pids, n)
		}
	}
	if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, ""); err != nil {
		t.Fatal(err)
	}
	w.turnEnd(s.ID)
	got := only(w.got, s.ID)
	assertSeq(t, got[len(got)-2:], "tool.failed", "turn.cancelled")
	noType(t, w.got, ipc.TypeLLMCallFailed)
	if n := countType(w.got, ipc.TypeMessageComplete); n != 1 {
		t.Fatalf("%d message.complete", n)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("process %d still exists after cancel (kill 0: %v)", pid, err)
		}
	}
	ms := h.messages(s.ID)
	last := ms[len(ms)-1]
	if last.Role != store.RoleToolResult || last.ToolCallID != "tu_sh" || !last.IsError {
		t.Fatalf("messages %s", describe(ms))
	}
}

// §6.2.4
