package hub_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectInstructionsInTheSystemPrompt: the workspace's AGENTS.md and
// the data dir's global one reach the model with their paths, are listed
// by Instructions, and an edit applies from the next turn.
func TestProjectInstructionsInTheSystemPrompt(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	local, global := filepath.Join(h.ws, "AGENTS.md"), filepath.Join(h.dir, "AGENTS.md")
	if err := os.WriteFile(local, []byte("Always run the linter first.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(global, []byte("Answer in British English.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	files, err := h.hub.Instructions(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 || files[0].Path != global || files[len(files)-1].Path != local || files[len(files)-1].Kept != files[len(files)-1].Size {
		t.Fatalf("Instructions = %+v", files)
	}
	w := h.watch(s.ID, false)
	h.srv.Enqueue(textReply("ok"), textReply("ok again"))
	h.submit(s.ID, "hello")
	w.turnEnd(s.ID)
	first := string(h.srv.Requests()[0].Body)
	for _, want := range []string{"Always run the linter first.", "Answer in British English.", local} {
		if !strings.Contains(first, want) {
			t.Errorf("the request lacks %q", want)
		}
	}
	if err := os.WriteFile(local, []byte("Never touch the vendor directory.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.submit(s.ID, "again")
	w.turnEnd(s.ID)
	reqs := h.srv.Requests()
	second := string(reqs[len(reqs)-1].Body)
	if !strings.Contains(second, "Never touch the vendor directory.") || strings.Contains(second, "Always run the linter first.") {
		t.Errorf("the edited AGENTS.md did not apply to the next turn")
	}
}
