package atomicfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/atomicfile"
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

// ReadJSON leaves v alone for a missing file, reads back what WriteJSON
// wrote, and names the file when it does not parse.
func TestJSONRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.json")
	m := map[string]string{"kept": "yes"}
	if err := atomicfile.ReadJSON(path, &m); err != nil || len(m) != 1 || m["kept"] != "yes" {
		t.Fatalf("missing file: %v, %v", m, err)
	}
	if err := atomicfile.WriteJSON(path, map[string]string{"a": "1"}, 0o600); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	if err := atomicfile.ReadJSON(path, &got); err != nil || len(got) != 1 || got["a"] != "1" {
		t.Fatalf("read back %v, %v", got, err)
	}
	if err := atomicfile.Write(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := atomicfile.ReadJSON(path, &got)
	if err == nil || !strings.Contains(err.Error(), path+" is not valid JSON") {
		t.Fatalf("a broken file: %v", err)
	}
}
