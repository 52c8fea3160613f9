// Package checkpoint records what a turn did to the files of its workspace
// so the turn can be undone: before write_file or edit_file first replaces a
// file, and around every bash command (a before/after scan of the
// workspace), the prior content is kept in a content-addressed blob store;
// at the turn's end a manifest lists each changed file with its content
// before and after. Undo restores the prior content of every file that is
// still as the turn left it, and says which it could not restore.
package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"agenthub/app/confine"
	"agenthub/atomicfile"
)

// Bounds.
const (
	// MaxFileBytes bounds a file whose content is kept: a larger file a
	// turn changed is listed, but undo cannot restore it.
	MaxFileBytes = 1 << 20
	// MaxScanFiles bounds the files one workspace scan (bash) looks at.
	MaxScanFiles = 20000
	// MaxScanBytes bounds the new content one scan stores.
	MaxScanBytes = 64 << 20
)

// Errors.
var (
	// ErrNoChanges: the turn changed no file (or is unknown).
	ErrNoChanges = errors.New("the turn changed no files")
	// ErrAlreadyUndone: the turn's changes were undone before.
	ErrAlreadyUndone = errors.New("the turn's changes were already undone")
)

// Change is one file a turn changed.
type Change struct {
	// Path is the file's path relative to the workspace, slash-separated.
	Path string `json:"path"`
	// Tool is the tool that changed it first: write_file, edit_file or bash.
	Tool string `json:"tool"`
	// Before is the blob of its content before the turn; "" when it did
	// not exist (Created) or its content was not kept (Unrestorable).
	Before  string `json:"before,omitempty"`
	Created bool   `json:"created,omitempty"`
	// Mode is its permission bits before the turn.
	Mode fs.FileMode `json:"mode,omitempty"`
	// After is the blob of its content when the turn ended; "" when the
	// turn deleted it (Deleted) or it is too large to keep.
	After   string `json:"after,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
	// AfterSum is the SHA-256 of its content when the turn ended (also for
	// a file too large to keep): undo compares it with the file as it is.
	AfterSum string `json:"after_sum,omitempty"`
	// Unrestorable says why undo cannot restore it ("" when it can).
	Unrestorable string `json:"unrestorable,omitempty"`
}

// Manifest is the record of one turn's file changes.
type Manifest struct {
	SessionID string   `json:"session_id"`
	TurnID    string   `json:"turn_id"`
	Workspace string   `json:"workspace"`
	Changes   []Change `json:"changes"`
	// Undone is set once the changes were undone.
	Undone *UndoResult `json:"undone,omitempty"`
}

// UndoResult is what an undo did.
type UndoResult struct {
	Restored []string  `json:"restored"`
	Skipped  []Skipped `json:"skipped"`
}

// Skipped is a file undo left alone, and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Store keeps blobs (DIR/blobs/ab/abcdef…) and manifests
// (DIR/turns/SESSION/TURN.json). It is safe for concurrent use.
type Store struct {
	dir string
	// protected are directories no capture reads and no undo writes,
	// wherever the workspace is (the data dir).
	protected []string
	mu        sync.Mutex // manifests: Undo's read-modify-write
	// index caches the blob of a scanned file by (path, size, mtime), so a
	// scan hashes only what changed since the last one.
	imu   sync.Mutex
	index map[string]indexed
}

type indexed struct {
	size, mtime int64
	blob        string
}

// New returns the store rooted at dir (created on first write). Files in
// the protected directories (and their subdirectories) are neither kept
// nor restored, even when a workspace contains them.
func New(dir string, protected ...string) *Store {
	return &Store{dir: dir, protected: protected, index: map[string]indexed{}}
}

// open opens workspace ws for confined access: every capture and restore
// reads and writes through it (app/confine), never by name, so a symlink
// swapped in while it runs leads nowhere outside.
func (s *Store) open(ws string) (*confine.Dir, error) {
	return confine.Open(ws, s.protected)
}

// Manifest returns the manifest of a turn; ErrNoChanges when it changed
// no file.
func (s *Store) Manifest(sessionID, turnID string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(s.manifestPath(sessionID, turnID))
	if errors.Is(err, fs.ErrNotExist) {
		return m, ErrNoChanges
	}
	if err != nil {
		return m, fmt.Errorf("checkpoint: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("checkpoint: manifest of %s: %w", turnID, err)
	}
	return m, nil
}

// Text returns a blob's content ("", false when it is not kept).
func (s *Store) Text(blob string) (string, bool) {
	if blob == "" || !validID(blob) {
		return "", false
	}
	b, err := os.ReadFile(s.blobPath(blob))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// DeleteSession removes a session's manifests and every blob no other
// session's manifest names.
func (s *Store) DeleteSession(sessionID string) error {
	if !safeName(sessionID) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.RemoveAll(filepath.Join(s.dir, "turns", sessionID)); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	used := map[string]bool{}
	_ = filepath.WalkDir(filepath.Join(s.dir, "turns"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		var m Manifest
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &m) == nil {
			for _, c := range m.Changes {
				used[c.Before], used[c.After] = true, true
			}
		}
		return nil
	})
	var errs []error
	_ = filepath.WalkDir(filepath.Join(s.dir, "blobs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || used[d.Name()] {
			return nil
		}
		if err := os.Remove(path); err != nil {
			errs = append(errs, err)
		}
		return nil
	})
	s.imu.Lock()
	for k, v := range s.index {
		if !used[v.blob] {
			delete(s.index, k)
		}
	}
	s.imu.Unlock()
	return errors.Join(errs...)
}

// put stores data as a blob and returns its id.
func (s *Store) put(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	id := hex.EncodeToString(sum[:])
	path := s.blobPath(id)
	if _, err := os.Stat(path); err == nil {
		return id, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	if err := atomicfile.Write(path, data, 0o600); err != nil {
		return "", fmt.Errorf("checkpoint: %w", err)
	}
	return id, nil
}

func (s *Store) save(m Manifest) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	path := s.manifestPath(m.SessionID, m.TurnID)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return atomicfile.Write(path, b, 0o600)
}

func (s *Store) blobPath(id string) string { return filepath.Join(s.dir, "blobs", id[:2], id) }

func (s *Store) manifestPath(sessionID, turnID string) string {
	if !safeName(sessionID) || !safeName(turnID) {
		return filepath.Join(s.dir, "turns", "invalid")
	}
	return filepath.Join(s.dir, "turns", sessionID, turnID+".json")
}

// safeName reports whether an id can name a file (ULIDs can).
func safeName(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

func validID(id string) bool {
	if len(id) != 64 {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

// sumOf is the SHA-256 hex of data.
func sumOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
