package hub_test

import (
	"context"
	"strings"
	"testing"

	"agenthub/app/agent"
	"agenthub/app/hub"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
)

func delegateCall(id, task string) [3]string {
	return [3]string{id, "delegate", mustJSON(map[string]string{"task": task, "context": "be brief"})}
}

func TestDelegationStreamsWorkerAndReturnsResult(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	w := h.watch(s.ID, true)
	h.srv.Enqueue(
		toolReply(delegateCall("tu_d", "count the files")),
		textReply("There are ", "3 files."), // the worker
		textReply("The worker says 3."),     // the parent's follow-up
	)
	h.submit(s.ID, "delegate it")
	w.turnEnd(s.ID)
	var started ipc.DelegateStarted
	var completed ipc.DelegateCompleted
	var workerText string
	for _, e := range w.got {
		switch {
		case e.Type == ipc.TypeDelegateStarted:
			e.decode(t, &started)
		case e.Type == ipc.TypeDelegateCompleted:
			e.decode(t, &completed)
		case e.Type == ipc.TypeToolOutputDelta && e.SessionID == s.ID:
			var p ipc.ToolOutputDelta
			e.decode(t, &p)
			if p.Stream != "worker" || p.ToolUseID != "tu_d" {
				t.Fatalf("output delta %+v", p)
			}
			workerText += p.Text
		}
	}
	if started.WorkerSessionID == "" || started.Depth != 1 || started.ToolUseID != "tu_d" {
		t.Fatalf("delegate.started %+v", started)
	}
	if completed.Result != "There are 3 files." || !completed.Success || workerText != completed.Result {
		t.Fatalf("delegate.completed %+v, streamed %q", completed, workerText)
	}
	// Parent sequence around the delegation; worker events carry the worker's id.
	assertSeq(t, compress(only(w.got, s.ID))[9:],
		"tool.called", "delegate.started", "tool.output_delta*", "delegate.completed", "tool.completed",
		"llm.call_started", "message.start", "text.delta", "message.complete", "llm.call_completed", "turn.completed")
	assertSeq(t, compress(only(w.got, started.WorkerSessionID)),
		"turn.started", "route.decided", "llm.call_started", "message.start", "text.delta*",
		"message.complete", "llm.call_completed", "turn.completed")
	ws, err := h.hub.GetSession(context.Background(), started.WorkerSessionID)
	if err != nil || ws.ParentSessionID != s.ID || ws.Depth != 1 || ws.WorkspacePath != s.WorkspacePath || ws.ActiveModel != testModel {
		t.Fatalf("worker session %+v, %v", ws, err)
	}
}

func TestDelegationCancelledWithParent(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	w := h.watch(s.ID, true)
	g := llmtest.NewGate()
	h.srv.Enqueue(toolReply(delegateCall("tu_d", "think hard")), stalledText(g, "Thinking"))
	r := h.submit(s.ID, "delegate it")
	started := w.untilType(ipc.TypeDelegateStarted)
	var ds ipc.DelegateStarted
	started.decode(t, &ds)
	w.until(func(e ev) bool { return e.SessionID == ds.WorkerSessionID && e.Type == ipc.TypeTextDelta })
	<-g.Reached()
	if err := h.hub.CancelTurn(context.Background(), s.ID, r.TurnID, ""); err != nil {
		t.Fatal(err)
	}
	w.turnEnd(s.ID)
	var failed ipc.DelegateFailed
	for _, e := range w.got {
		if e.Type == ipc.TypeDelegateFailed {
			e.decode(t, &failed)
		}
	}
	if failed.FailureMode != ipc.FailureCancelledByUser || failed.WorkerSessionID != ds.WorkerSessionID {
		t.Fatalf("delegate.failed %+v", failed)
	}
	parent := only(w.got, s.ID)
	assertSeq(t, parent[len(parent)-3:], "delegate.failed", "tool.failed", "turn.cancelled")
	worker := only(w.got, ds.WorkerSessionID)
	assertSeq(t, worker[len(worker)-3:], "message.complete", "llm.call_failed", "turn.cancelled")
}

func TestDelegationDepthLimit(t *testing.T) {
	h := newHarness(t, func(c *hub.Config) { c.MaxDelegationDepth = 1 })
	s := h.session()
	w := h.watch(s.ID, true)
	h.srv.Enqueue(
		toolReply(delegateCall("tu_1", "level one")),
		toolReply(delegateCall("tu_2", "level two")), // the depth-1 worker tries to delegate
		textReply("could not delegate"),              // worker answers
		textReply("done"),                            // parent answers
	)
	h.submit(s.ID, "go deep")
	w.turnEnd(s.ID)
	var failed ipc.DelegateFailed
	for _, e := range w.got {
		if e.Type == ipc.TypeDelegateFailed {
			e.decode(t, &failed)
		}
	}
	// The worker's call (tu_2 to its provider) has a minted id.
	if failed.FailureMode != ipc.FailureDepthExceeded || !strings.HasPrefix(failed.ToolUseID, agent.MintedCallPrefix) {
		t.Fatalf("delegate.failed %+v", failed)
	}
	if n := countType(w.got, ipc.TypeDelegateStarted); n != 1 {
		t.Fatalf("%d delegate.started", n)
	}
}
