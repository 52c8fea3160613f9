package rpc_test

import (
	"context"
	"fmt"
	"testing"

	"agenthub/ipc"
	"agenthub/ipc/rpc"
	"agenthub/store"
)

// branchHub records the branch and undo calls it gets.
type branchHub struct {
	outputHub
	calls []string
}

func (h *branchHub) Regenerate(_ context.Context, sid, mid string) (ipc.SubmitResult, error) {
	h.calls = append(h.calls, "regenerate "+sid+" "+mid)
	return ipc.SubmitResult{TurnID: "t9"}, nil
}

func (h *branchHub) EditAndResend(_ context.Context, sid, mid, content string) (ipc.SubmitResult, error) {
	h.calls = append(h.calls, "edit "+sid+" "+mid+" "+content)
	return ipc.SubmitResult{TurnID: "t10"}, nil
}

func (h *branchHub) RetryTurn(_ context.Context, sid, mid string) (ipc.SubmitResult, error) {
	h.calls = append(h.calls, "retry "+sid+" "+mid)
	return ipc.SubmitResult{TurnID: "t11"}, nil
}

func (h *branchHub) SwitchBranch(_ context.Context, sid, mid string) (store.Session, error) {
	h.calls = append(h.calls, "switch "+sid+" "+mid)
	return store.Session{ID: sid, Branched: true}, nil
}

func (h *branchHub) ForkSession(_ context.Context, sid, mid string) (store.Session, error) {
	h.calls = append(h.calls, "fork "+sid+" "+mid)
	return store.Session{ID: "fork"}, nil
}

func (h *branchHub) TurnChanges(_ context.Context, sid, tid string) (ipc.TurnChanges, error) {
	h.calls = append(h.calls, "changes "+sid+" "+tid)
	return ipc.TurnChanges{TurnID: tid, Changes: []ipc.FileChange{{Path: "a.txt", Tool: "edit_file", Status: "modified"}}}, nil
}

func (h *branchHub) UndoTurn(_ context.Context, sid, tid string) (ipc.TurnUndone, error) {
	h.calls = append(h.calls, "undo "+sid+" "+tid)
	return ipc.TurnUndone{Restored: []string{"a.txt"}, Skipped: []ipc.SkippedFile{}}, nil
}

// TestBranchAndUndoMethods: the branch and undo methods reach a hub that
// has them with their parameters; missing ones are INVALID_PARAMS, and a
// hub without them refuses them.
func TestBranchAndUndoMethods(t *testing.T) {
	base, _ := newHub(t)
	h := &branchHub{outputHub: outputHub{Hub: base}}
	d := rpc.NewDispatcher(nil)
	rpc.RegisterHub(d, h, base.Bus.Reader())
	if r := ok[ipc.SubmitResult](t, call(t, d, rpc.MethodRegenerate, map[string]any{"session_id": "s1", "message_id": "m1"})); r.TurnID != "t9" {
		t.Fatalf("regenerate = %+v", r)
	}
	ok[ipc.SubmitResult](t, call(t, d, rpc.MethodEditMessage, map[string]any{"session_id": "s1", "message_id": "m1", "content": "again"}))
	if r := ok[ipc.SubmitResult](t, call(t, d, rpc.MethodRetryTurn, map[string]any{"session_id": "s1", "message_id": "m3"})); r.TurnID != "t11" {
		t.Fatalf("retryTurn = %+v", r)
	}
	ok[store.Session](t, call(t, d, rpc.MethodSwitchBranch, map[string]any{"session_id": "s1", "message_id": "m2"}))
	if s := ok[store.Session](t, call(t, d, rpc.MethodForkSession, map[string]any{"session_id": "s1", "message_id": "m1"})); s.ID != "fork" {
		t.Fatalf("fork = %+v", s)
	}
	if c := ok[ipc.TurnChanges](t, call(t, d, rpc.MethodGetTurnChanges, map[string]any{"session_id": "s1", "turn_id": "t1"})); len(c.Changes) != 1 {
		t.Fatalf("changes = %+v", c)
	}
	ok[ipc.TurnUndone](t, call(t, d, rpc.MethodUndoTurn, map[string]any{"session_id": "s1", "turnId": "t1"}))
	want := []string{"regenerate s1 m1", "edit s1 m1 again", "retry s1 m3", "switch s1 m2", "fork s1 m1", "changes s1 t1", "undo s1 t1"}
	if len(h.calls) != len(want) {
		t.Fatalf("calls = %q", h.calls)
	}
	for i := range want {
		if h.calls[i] != want[i] {
			t.Fatalf("calls = %q, want %q", h.calls, want)
		}
	}
	code(t, call(t, d, rpc.MethodRegenerate, map[string]any{"session_id": "s1"}), rpc.CodeInvalidParams)
	code(t, call(t, d, rpc.MethodEditMessage, map[string]any{"session_id": "s1", "message_id": "m1"}), rpc.CodeInvalidParams)
	code(t, call(t, d, rpc.MethodUndoTurn, map[string]any{"session_id": "s1"}), rpc.CodeInvalidParams)
	// The plain test hub has neither.
	_, plain := newHub(t)
	code(t, call(t, plain, rpc.MethodSwitchBranch, map[string]any{"session_id": "s1", "message_id": "m1"}), rpc.CodeInvalidParams)
	code(t, call(t, plain, rpc.MethodUndoTurn, map[string]any{"session_id": "s1", "turn_id": "t1"}), rpc.CodeInvalidParams)
}

// TestGetAgentMessagesOfABranch: getAgentMessages reads the branch through
// a message (here the only one, a linear session) in both modes; an unknown
// message is INVALID_PARAMS.
func TestGetAgentMessagesOfABranch(t *testing.T) {
	h, d := newHub(t)
	sid := ok[store.Session](t, call(t, d, rpc.MethodCreateSession, map[string]any{})).ID
	var ops []store.Op
	for i, text := range []string{"question", "answer"} {
		role := store.RoleUser
		if i == 1 {
			role = store.RoleAssistant
		}
		ops = append(ops, store.PutMessage(store.Message{ID: fmt.Sprintf("m%d", i), SessionID: sid, Role: role, Status: store.StatusComplete,
			Content: []store.ContentBlock{{Type: store.BlockText, Text: text}}}))
	}
	if _, err := h.Bus.Commit(context.Background(), ipc.Draft{Type: ipc.TypeSessionUpdated, SessionID: sid, Actor: ipc.ActorSystem,
		Payload: ipc.SessionChanged{Session: store.Session{ID: sid}}, Ops: ops}); err != nil {
		t.Fatal(err)
	}
	page := ok[rpc.MessagesPage](t, call(t, d, rpc.MethodGetAgentMessages, map[string]any{"agentId": sid}))
	if len(page.Messages) != 2 {
		t.Fatalf("%d messages", len(page.Messages))
	}
	first := page.Messages[0].ID
	branch := ok[rpc.MessagesPage](t, call(t, d, rpc.MethodGetAgentMessages, map[string]any{"agentId": sid, "branch": first}))
	if branch.Total != page.Total {
		t.Fatalf("the branch through the first message has %d messages, the path %d", branch.Total, page.Total)
	}
	before := ok[rpc.MessagesBeforePage](t, call(t, d, rpc.MethodGetAgentMessages, map[string]any{"agentId": sid, "branch": first, "before": ""}))
	if len(before.Messages) != page.Total {
		t.Fatalf("before-mode on the branch: %d messages", len(before.Messages))
	}
	code(t, call(t, d, rpc.MethodGetAgentMessages, map[string]any{"agentId": sid, "branch": "nosuch"}), rpc.CodeInvalidParams)
	code(t, call(t, d, rpc.MethodGetAgentMessages, map[string]any{"agentId": sid, "branch": "nosuch", "before": ""}), rpc.CodeInvalidParams)
}
