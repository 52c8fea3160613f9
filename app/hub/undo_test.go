package hub_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
)

// TestUndoTurnThroughTheHub: a turn edits a file, writes one and runs a
// command that creates one and deletes another; the turn says how many
// files it changed, getTurnChanges shows each with its content before and
// after, and undo restores all but the file the user changed since.
func TestUndoTurnThroughTheHub(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	for name, text := range map[string]string{"notes.txt": "alpha\nbeta\n", "old.txt": "old\n", "keep.txt": "keep\n"} {
		if err := os.WriteFile(filepath.Join(h.ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.srv.Enqueue(toolReply(
		[3]string{"toolu_e", "edit_file", `{"path": "notes.txt", "old": "beta", "new": "BETA"}`},
		[3]string{"toolu_w", "write_file", `{"path": "docs/new.md", "content": "# New\n"}`},
	), toolReply(
		[3]string{"toolu_b", "bash", `{"command": "echo made > made.txt && rm old.txt"}`},
	), textReply("Done."))
	w := h.watch(s.ID, false)
	res := h.submit(s.ID, "Change some files.")
	var bash ipc.ToolCompleted
	w.until(func(e ev) bool {
		return e.Type == ipc.TypeToolCompleted && strings.Contains(string(e.Payload), "toolu_b")
	}).decode(t, &bash)
	if !strings.Contains(bash.Summary, "2 files in the folder changed") {
		t.Fatalf("the bash card's summary does not count its changes: %q", bash.Summary)
	}
	end := w.turnEnd(s.ID)
	var tc ipc.TurnCompleted
	end.decode(t, &tc)
	if tc.FilesChanged != 4 {
		t.Fatalf("turn.completed files_changed = %d, want 4 (notes.txt, docs/new.md, made.txt, old.txt)", tc.FilesChanged)
	}
	changes, err := h.hub.TurnChanges(t.Context(), s.ID, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ipc.FileChange{}
	for _, c := range changes.Changes {
		got[c.Path] = c
	}
	if c := got["notes.txt"]; c.Status != "modified" || c.Tool != "edit_file" || c.Before == nil || *c.Before != "alpha\nbeta\n" || c.After == nil || *c.After != "alpha\nBETA\n" {
		t.Fatalf("notes.txt change = %+v", c)
	}
	if got["docs/new.md"].Status != "created" || got["made.txt"].Status != "created" || got["made.txt"].Tool != "bash" || got["old.txt"].Status != "deleted" {
		t.Fatalf("changes = %+v", changes.Changes)
	}
	if user := h.messages(s.ID)[0]; user.Turn == nil || user.Turn.FilesChanged != 4 {
		t.Fatalf("the user message's outcome = %+v", user.Turn)
	}

	// The user edits notes.txt again; undo leaves it alone.
	if err := os.WriteFile(filepath.Join(h.ws, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	undone, err := h.hub.UndoTurn(t.Context(), s.ID, res.TurnID)
	if err != nil {
		t.Fatal(err)
	}
	if len(undone.Restored) != 3 || len(undone.Skipped) != 1 || undone.Skipped[0].Path != "notes.txt" {
		t.Fatalf("undo = %+v", undone)
	}
	var ev ipc.TurnUndone
	w.untilType(ipc.TypeTurnUndone).decode(t, &ev)
	if len(ev.Restored) != 3 || len(ev.Skipped) != 1 {
		t.Fatalf("turn.undone = %+v", ev)
	}
	for name, want := range map[string]string{"notes.txt": "mine\n", "old.txt": "old\n", "keep.txt": "keep\n"} {
		if b, err := os.ReadFile(filepath.Join(h.ws, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q (%v), want %q", name, b, err, want)
		}
	}
	for _, name := range []string{"made.txt", "docs/new.md"} {
		if _, err := os.Stat(filepath.Join(h.ws, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after the undo", name)
		}
	}
	if user := h.messages(s.ID)[0]; user.Turn == nil || !user.Turn.FilesUndone {
		t.Fatalf("the user message's outcome after the undo = %+v", user.Turn)
	}
	if _, err := h.hub.UndoTurn(t.Context(), s.ID, res.TurnID); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("a second undo: %v", err)
	}
	if c, _ := h.hub.TurnChanges(t.Context(), s.ID, res.TurnID); c.Undone == nil || len(c.Undone.Restored) != 3 {
		t.Fatalf("getTurnChanges after the undo: %+v", c.Undone)
	}
}

// TestUndoRefusals: no undo while a turn runs, for a turn that changed
// nothing, or an unknown turn or session.
func TestUndoRefusals(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	gate := llmtest.NewGate()
	h.srv.Enqueue(stalledReply(gate, "thinking"))
	w := h.watch(s.ID, false)
	res := h.submit(s.ID, "Nothing to change.")
	w.untilType(ipc.TypeTurnStarted)
	if _, err := h.hub.UndoTurn(t.Context(), s.ID, res.TurnID); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("undo while the turn runs: %v", err)
	}
	gate.Release()
	w.turnEnd(s.ID)
	if _, err := h.hub.UndoTurn(t.Context(), s.ID, res.TurnID); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("undo of a turn that changed nothing: %v", err)
	}
	if c, err := h.hub.TurnChanges(t.Context(), s.ID, res.TurnID); err != nil || len(c.Changes) != 0 {
		t.Fatalf("changes of a turn that changed nothing: %+v %v", c, err)
	}
	if _, err := h.hub.UndoTurn(t.Context(), s.ID, "01NOSUCHTURN"); !errors.Is(err, ipc.ErrTurnNotFound) {
		t.Fatalf("an unknown turn: %v", err)
	}
	if _, err := h.hub.UndoTurn(t.Context(), "nosuch", res.TurnID); !errors.Is(err, ipc.ErrSessionNotFound) {
		t.Fatalf("an unknown session: %v", err)
	}
}
