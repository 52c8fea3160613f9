package tool

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"agenthub/app/confine/confinetest"
)

// FindEdit locates an edit in its file: the real line number, three lines
// of context each side, the old text widened to whole lines; nothing for
// an edit that will fail or a path outside the workspace.
func TestFindEdit(t *testing.T) {
	ws := t.TempDir()
	var lines []string
	for i := 1; i <= 12; i++ {
		lines = append(lines, "line "+string(rune('a'+i-1)))
	}
	content := ""
	for _, l := range lines {
		content += l + "\n"
	}
	if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	in := func(path, old, new string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"path": path, "old": old, "new": new})
		return b
	}
	env := Env{Workspace: ws}
	spot, ok := FindEdit(env, in("f.txt", "e\nline f", "E\nline F"), 3)
	if !ok || spot.Line != 5 {
		t.Fatalf("spot = %+v, %v; want line 5", spot, ok)
	}
	if !slices.Equal(spot.Before, []string{"line b", "line c", "line d"}) || !slices.Equal(spot.After, []string{"line g", "line h", "line i"}) {
		t.Fatalf("context = %q / %q", spot.Before, spot.After)
	}
	if spot.Old != "line e\nline f\n" || spot.New != "line E\nline F\n" {
		t.Fatalf("whole lines = %q → %q", spot.Old, spot.New)
	}
	if spot, ok := FindEdit(env, in("f.txt", "line a", "first"), 3); !ok || spot.Line != 1 || len(spot.Before) != 0 {
		t.Fatalf("at the top: %+v %v", spot, ok)
	}
	for _, bad := range []json.RawMessage{in("f.txt", "line", "x"), in("f.txt", "absent", "x"), in("../f.txt", "line a", "x"), json.RawMessage(`{}`)} {
		if _, ok := FindEdit(env, bad, 3); ok {
			t.Errorf("FindEdit(%s) found a spot", bad)
		}
	}
}

// The model names the path: FindEdit reads only what edit_file may edit —
// a symlink out of the workspace is refused, a FIFO is not opened for
// reading (which would block the approval prompt until a writer came).
func TestFindEditIsConfined(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("token=abc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	confinetest.Symlink(t, secret, filepath.Join(ws, "link.txt"))
	confinetest.MakeFIFO(t, filepath.Join(ws, "pipe"))
	env := Env{Workspace: ws}
	for _, path := range []string{"link.txt", secret, "pipe"} {
		in, _ := json.Marshal(map[string]string{"path": path, "old": "token=abc", "new": "x"})
		done := make(chan bool, 1)
		go func() { _, ok := FindEdit(env, in, 3); done <- ok }()
		select {
		case ok := <-done:
			if ok {
				t.Errorf("FindEdit read %s", path)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("FindEdit blocked on %s", path)
		}
	}
}
