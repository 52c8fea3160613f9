package hub_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/ipc"
	"agenthub/store"
)

// TestMentionedFilesReachTheModel: an @path of the session's folder is
// stored with the user message as the file's content and sent to the
// model; ListFiles completes paths.
func TestMentionedFilesReachTheModel(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	if err := os.MkdirAll(filepath.Join(h.ws, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "docs", "plan.md"), []byte("Step one: measure.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := h.hub.ListFiles(context.Background(), s.ID, "plan", 5)
	if err != nil || fmt.Sprint(got) != "[docs/plan.md]" {
		t.Fatalf("ListFiles = %v %v", got, err)
	}
	// Before a session exists (a new session's first message, issue 34 row 11): the chosen folder's, or the default one's.
	for _, folder := range []string{h.ws, ""} {
		if got, err := h.hub.ListFolderFiles(context.Background(), folder, "plan", 5); err != nil || fmt.Sprint(got) != "[docs/plan.md]" {
			t.Fatalf("ListFolderFiles(%q) = %v %v", folder, got, err)
		}
	}
	if _, err := h.hub.ListFolderFiles(context.Background(), filepath.Join(h.ws, "nope"), "", 5); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("ListFolderFiles of a missing folder: %v", err)
	}
	w := h.watch(s.ID, false)
	h.srv.Enqueue(textReply("ok"))
	h.submit(s.ID, "Follow @docs/plan.md please.")
	var started ipc.TurnStarted
	w.untilType(ipc.TypeTurnStarted).decode(t, &started)
	if started.Input != "Follow @docs/plan.md please." || len(started.Attachments) != 1 || started.Attachments[0] != (ipc.AttachedFile{Path: "docs/plan.md", Bytes: 19}) {
		t.Fatalf("turn.started = %+v", started)
	}
	w.turnEnd(s.ID)
	body := string(h.srv.Requests()[0].Body)
	if !strings.Contains(body, "Step one: measure.") || !strings.Contains(body, `docs/plan.md`) {
		t.Fatalf("the request lacks the mentioned file:\n%s", body)
	}
	user := h.messages(s.ID)[0]
	if user.Role != store.RoleUser || len(user.Content) != 2 || user.Content[0].Text != "Follow @docs/plan.md please." || !strings.HasPrefix(user.Content[1].Text, `<file path="docs/plan.md"`) {
		t.Fatalf("stored user message: %+v", user.Content)
	}
}
