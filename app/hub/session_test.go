package hub_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/hub"
	"agenthub/ipc"
)

func TestSessionLifecycle(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	if _, err := h.hub.CreateSession(ctx, ipc.CreateSessionRequest{WorkspacePath: "/does/not/exist"}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("bad workspace: %v", err)
	}
	if _, err := h.hub.CreateSession(ctx, ipc.CreateSessionRequest{Model: "nonsense"}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Fatalf("bad model: %v", err)
	}
	s := h.session()
	w := h.watch(s.ID, false)
	if s.WorkspacePath != h.ws || s.Title != "test" {
		t.Fatalf("%+v", s)
	}
	r, err := h.hub.RenameSession(ctx, s.ID, "renamed")
	if err != nil || r.Title != "renamed" {
		t.Fatalf("rename %+v %v", r, err)
	}
	up := w.untilType(ipc.TypeSessionUpdated)
	var sc ipc.SessionChanged
	up.decode(t, &sc)
	if sc.Session.Title != "renamed" || sc.Deleted {
		t.Fatalf("%+v", sc)
	}
	list, _ := h.hub.ListSessions(ctx)
	if len(list) != 1 || list[0].Title != "renamed" {
		t.Fatalf("list %+v", list)
	}
	outDir := filepath.Join(h.dir, "tool-output", s.ID)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outDir, "tu_1.log"), []byte("output"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.hub.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(outDir); !os.IsNotExist(err) {
		t.Fatalf("the deleted session's tool output is still there: %v", err)
	}
	del := w.untilType(ipc.TypeSessionUpdated)
	sc = ipc.SessionChanged{}
	del.decode(t, &sc)
	if !sc.Deleted {
		t.Fatalf("%+v", sc)
	}
	if _, err := h.hub.GetSession(ctx, s.ID); !errors.Is(err, ipc.ErrSessionNotFound) {
		t.Fatalf("get deleted: %v", err)
	}
	if _, err := h.db.Session(s.ID); err == nil {
		t.Fatal("deleted session still stored")
	}
	if _, err := h.hub.SubmitTurn(ctx, s.ID, "x"); !errors.Is(err, ipc.ErrSessionNotFound) {
		t.Fatalf("submit to deleted: %v", err)
	}
	md, typ, err := h.hub.ExportSession(ctx, h.session().ID, "markdown")
	if err != nil || !strings.HasPrefix(typ, "text/markdown") || !strings.Contains(string(md), "# test") {
		t.Fatalf("export %q %q %v", md, typ, err)
	}
	// A session with no turn and no known cost says so as the window does (issue 34 row 19).
	if !strings.Contains(string(md), "- Turns: —\n- Cost: —\n") {
		t.Fatalf("export of a session without turns or cost:\n%s", md)
	}
}

// TestToolOutputRetention: output files older than OutputRetention and the
// output directories of sessions that no longer exist are deleted; recent
// files and every message stay.
func TestToolOutputRetention(t *testing.T) {
	h := newHarness(t, func(c *hub.Config) { c.OutputRetention = time.Hour; c.OutputPruneInterval = -1 })
	s := h.session()
	dir := filepath.Join(h.dir, "tool-output", s.ID)
	orphan := filepath.Join(h.dir, "tool-output", "01GONESESSION000000000000")
	for _, d := range []string{dir, orphan} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path string, age time.Duration) {
		t.Helper()
		if err := os.WriteFile(path, []byte("out"), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-age)
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "old.log"), 2*time.Hour)
	write(filepath.Join(dir, "new.log"), time.Minute)
	write(filepath.Join(orphan, "x.log"), time.Minute)
	n, err := h.hub.PruneOutputs(time.Now())
	if err != nil || n != 2 {
		t.Fatalf("pruned %d, %v; want 2", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "old.log")); !os.IsNotExist(err) {
		t.Fatal("old output kept")
	}
	if _, err := os.Stat(filepath.Join(dir, "new.log")); err != nil {
		t.Fatalf("recent output removed: %v", err)
	}
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Fatal("a deleted session's output directory kept")
	}
}
