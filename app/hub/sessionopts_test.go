package hub_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
)

// TestUpdateSessionBetweenTurns: a new model and folder apply from the next
// turn (the request names the model, bash runs in the folder); a running
// turn, a missing folder and a malformed model are refused and change nothing.
func TestUpdateSessionBetweenTurns(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	other := filepath.Join(t.TempDir(), "other project")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	model, ws := "anthropic:claude-opus-4-1", other
	w := h.watch(s.ID, false)
	rec, err := h.hub.UpdateSession(ctx, s.ID, ipc.SessionUpdate{Model: &model, WorkspacePath: &ws})
	if err != nil {
		t.Fatal(err)
	}
	if rec.ActiveModel != model || rec.WorkspacePath != other {
		t.Fatalf("record after update: %+v", rec)
	}
	w.untilType(ipc.TypeSessionUpdated)

	h.srv.Enqueue(toolReply([3]string{"tu_pwd", "bash", `{"command":"pwd"}`}), textReply("here"))
	h.submit(s.ID, "where are you?")
	w.turnEnd(s.ID)
	reqs := h.srv.Requests()
	var body struct {
		Model string `json:"model"`
	}
	if err := reqs[0].Decode(&body); err != nil || body.Model != "claude-opus-4-1" {
		t.Fatalf("the turn's request model = %q (%v)", body.Model, err)
	}
	if !strings.Contains(string(reqs[1].Body), "other project") {
		t.Fatalf("bash did not run in the new folder:\n%s", reqs[1].Body)
	}

	bad := filepath.Join(other, "missing")
	if _, err := h.hub.UpdateSession(ctx, s.ID, ipc.SessionUpdate{WorkspacePath: &bad}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("missing folder: %v", err)
	}
	junk := "no-provider-prefix"
	if _, err := h.hub.UpdateSession(ctx, s.ID, ipc.SessionUpdate{Model: &junk}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("malformed model: %v", err)
	}

	gate := llmtest.NewGate()
	h.srv.Enqueue(stalledReply(gate, "thinking"))
	h.submit(s.ID, "again")
	w.untilType(ipc.TypeTextDelta)
	back := ""
	if _, err := h.hub.UpdateSession(ctx, s.ID, ipc.SessionUpdate{Model: &back}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("update during a turn: %v", err)
	}
	gate.Release()
	w.turnEnd(s.ID)
	if got, _ := h.hub.GetSession(ctx, s.ID); got.ActiveModel != model || got.WorkspacePath != other {
		t.Fatalf("refused updates changed the record: %+v", got)
	}
	if _, err := h.hub.UpdateSession(ctx, "nope", ipc.SessionUpdate{Model: &back}); !errors.Is(err, ipc.ErrSessionNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
}
