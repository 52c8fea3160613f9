package app

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Each launch's log goes to DATA_DIR/logs/agenthub.log; the previous ones
// are kept as .1 … .4 and older ones removed; stderr gets everything.
func TestLogSinkRotates(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	s := NewLogSink(&stderr)
	fmt.Fprintln(s, "before the data dir is locked")
	for launch := 1; launch <= 6; launch++ {
		path, err := s.Attach(dir)
		if err != nil {
			t.Fatal(err)
		}
		if path != filepath.Join(dir, LogDir, LogName) || s.Path() != path {
			t.Fatalf("path %q", path)
		}
		fmt.Fprintf(s, "launch %d\n", launch)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, LogDir, name))
		if err != nil {
			return "missing"
		}
		return string(b)
	}
	for name, want := range map[string]string{
		LogName: "launch 6\n", LogName + ".1": "launch 5\n", LogName + ".4": "launch 2\n", LogName + ".5": "missing",
	} {
		if got := read(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if !strings.HasPrefix(stderr.String(), "before the data dir is locked\nlaunch 1\n") || !strings.HasSuffix(stderr.String(), "launch 6\n") {
		t.Errorf("stderr = %q", stderr.String())
	}
	if fi, err := os.Stat(filepath.Join(dir, LogDir, LogName)); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("log file mode: %v %v", fi, err)
	}
}

// One launch writes at most MaxLogBytes to its file, then says so; stderr
// keeps getting everything.
func TestLogSinkCapsTheFile(t *testing.T) {
	dir := t.TempDir()
	var stderr bytes.Buffer
	s := NewLogSink(&stderr)
	if _, err := s.Attach(dir); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Write(bytes.Repeat([]byte("x"), MaxLogBytes)); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(s, "after the cap")
	b, err := os.ReadFile(filepath.Join(dir, LogDir, LogName))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("after the cap")) || !bytes.HasSuffix(b, []byte("the rest of this launch's log went to stderr only\n")) {
		t.Fatalf("the file's tail: %q", b[len(b)-120:])
	}
	if !strings.HasSuffix(stderr.String(), "after the cap\n") {
		t.Fatal("stderr lost a line")
	}
}
