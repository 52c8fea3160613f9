package hub_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/tool"
	"agenthub/ipc"
)

// TestToolOutputs: a bash call's on-disk output, another tool's result
// text, unknown calls and sessions, and a bash output retention removed.
func TestToolOutputs(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	if err := os.WriteFile(filepath.Join(h.ws, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := h.watch(s.ID, false)
	h.srv.Enqueue(
		toolReply([3]string{"tu_bash", "bash", `{"command":"seq 1 3000"}`}, [3]string{"tu_read", "read_file", `{"path":"notes.txt"}`}),
		textReply("done"),
	)
	h.submit(s.ID, "go")
	w.turnEnd(s.ID)
	read := func(id string) (string, error) {
		out, err := h.hub.Output(context.Background(), s.ID, id)
		if err != nil {
			return "", err
		}
		defer out.Content.Close()
		b, err := io.ReadAll(out.Content)
		return string(b), err
	}
	if got, err := read("tu_bash"); err != nil || !strings.HasPrefix(got, "1\n2\n") || !strings.HasSuffix(got, "2999\n3000\n") {
		t.Fatalf("bash output %.40q… %v", got, err)
	}
	if got, err := read("tu_read"); err != nil || !strings.Contains(got, "beta") {
		t.Fatalf("read_file output %q %v", got, err)
	}
	if _, err := read("tu_nope"); !errors.Is(err, ipc.ErrToolCallNotFound) {
		t.Fatalf("unknown call: %v", err)
	}
	if _, err := read("../../etc/passwd"); !errors.Is(err, ipc.ErrToolCallNotFound) {
		t.Fatalf("hostile id: %v", err)
	}
	if _, err := h.hub.Output(context.Background(), "nope", "tu_bash"); !errors.Is(err, ipc.ErrSessionNotFound) {
		t.Fatalf("unknown session: %v", err)
	}
	if err := os.Remove(tool.OutputLogPath(filepath.Join(h.dir, "tool-output", s.ID), "tu_bash")); err != nil {
		t.Fatal(err)
	}
	if _, err := read("tu_bash"); !errors.Is(err, ipc.ErrToolOutputExpired) {
		t.Fatalf("removed output: %v", err)
	}
}

// TestToolOutputsArePrivate is issue 40 row 8: a bash call's output file
// is created 0600 in a 0700 directory, and the files and directories an
// older build left 0644/0755 are made so when the hub starts.
func TestToolOutputsArePrivate(t *testing.T) {
	h, s, w := watchedSession(t)
	h.srv.Enqueue(toolReply([3]string{"tu_bash", "bash", `{"command":"echo private"}`}), textReply("done"))
	h.submit(s.ID, "go")
	w.turnEnd(s.ID)
	root := filepath.Join(h.dir, "tool-output")
	dir := filepath.Join(root, s.ID)
	log := tool.OutputLogPath(dir, "tu_bash")
	mode := func(p string) os.FileMode {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	if mode(root) != 0o700 || mode(dir) != 0o700 || mode(log) != 0o600 {
		t.Fatalf("modes: %s %v, %s %v, %s %v", root, mode(root), dir, mode(dir), log, mode(log))
	}
	// As an older build left them.
	h.close()
	for p, m := range map[string]os.FileMode{root: 0o755, dir: 0o755, log: 0o644} {
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	h.open()
	if mode(root) != 0o700 || mode(dir) != 0o700 || mode(log) != 0o600 {
		t.Fatalf("after a restart: %v %v %v", mode(root), mode(dir), mode(log))
	}
}
