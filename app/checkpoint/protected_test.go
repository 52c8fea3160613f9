package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataDirInWorkspaceIsNeverCapturedNorRestored is issue 40 row 1 for
// undo: the workspace is the user's home and holds the data dir. A bash
// command's scan neither keeps nor records the data dir's files, and an
// undo whose path now leads into the data dir (the folder the turn wrote
// was replaced by a symlink to it) skips it instead of removing or
// rewriting the app's settings.
func TestDataDirInWorkspaceIsNeverCapturedNorRestored(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, ".local", "share", "agenthub")
	st := New(t.TempDir(), data)
	settings := write(t, home, ".local/share/agenthub/settings.json", `{"mcp_servers":{}}`)
	write(t, home, "notes.txt", "notes\n")

	// A command (unsandboxed) changes settings.json and notes.txt.
	turn := st.Begin("s1", "t1", home, nil)
	after := turn.BeforeCommand("bash")
	write(t, home, ".local/share/agenthub/settings.json", `{"mcp_servers":{"x":{"command":"sh"}}}`)
	bump(t, settings)
	write(t, home, "notes.txt", "changed\n")
	after()
	m := turn.Finish()
	if len(m.Changes) != 1 || m.Changes[0].Path != "notes.txt" {
		t.Fatalf("changes = %+v, want notes.txt only", m.Changes)
	}

	// write_file created cfg/settings.json in a folder of the workspace;
	// then cfg became a symlink into the data dir, whose settings.json
	// reads as the turn left its own.
	write(t, home, ".local/share/agenthub/settings.json", "same\n")
	turn = st.Begin("s1", "t2", home, nil)
	turn.BeforeWrite("write_file", filepath.Join(home, "cfg", "settings.json"))
	write(t, home, "cfg/settings.json", "same\n")
	if m := turn.Finish(); len(m.Changes) != 1 || !m.Changes[0].Created {
		t.Fatalf("changes = %+v", m.Changes)
	}
	if err := os.RemoveAll(filepath.Join(home, "cfg")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".local/share/agenthub", filepath.Join(home, "cfg")); err != nil {
		t.Fatal(err)
	}
	res, err := st.Undo("s1", "t2")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Restored) != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "data folder") {
		t.Fatalf("undo = %+v", res)
	}
	if got, ok := read(t, home, ".local/share/agenthub/settings.json"); !ok || got != "same\n" {
		t.Fatalf("settings.json = %q %v: undo touched the data dir", got, ok)
	}
}
