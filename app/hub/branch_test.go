package hub_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

// conversation is the text of each message of a provider request, as
// "role: text".
func conversation(t *testing.T, r llmtest.Request) []string {
	t.Helper()
	var body anthropicRequest
	if err := r.Decode(&body); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range body.Messages {
		var parts []string
		for _, c := range m.Content {
			if c.Type == "text" {
				parts = append(parts, c.Text)
			}
		}
		out = append(out, m.Role+": "+strings.Join(parts, " "))
	}
	return out
}

// texts is the path as "role: text" lines.
func texts(ms []store.Message) []string {
	var out []string
	for _, m := range ms {
		var parts []string
		for _, c := range m.Content {
			if c.Type == store.BlockText {
				parts = append(parts, c.Text)
			}
		}
		out = append(out, m.Role+": "+strings.Join(parts, " "))
	}
	return out
}

// turn submits text (or runs fn) and waits for its end.
func (h *harness) turnDone(t *testing.T, sid string, start func() ipc.SubmitResult) ipc.SubmitResult {
	t.Helper()
	w := h.watch(sid, false)
	res := start()
	w.until(func(e ev) bool {
		return (e.Type == ipc.TypeTurnCompleted || e.Type == ipc.TypeTurnCancelled) && e.TurnID != nil && *e.TurnID == res.TurnID
	})
	return res
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestRegenerateEditSwitchAndFork walks the branching model through the
// real hub: the request after each operation holds exactly the current
// path, siblings are listed at branch points, paging follows the path, and
// a fork continues from a copy.
func TestRegenerateEditSwitchAndFork(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	ctx := t.Context()
	ok := must[ipc.SubmitResult](t)
	h.srv.Enqueue(textReply("A1"), textReply("A2"), textReply("A2 again"), textReply("A2 edited"), textReply("A3"), textReply("A4"), textReply("F1"))
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return h.submit(s.ID, "Q1") })
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return h.submit(s.ID, "Q2") })
	path := h.messages(s.ID)
	a2 := path[3]

	// Regenerate the second answer: the model sees Q1, A1, Q2 — not A2.
	w := h.watch(s.ID, false)
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return ok(h.hub.Regenerate(ctx, s.ID, a2.ID)) })
	var br ipc.SessionBranched
	w.untilType(ipc.TypeSessionBranched).decode(t, &br)
	if br.Reason != ipc.BranchRegenerate || br.HeadID != path[2].ID {
		t.Fatalf("session.branched = %+v", br)
	}
	reqs := h.srv.Requests()
	if got := conversation(t, reqs[2]); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: Q2"}) {
		t.Fatalf("the regenerate request holds %q", got)
	}
	path = h.messages(s.ID)
	if got := texts(path); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: Q2", "assistant: A2 again"}) {
		t.Fatalf("path after regenerate = %q", got)
	}
	regen := path[3]
	if sib := path[3].Siblings; len(sib) != 2 || sib[0] != a2.ID || sib[1] != path[3].ID {
		t.Fatalf("the new answer's siblings = %v", sib)
	}
	if path[3].Offset != 3 {
		t.Fatalf("the new answer's offset = %d, want its position 3", path[3].Offset)
	}

	// Edit Q2 and resend: the model sees Q1, A1 and the edited text.
	q2 := path[2]
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return ok(h.hub.EditAndResend(ctx, s.ID, q2.ID, "Q2, edited")) })
	if got := conversation(t, h.srv.Requests()[3]); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: Q2, edited"}) {
		t.Fatalf("the edit request holds %q", got)
	}
	path = h.messages(s.ID)
	if got := texts(path); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: Q2, edited", "assistant: A2 edited"}) {
		t.Fatalf("path after the edit = %q", got)
	}
	if sib := path[2].Siblings; len(sib) != 2 || sib[0] != q2.ID {
		t.Fatalf("the edited message's siblings = %v", sib)
	}
	// A plain turn continues the edited branch.
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return h.submit(s.ID, "Q3") })
	if got := conversation(t, h.srv.Requests()[4]); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: Q2, edited", "assistant: A2 edited", "user: Q3"}) {
		t.Fatalf("the next request holds %q", got)
	}

	// Switch back to the original Q2 (its newest answer), then to A2 itself.
	if _, err := h.hub.SwitchBranch(ctx, s.ID, q2.ID); err != nil {
		t.Fatal(err)
	}
	if got := texts(h.messages(s.ID)); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: Q2", "assistant: A2 again"}) {
		t.Fatalf("path after switching to Q2 = %q", got)
	}
	if _, err := h.hub.SwitchBranch(ctx, s.ID, a2.ID); err != nil {
		t.Fatal(err)
	}
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return h.submit(s.ID, "Q4") })
	if got := conversation(t, h.srv.Requests()[5]); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: Q2", "assistant: A2", "user: Q4"}) {
		t.Fatalf("the request after switching to A2 holds %q", got)
	}

	// Paging by offset and backwards follows the path.
	page, total, err := h.bus.Reader().Messages(s.ID, 2, 2)
	if err != nil || total != 6 || len(page) != 2 || page[0].ID != q2.ID || page[1].ID != a2.ID || page[1].Offset != 3 {
		t.Fatalf("page [2,4) = %q total %d (%v)", texts(page), total, err)
	}
	full := h.messages(s.ID)
	before, more, err := h.bus.Reader().MessagesBefore(s.ID, full[4].ID, 2)
	if err != nil || !more || !slices.Equal(texts(before), []string{"user: Q2", "assistant: A2"}) {
		t.Fatalf("two before Q4 = %q more %v (%v)", texts(before), more, err)
	}
	if _, _, err := h.bus.Reader().MessagesBefore(s.ID, path[3].ID, 2); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("paging from a message off the path: %v", err)
	}
	// Another branch is readable without switching to it.
	other, n, err := h.bus.Reader().BranchMessages(s.ID, regen.ID, 0, 0)
	if err != nil || n != 4 || !slices.Equal(texts(other), []string{"user: Q1", "assistant: A1", "user: Q2", "assistant: A2 again"}) {
		t.Fatalf("the branch through the regenerated answer = %q (%d, %v)", texts(other), n, err)
	}
	if _, _, err := h.bus.Reader().BranchMessages(s.ID, "nosuch", 0, 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an unknown branch: %v", err)
	}
	if stored, _ := h.bus.Reader().StoredMessages(s.ID); len(stored) != 11 {
		t.Fatalf("%d messages stored, want 11 (nothing deleted)", len(stored))
	}

	// Fork at A1: a new session with Q1 and A1; its next turn sees them.
	fork, err := h.hub.ForkSession(ctx, s.ID, full[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(h.messages(fork.ID)); !slices.Equal(got, []string{"user: Q1", "assistant: A1"}) || fork.WorkspacePath != s.WorkspacePath {
		t.Fatalf("fork = %q in %s", got, fork.WorkspacePath)
	}
	h.turnDone(t, fork.ID, func() ipc.SubmitResult { return h.submit(fork.ID, "QF") })
	if got := conversation(t, h.srv.Requests()[6]); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: QF"}) {
		t.Fatalf("the fork's request holds %q", got)
	}
	if got := texts(h.messages(s.ID)); len(got) != 6 {
		t.Fatalf("the fork changed the source: %q", got)
	}
}

// TestBranchSurvivesRestartAndEditsTheFirstMessage: the current path is
// stored (a restart reads the same path), and editing the first message
// starts a new root.
func TestBranchSurvivesRestartAndEditsTheFirstMessage(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	h.srv.Enqueue(textReply("A1"), textReply("B1"))
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return h.submit(s.ID, "Q1") })
	q1 := h.messages(s.ID)[0]
	h.turnDone(t, s.ID, func() ipc.SubmitResult {
		return must[ipc.SubmitResult](t)(h.hub.EditAndResend(t.Context(), s.ID, q1.ID, "Q1 again"))
	})
	if got := conversation(t, h.srv.Requests()[1]); !slices.Equal(got, []string{"user: Q1 again"}) {
		t.Fatalf("the request after editing the first message holds %q", got)
	}
	h.close()
	h.open()
	path := h.messages(s.ID)
	if got := texts(path); !slices.Equal(got, []string{"user: Q1 again", "assistant: B1"}) || len(path[0].Siblings) != 2 {
		t.Fatalf("after a restart the path = %q (siblings %v)", got, path[0].Siblings)
	}
	if _, err := h.hub.SwitchBranch(t.Context(), s.ID, q1.ID); err != nil {
		t.Fatal(err)
	}
	if got := texts(h.messages(s.ID)); !slices.Equal(got, []string{"user: Q1", "assistant: A1"}) {
		t.Fatalf("switched back: %q", got)
	}
}

// TestBranchRefusals: no branching while a turn runs, from a message off
// the path, or of a non-user message for an edit.
func TestBranchRefusals(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	ctx := t.Context()
	gate := llmtest.NewGate()
	h.srv.Enqueue(textReply("A1"), stalledReply(gate, "slow"))
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return h.submit(s.ID, "Q1") })
	msgs := h.messages(s.ID)
	if _, err := h.hub.EditAndResend(ctx, s.ID, msgs[1].ID, "x"); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("editing an answer: %v", err)
	}
	if _, err := h.hub.Regenerate(ctx, s.ID, "nosuch"); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("regenerating an unknown message: %v", err)
	}
	w := h.watch(s.ID, false)
	h.submit(s.ID, "Q2")
	w.untilType(ipc.TypeTurnStarted)
	for name, err := range map[string]error{
		"regenerate": func() error { _, err := h.hub.Regenerate(ctx, s.ID, msgs[1].ID); return err }(),
		"edit":       func() error { _, err := h.hub.EditAndResend(ctx, s.ID, msgs[0].ID, "x"); return err }(),
		"switch":     func() error { _, err := h.hub.SwitchBranch(ctx, s.ID, msgs[0].ID); return err }(),
	} {
		if !errors.Is(err, ipc.ErrInvalidInput) {
			t.Errorf("%s while a turn runs: %v", name, err)
		}
	}
	gate.Release()
	w.turnEnd(s.ID)
	if sess, _ := h.db.Session(s.ID); sess.Branched {
		t.Fatal("a refused operation branched the session")
	}
}

// TestBranchListsAbandonedFileChanges: regenerating an answer whose turn
// changed files lists that turn in session.branched, so the client can
// offer to undo it; an undone turn is not listed again.
func TestBranchListsAbandonedFileChanges(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	h.srv.Enqueue(toolReply([3]string{"toolu_w", "write_file", `{"path": "a.txt", "content": "A\n"}`}), textReply("Wrote it."),
		textReply("Again, without writing."), textReply("Third."))
	first := h.turnDone(t, s.ID, func() ipc.SubmitResult { return h.submit(s.ID, "Write a.txt") })
	answer := h.messages(s.ID)[3]
	w := h.watch(s.ID, false)
	h.turnDone(t, s.ID, func() ipc.SubmitResult {
		return must[ipc.SubmitResult](t)(h.hub.Regenerate(t.Context(), s.ID, answer.ID))
	})
	var br ipc.SessionBranched
	w.untilType(ipc.TypeSessionBranched).decode(t, &br)
	if len(br.AbandonedTurns) != 1 || br.AbandonedTurns[0] != (ipc.AbandonedTurn{TurnID: first.TurnID, FilesChanged: 1}) {
		t.Fatalf("abandoned turns = %+v", br.AbandonedTurns)
	}
	if _, err := h.hub.UndoTurn(t.Context(), s.ID, first.TurnID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.hub.SwitchBranch(t.Context(), s.ID, answer.ID); err != nil {
		t.Fatal(err)
	}
	br = ipc.SessionBranched{}
	w.untilType(ipc.TypeSessionBranched).decode(t, &br)
	if len(br.AbandonedTurns) != 0 {
		t.Fatalf("switching away from a branch without changes lists %+v", br.AbandonedTurns)
	}
}

// TestRetryFailedTurnInPlace (issue 34 row 4): Retry of a failed turn is a
// new version of it, not a second copy of the question after it: the copy
// is a sibling of the failed message, with every block of the original
// , the model sees the question once, and the
// failed version keeps its outcome one click away.
func TestRetryFailedTurnInPlace(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	ctx := t.Context()
	ok := must[ipc.SubmitResult](t)
	h.srv.Enqueue(textReply("A1"))
	h.srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")))
	h.srv.Enqueue(textReply("A2 after the retry"))
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return h.submit(s.ID, "Q1") })
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return h.submit(s.ID, "Q2") })
	path := h.messages(s.ID)
	failed := path[len(path)-1]
	if failed.Role != store.RoleUser || failed.Turn == nil || failed.Turn.Status != store.TurnFailed {
		t.Fatalf("the failed turn's user message = %+v", failed)
	}
	w := h.watch(s.ID, false)
	h.turnDone(t, s.ID, func() ipc.SubmitResult { return ok(h.hub.RetryTurn(ctx, s.ID, failed.ID)) })
	var br ipc.SessionBranched
	w.untilType(ipc.TypeSessionBranched).decode(t, &br)
	if br.Reason != ipc.BranchRetry || br.MessageID != failed.ID {
		t.Fatalf("session.branched = %+v", br)
	}
	reqs := h.srv.Requests()
	if got := conversation(t, reqs[len(reqs)-1]); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: Q2"}) {
		t.Fatalf("the retry's request holds %q", got)
	}
	path = h.messages(s.ID)
	if got := texts(path); !slices.Equal(got, []string{"user: Q1", "assistant: A1", "user: Q2", "assistant: A2 after the retry"}) {
		t.Fatalf("path after the retry = %q", got)
	}
	retried := path[2]
	if sib := retried.Siblings; len(sib) != 2 || sib[0] != failed.ID || sib[1] != retried.ID {
		t.Fatalf("the retried question's versions = %v, want [%s %s]", sib, failed.ID, retried.ID)
	}
	if retried.Turn == nil || retried.Turn.Status != store.TurnCompleted {
		t.Fatalf("the new version's outcome = %+v", retried.Turn)
	}
	// The failed version is still there, with its failure.
	if _, err := h.hub.SwitchBranch(ctx, s.ID, failed.ID); err != nil {
		t.Fatal(err)
	}
	back := h.messages(s.ID)
	if last := back[len(back)-1]; last.ID != failed.ID || last.Turn == nil || last.Turn.Status != store.TurnFailed {
		t.Fatalf("the old version = %+v", last)
	}
	if _, err := h.hub.RetryTurn(ctx, s.ID, path[1].ID); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("retrying an assistant message: %v", err)
	}
}
