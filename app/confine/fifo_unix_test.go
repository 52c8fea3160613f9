//go:build unix

package confine_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"agenthub/app/confine"
	"agenthub/app/confine/confinetest"
)

// A FIFO is refused before it is opened: nothing waits for a writer.
func TestFIFORefused(t *testing.T) {
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := confine.Open(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, fi, err := d.Open("pipe"); !errors.Is(err, confine.ErrNotRegular) || fi == nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("Open(pipe): %v %v", fi, err)
	}
}

// Writing, creating or removing under a FIFO fails at once: no open of
// the FIFO waits for a writer.
func TestNothingWaitsOnAFIFO(t *testing.T) {
	ws := t.TempDir()
	pipe := filepath.Join(ws, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := confine.Open(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	confinetest.NoFIFOReader(t, pipe, func() {
		for name, err := range map[string]error{
			"ReadDir":   func() error { _, err := d.ReadDir("pipe"); return err }(),
			"WriteFile": d.WriteFile("pipe/x", []byte("x"), 0o644),
			"MkdirAll":  d.MkdirAll("pipe/sub", 0o755),
			"Remove":    d.Remove("pipe/x"),
		} {
			if !errors.Is(err, syscall.ENOTDIR) {
				t.Errorf("%s under the FIFO: %v, want ENOTDIR", name, err)
			}
		}
	})
}
