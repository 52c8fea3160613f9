//go:build unix

package tool

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"agenthub/ipc/errclass"
)

// TestFIFOsNeverBlock: a named pipe in the workspace (nobody ever opens its
// write end) is refused by read_file, edit_file, write_file and list_dir,
// and skipped by grep — each returns at once instead of blocking in
// open(2).
func TestFIFOsNeverBlock(t *testing.T) {
	ws := t.TempDir()
	if err := syscall.Mkfifo(ws+"/ff", 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ws+"/note.txt", []byte("needle here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := Env{Workspace: ws}
	for _, c := range []struct {
		tool, input, wantErr string
	}{
		{"read_file", `{"path":"ff"}`, "named pipe"},
		{"edit_file", `{"path":"ff","old":"a","new":"b"}`, "named pipe"},
		{"write_file", `{"path":"ff","content":"x"}`, "not a regular file"},
		{"list_dir", `{"path":"ff"}`, "is not a directory"},
		{"grep", `{"pattern":"needle"}`, ""},
		{"grep", `{"pattern":"needle","path":"ff"}`, ""},
	} {
		type outcome struct {
			res Result
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := run(t, env, c.tool, c.input)
			done <- outcome{res, err}
		}()
		var o outcome
		select {
		case o = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s %s blocked on the FIFO", c.tool, c.input)
		}
		switch {
		case c.wantErr != "":
			if o.err == nil || !strings.Contains(o.err.Error(), c.wantErr) || AsError(o.err).Class != errclass.ToolInvalidInput {
				t.Errorf("%s %s: err %v, want invalid_input mentioning %q", c.tool, c.input, o.err, c.wantErr)
			}
		case o.err != nil:
			t.Errorf("%s %s: %v", c.tool, c.input, o.err)
		case strings.Contains(c.input, `"path":"ff"`):
			if strings.Contains(o.res.Output, "needle here") {
				t.Errorf("grep on the FIFO found %q", o.res.Output)
			}
		default:
			if !strings.Contains(o.res.Output, "note.txt") {
				t.Errorf("grep skipped the regular file: %q", o.res.Output)
			}
		}
	}
}
