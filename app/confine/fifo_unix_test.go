//go:build unix

package confine_test

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"

	"agenthub/app/confine"
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
