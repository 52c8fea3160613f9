package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"agenthub/app/atomicfile"
)

func TestWriteReplacesWithMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	for _, data := range []string{"first", "second"} {
		if err := atomicfile.Write(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if err != nil || string(b) != data || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%q %v %v", b, err, fi.Mode())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
	if err := atomicfile.Write(filepath.Join(dir, "missing", "f"), nil, 0o600); err == nil {
		t.Fatal("a missing directory was not an error")
	}
}
