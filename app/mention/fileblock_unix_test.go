//go:build unix

package mention_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"agenthub/app/confine/confinetest"
	"agenthub/app/mention"
	"agenthub/store"
)

// TestMentionedFIFOIsRefusedAtOnce is issue 40 row 7: @pipe.md naming a
// FIFO attaches nothing and does not wait for a writer; the regular file
// beside it still attaches.
func TestMentionedFIFOIsRefusedAtOnce(t *testing.T) {
	ws := t.TempDir()
	pipe := filepath.Join(ws, "pipe.md")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "notes.md", "hello\n")
	var blocks []store.ContentBlock
	confinetest.NoFIFOReader(t, pipe, func() { blocks = mention.Expand(ws, "see @pipe.md and @notes.md") })
	if len(blocks) != 1 || !strings.HasPrefix(blocks[0].Text, `<file path="notes.md"`) {
		t.Fatalf("blocks = %+v", blocks)
	}
}

// TestMentionsNeverReadTheDataDir is issue 40 row 1 for mentions: with the
// data dir inside the workspace (workspace = home), @ of its files — by
// path or through a symlink in the workspace — attaches nothing.
func TestMentionsNeverReadTheDataDir(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, ".local", "share", "agenthub")
	write(t, home, ".local/share/agenthub/secrets.json", `{"key":"sk-ant-SECRET"}`)
	if err := os.Symlink(".local/share/agenthub/secrets.json", filepath.Join(home, "keys.json")); err != nil {
		t.Fatal(err)
	}
	blocks := mention.Expand(home, "@.local/share/agenthub/secrets.json @keys.json", data)
	if len(blocks) != 0 {
		t.Fatalf("attached %+v", blocks)
	}
}
