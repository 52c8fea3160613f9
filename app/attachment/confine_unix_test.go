//go:build unix

package attachment

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSymlinksInTheStoreLeadNowhere: a symlink planted in the attachment
// store (by anything that could write the data dir) neither makes an
// upload land outside the store nor serves a file from outside as an
// attachment.
func TestSymlinksInTheStoreLeadNowhere(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	s := New(dir)
	text := []byte("notes\n")
	sum := sha256.Sum256(text)
	id := hex.EncodeToString(sum[:])
	// The fan-out directory the upload will use leads outside.
	if err := os.Symlink(outside, filepath.Join(dir, id[:2])); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put("notes.txt", "text/plain", text); err == nil {
		t.Fatal("Put wrote through a symlink")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("the upload landed outside the store: %v", entries)
	}
	// A blob that is a symlink to a secret outside.
	secret := filepath.Join(outside, "id_ed25519")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := hex.EncodeToString(make([]byte, 32))
	if err := os.MkdirAll(filepath.Join(dir, other[:2]), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, other[:2], other)); err != nil {
		t.Fatal(err)
	}
	if _, data, err := s.Get(other); !errors.Is(err, ErrNotFound) || len(data) != 0 {
		t.Fatalf("Get served %q, %v", data, err)
	}
}
