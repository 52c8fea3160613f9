package mention_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/apptest"
	"agenthub/app/confine/confinetest"
	"agenthub/app/mention"
)

// write writes text to root/rel, making its folders.
func write(t *testing.T, root, rel, text string) {
	t.Helper()
	apptest.WriteFile(t, filepath.Join(root, rel), text)
}

// TestListRespectsGitignore: in a git work tree ignored files are not
// listed; elsewhere hidden and dependency directories are skipped.
func TestListRespectsGitignore(t *testing.T) {
	root := t.TempDir()
	write(t, root, "src/main.go", "package main\n")
	write(t, root, "src/notes.md", "# notes\n")
	write(t, root, "node_modules/x/index.js", "x")
	write(t, root, ".hidden/secret", "s")
	write(t, root, "out/build.log", "log")
	got, err := mention.List(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[out/build.log src/main.go src/notes.md]" {
		t.Fatalf("walk: %v", got)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	write(t, root, ".gitignore", "out/\nnode_modules/\n")
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	got, err = mention.List(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[.gitignore .hidden/secret src/main.go src/notes.md]" {
		t.Fatalf("git ls-files: %v", got)
	}
}

func TestMatchRanksNameHitsFirst(t *testing.T) {
	paths := []string{"docs/notes/readme.md", "src/nested/notes.txt", "notes.txt", "cmd/no_tes.go", "x/y.go"}
	if got := mention.Match(paths, "notes", 10); fmt.Sprint(got) != "[notes.txt src/nested/notes.txt docs/notes/readme.md cmd/no_tes.go]" {
		t.Fatalf("Match(notes) = %v", got)
	}
	if got := mention.Match(paths, "", 2); fmt.Sprint(got) != "[notes.txt x/y.go]" {
		t.Fatalf("Match('') = %v", got)
	}
	if got := mention.Match(paths, "zzz", 5); len(got) != 0 {
		t.Fatalf("Match(zzz) = %v", got)
	}
}

// TestExpandAttachesMentionedFiles: existing files inside the workspace are
// attached once each, bounded; trailing punctuation is tried off; outside
// paths, directories, binaries and missing files attach nothing.
func TestExpandAttachesMentionedFiles(t *testing.T) {
	root := t.TempDir()
	write(t, root, "notes.txt", "alpha\nbeta\n")
	write(t, root, "big.log", strings.Repeat("é", mention.MaxFileBytes))
	write(t, root, "bin.dat", "a\x00b")
	write(t, filepath.Dir(root), "outside.txt", "secret")
	confinetest.Symlink(t, filepath.Join(filepath.Dir(root), "outside.txt"), filepath.Join(root, "link.txt"))
	blocks := mention.Expand(root, "Read @notes.txt, then @notes.txt again, @big.log @bin.dat @../outside.txt @link.txt @missing.go @. and mail me@example.com")
	if len(blocks) != 2 {
		t.Fatalf("%d blocks: %+v", len(blocks), blocks)
	}
	if want := "<file path=\"notes.txt\" bytes=\"11\">\nalpha\nbeta\n</file>"; blocks[0].Text != want {
		t.Fatalf("notes block = %q", blocks[0].Text)
	}
	big := blocks[1].Text
	if !strings.HasPrefix(big, `<file path="big.log" bytes="131072">`) || !strings.Contains(big, "65536 of its 131072 bytes were cut") || len(big) > mention.MaxFileBytes+200 || strings.ContainsRune(big, '\uFFFD') {
		t.Fatalf("big block: %d bytes, head %q", len(big), big[:60])
	}
}
