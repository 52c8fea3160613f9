package confine_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"agenthub/app/confine"
	"agenthub/app/confine/confinetest"
)

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	confinetest.Symlink(t, target, link)
}

// tree is a home directory used as the workspace, holding the data dir
// (protected), with links out of it and into the data dir.
func tree(t *testing.T) (d *confine.Dir, home, data, outside string) {
	t.Helper()
	base := t.TempDir()
	home, outside = filepath.Join(base, "home"), filepath.Join(base, "outside")
	data = filepath.Join(home, ".local", "share", "agenthub")
	write(t, filepath.Join(outside, "secret.txt"), "outside secret\n")
	write(t, filepath.Join(data, "settings.json"), `{"mcp_servers":{}}`)
	write(t, filepath.Join(home, "notes.txt"), "notes\n")
	symlink(t, outside, filepath.Join(home, "out"))                              // a directory out
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(home, "abs")) // absolute, out
	symlink(t, ".local/share/agenthub", filepath.Join(home, "data"))             // inside the tree, into the data dir
	symlink(t, "notes.txt", filepath.Join(home, "in"))                           // inside, harmless
	d, err := confine.Open(home, []string{data})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, home, data, outside
}

func TestReadsStayInsideAndOffProtected(t *testing.T) {
	d, _, _, _ := tree(t)
	for _, c := range []struct {
		name string
		want error
	}{
		{"notes.txt", nil},
		{"in", nil},
		{"out/secret.txt", confine.ErrOutside},
		{"abs", confine.ErrOutside},
		{"../outside/secret.txt", confine.ErrOutside},
		{"data/settings.json", confine.ErrProtected},
		{".local/share/agenthub/settings.json", confine.ErrProtected},
		{".local/share/agenthub", confine.ErrProtected},
	} {
		f, _, err := d.Open(c.name)
		if f != nil {
			f.Close()
		}
		if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("Open(%q): %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := d.ReadDir("data"); !errors.Is(err, confine.ErrProtected) {
		t.Errorf("ReadDir(data): %v", err)
	}
	if _, err := d.ReadDir("out"); !errors.Is(err, confine.ErrOutside) {
		t.Errorf("ReadDir(out): %v", err)
	}
	if _, err := d.ReadDir("notes.txt"); !errors.Is(err, syscall.ENOTDIR) {
		t.Errorf("ReadDir(notes.txt): %v, want ENOTDIR", err)
	}
}

func TestWritesStayInsideAndOffProtected(t *testing.T) {
	d, home, data, outside := tree(t)
	for _, c := range []struct {
		name string
		want error
	}{
		{"out/new.txt", confine.ErrOutside},
		{"data/settings.json", confine.ErrProtected},
		{"data/permissions.json", confine.ErrProtected},
		{".local/share/agenthub/settings.json", confine.ErrProtected},
	} {
		if err := d.WriteFile(c.name, []byte("x"), 0o644); !errors.Is(err, c.want) {
			t.Errorf("WriteFile(%q): %v, want %v", c.name, err, c.want)
		}
	}
	for _, name := range []string{"data/sub", "out/sub", "data/a/b"} {
		if err := d.MkdirAll(name, 0o755); err == nil {
			t.Errorf("MkdirAll(%q) worked", name)
		}
	}
	if err := d.Remove("data/settings.json"); !errors.Is(err, confine.ErrProtected) {
		t.Errorf("Remove(data/settings.json): %v", err)
	}
	for dir, want := range map[string][]string{data: {"settings.json"}, outside: {"secret.txt"}} {
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s holds %v, want %v", dir, names, want)
		}
	}
	// Inside, everything works, and no temp file is left.
	if err := d.MkdirAll("a/b", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("a/b/c.txt", []byte("hello"), 0o640); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(home, "a", "b", "c.txt"))
	if err != nil || fi.Mode().Perm() != 0o640 || fi.Size() != 5 {
		t.Fatalf("a/b/c.txt: %v %v", fi, err)
	}
	entries, err := d.ReadDir("a/b")
	if err != nil || len(entries) != 1 || entries[0].Name() != "c.txt" {
		t.Fatalf("ReadDir(a/b) = %v %v", entries, err)
	}
	if err := d.Remove("a/b/c.txt"); err != nil {
		t.Fatal(err)
	}
}

// A walk over FS lists the tree sorted, sees symlinks as symlinks (never
// following one out) and cannot enter the protected directory.
func TestWalk(t *testing.T) {
	d, _, _, _ := tree(t)
	var seen []string
	err := fs.WalkDir(d.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			seen = append(seen, p+" ERR")
			return nil
		}
		seen = append(seen, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".", ".local", ".local/share", ".local/share/agenthub", ".local/share/agenthub ERR", "abs", "data", "in", "notes.txt", "out"}
	if !slices.Equal(seen, want) {
		t.Fatalf("walk saw %v\nwant      %v", seen, want)
	}
}
