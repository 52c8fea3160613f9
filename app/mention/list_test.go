package mention_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agenthub/app/confine/confinetest"
	"agenthub/app/mention"
)

// List lists what `git ls-files --cached --others --exclude-standard`
// lists in a fresh work tree (nothing tracked yet), without running git:
// nested .gitignore files with their own scope, negation, anchored and
// directory-only patterns, `**`, .git/info/exclude, and a nested
// repository left out — from the work tree's root and from a directory
// inside it. A FIFO named .gitignore does not hang it.
func TestListMatchesGitLsFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	root := t.TempDir()
	for rel, text := range map[string]string{
		".gitignore":           "*.log\n/build/\n!keep.log\ntmp*\n# a comment\n\ndocs/**/draft.md\n",
		"keep.log":             "k",
		"app.log":              "a",
		"build/out.bin":        "b",
		"src/build/gen.go":     "g", // /build/ is anchored to the root
		"src/main.go":          "m",
		"src/.gitignore":       "*.gen.go\n!special.gen.go\nlocal/\n",
		"src/x.gen.go":         "x",
		"src/special.gen.go":   "s",
		"src/local/a.txt":      "l",
		"src/tmpfile":          "t",
		"docs/a/b/draft.md":    "d",
		"docs/a/final.md":      "f",
		".github/workflows/ci": "c",
		"vendor/lib/lib.go":    "v",
		"secret.env":           "e",
		"nested/.git/HEAD":     "ref: refs/heads/main\n",
		"nested/inner.txt":     "i",
		"a b/with space.txt":   "w",
		"src/deep/er/file.txt": "f",
		"src/deep/.gitignore":  "er/\n",
		"src/deep/kept.txt":    "k",
	} {
		write(t, root, rel, text)
	}
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	cmd := exec.Command("git", "-C", root, "init", "-q")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write(t, root, ".git/info/exclude", "*.env\n")
	cmd = exec.Command("git", "-C", filepath.Join(root, "nested"), "init", "-q")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init nested: %v %s", err, out)
	}
	wants := map[string][]string{}
	for _, sub := range []string{"", "src"} {
		dir := filepath.Join(root, sub)
		cmd := exec.Command("git", "-C", dir, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git ls-files: %v", err)
		}
		for _, p := range strings.Split(string(bytes.TrimRight(out, "\x00")), "\x00") {
			if !strings.HasSuffix(p, "/") { // git names a nested repository "nested/"; List leaves it out
				wants[sub] = append(wants[sub], p)
			}
		}
	}
	// git itself would hang on this; List skips it.
	confinetest.MakeFIFO(t, filepath.Join(root, "docs", ".gitignore"))
	// The workspace may be reached through a symbolic link.
	link := filepath.Join(t.TempDir(), "ws")
	confinetest.Symlink(t, root, link)
	for sub, want := range wants {
		got, err := mention.List(context.Background(), filepath.Join(link, sub))
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(want)
		slices.Sort(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("List(%q):\n%s\ngit ls-files:\n%s", sub, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
