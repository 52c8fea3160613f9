package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func write(t *testing.T, ws, rel, text string) string {
	t.Helper()
	p := filepath.Join(ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o640); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, ws, rel string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws, filepath.FromSlash(rel)))
	if errors.Is(err, os.ErrNotExist) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), true
}

// bump moves a file's mtime on, as a later write within the same clock
// tick would not.
func bump(t *testing.T, path string) {
	t.Helper()
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

func TestUndoRestoresWrittenAndEditedFiles(t *testing.T) {
	ws := t.TempDir()
	st := New(t.TempDir())
	notes := write(t, ws, "notes.txt", "alpha\nbeta\n")
	turn := st.Begin("s1", "t1", ws, nil)
	// edit_file, then write_file creating a file, then an edit of the same file again.
	turn.BeforeWrite("edit_file", notes)
	write(t, ws, "notes.txt", "alpha\nBETA\n")
	turn.BeforeWrite("write_file", filepath.Join(ws, "docs/new.md"))
	write(t, ws, "docs/new.md", "# new\n")
	turn.BeforeWrite("edit_file", notes)
	write(t, ws, "notes.txt", "ALPHA\nBETA\n")
	m := turn.Finish()
	if len(m.Changes) != 2 || m.Changes[0].Path != "docs/new.md" || !m.Changes[0].Created || m.Changes[1].Path != "notes.txt" {
		t.Fatalf("manifest = %+v", m.Changes)
	}
	if before, _ := st.Text(m.Changes[1].Before); before != "alpha\nbeta\n" {
		t.Fatalf("before = %q", before)
	}
	if after, _ := st.Text(m.Changes[1].After); after != "ALPHA\nBETA\n" {
		t.Fatalf("after = %q", after)
	}
	res, err := st.Undo("s1", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Restored, []string{"notes.txt", "docs/new.md"}) || len(res.Skipped) != 0 {
		t.Fatalf("undo = %+v", res)
	}
	if got, _ := read(t, ws, "notes.txt"); got != "alpha\nbeta\n" {
		t.Fatalf("notes.txt = %q", got)
	}
	if fi, _ := os.Stat(notes); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode = %v", fi.Mode())
	}
	if _, exists := read(t, ws, "docs/new.md"); exists {
		t.Fatal("the created file is still there")
	}
	if _, err := st.Undo("s1", "t1"); !errors.Is(err, ErrAlreadyUndone) {
		t.Fatalf("second undo: %v", err)
	}
}

func TestUndoRefusesFilesChangedSince(t *testing.T) {
	ws := t.TempDir()
	st := New(t.TempDir())
	a := write(t, ws, "a.txt", "a0\n")
	b := write(t, ws, "b.txt", "b0\n")
	turn := st.Begin("s1", "t1", ws, nil)
	turn.BeforeWrite("edit_file", a)
	write(t, ws, "a.txt", "a1\n")
	turn.BeforeWrite("write_file", b)
	write(t, ws, "b.txt", "b1\n")
	turn.Finish()
	write(t, ws, "a.txt", "the user's own edit\n")
	res, err := st.Undo("s1", "t1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Restored, []string{"b.txt"}) || len(res.Skipped) != 1 || res.Skipped[0].Path != "a.txt" || res.Skipped[0].Reason != "changed since the turn" {
		t.Fatalf("undo = %+v", res)
	}
	if got, _ := read(t, ws, "a.txt"); got != "the user's own edit\n" {
		t.Fatalf("a.txt was overwritten: %q", got)
	}
	if got, _ := read(t, ws, "b.txt"); got != "b0\n" {
		t.Fatalf("b.txt = %q", got)
	}
}

func TestCommandChangesAreFoundAndUndone(t *testing.T) {
	ws := t.TempDir()
	st := New(t.TempDir())
	keep := write(t, ws, "src/main.go", "package main\n")
	gone := write(t, ws, "old.txt", "old\n")
	write(t, ws, "untouched.txt", "same\n")
	write(t, ws, ".git/HEAD", "ref\n")
	turn := st.Begin("s1", "t1", ws, nil)
	after := turn.BeforeCommand("bash")
	// What a command does: modify, delete, create, touch .git.
	write(t, ws, "src/main.go", "package main\n\nfunc main() {}\n")
	bump(t, keep)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "out/result.txt", "42\n")
	write(t, ws, ".git/HEAD", "other\n")
	after()
	m := turn.Finish()
	got := map[string]Change{}
	for _, c := range m.Changes {
		got[c.Path] = c
	}
	if len(got) != 3 || !got["old.txt"].Deleted || !got["out/result.txt"].Created || got["src/main.go"].Before == "" || got["src/main.go"].Tool != "bash" {
		t.Fatalf("changes = %+v", m.Changes)
	}
	res, err := st.Undo("s1", "t1")
	if err != nil || len(res.Restored) != 3 || len(res.Skipped) != 0 {
		t.Fatalf("undo = %+v %v", res, err)
	}
	if got, _ := read(t, ws, "src/main.go"); got != "package main\n" {
		t.Fatalf("src/main.go = %q", got)
	}
	if got, ok := read(t, ws, "old.txt"); !ok || got != "old\n" {
		t.Fatalf("old.txt = %q %v", got, ok)
	}
	if _, ok := read(t, ws, "out/result.txt"); ok {
		t.Fatal("the command's new file is still there")
	}
	if got, _ := read(t, ws, ".git/HEAD"); got != "other\n" {
		t.Fatal(".git was touched by undo")
	}
}

func TestUnchangedAndLargeFiles(t *testing.T) {
	ws := t.TempDir()
	st := New(t.TempDir())
	same := write(t, ws, "same.txt", "x\n")
	big := filepath.Join(ws, "big.bin")
	if err := os.WriteFile(big, make([]byte, MaxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	turn := st.Begin("s1", "t1", ws, nil)
	turn.BeforeWrite("write_file", same) // rewritten with the same content
	turn.BeforeWrite("write_file", big)
	if err := os.WriteFile(big, make([]byte, MaxFileBytes+2), 0o644); err != nil {
		t.Fatal(err)
	}
	m := turn.Finish()
	if len(m.Changes) != 1 || m.Changes[0].Path != "big.bin" || m.Changes[0].Unrestorable == "" {
		t.Fatalf("changes = %+v", m.Changes)
	}
	res, err := st.Undo("s1", "t1")
	if err != nil || len(res.Skipped) != 1 || res.Skipped[0].Reason != "not restorable: larger than 1 MiB before the turn" {
		t.Fatalf("undo = %+v %v", res, err)
	}
	// A turn that changed nothing has no manifest.
	if m := st.Begin("s1", "t2", ws, nil).Finish(); len(m.Changes) != 0 {
		t.Fatal("an empty turn has changes")
	}
	if _, err := st.Undo("s1", "t2"); !errors.Is(err, ErrNoChanges) {
		t.Fatalf("undo of an empty turn: %v", err)
	}
	if _, err := st.Undo("../../x", "t1"); !errors.Is(err, ErrNoChanges) {
		t.Fatalf("a hostile session id: %v", err)
	}
}

func TestDeleteSessionPrunesBlobs(t *testing.T) {
	ws := t.TempDir()
	dir := t.TempDir()
	st := New(dir)
	for _, s := range []string{"s1", "s2"} {
		p := write(t, ws, s+".txt", "content of "+s+"\n")
		turn := st.Begin(s, "t1", ws, nil)
		turn.BeforeWrite("edit_file", p)
		write(t, ws, s+".txt", "changed\n")
		turn.Finish()
	}
	count := func() int {
		n := 0
		_ = filepath.WalkDir(filepath.Join(dir, "blobs"), func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				n++
			}
			return nil
		})
		return n
	}
	if n := count(); n != 3 { // two befores, one shared after
		t.Fatalf("%d blobs", n)
	}
	if err := st.DeleteSession("s1"); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d blobs after deleting s1, want s2's two", n)
	}
	if _, err := st.Manifest("s2", "t1"); err != nil {
		t.Fatal(err)
	}
}

// A write in progress beside a command (tools run in parallel) leaves a
// temp file the scans must not count: it exists before the command and is
// renamed away during it.
func TestScansIgnoreWriteTemps(t *testing.T) {
	ws := t.TempDir()
	st := New(t.TempDir())
	tmp := write(t, ws, ".notes.txt.tmp-4242", "half written")
	turn := st.Begin("s1", "t1", ws, nil)
	after := turn.BeforeCommand("bash")
	if err := os.Rename(tmp, filepath.Join(ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "out.txt", "built\n")
	if n := after(); n != 2 {
		t.Fatalf("the command changed %d files, want 2 (notes.txt appeared, out.txt created)", n)
	}
	m := turn.Finish()
	for _, c := range m.Changes {
		if c.Path == ".notes.txt.tmp-4242" {
			t.Fatalf("the temp file is a change: %+v", m.Changes)
		}
	}
}
