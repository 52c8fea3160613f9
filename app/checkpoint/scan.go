package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io/fs"
	"os"
	"path/filepath"

	"agenthub/app/tool"
)

// skipDirs are not scanned: version-control data and dependency or build
// trees a command rewrites wholesale. Changes there are not undone.
var skipDirs = map[string]bool{".git": true, ".hg": true, ".svn": true, ".jj": true, "node_modules": true,
	"vendor": true, "target": true, "dist": true, "build": true, "__pycache__": true, ".venv": true, ".cache": true}

// entry is one file as a scan saw it.
type entry struct {
	size, mtime int64
	mode        fs.FileMode
	blob        string // its content's blob ("" when not kept: see why)
	why         string
}

// scan walks ws (at most MaxScanFiles regular files, skipping skipDirs)
// and returns what it saw by slash-separated relative path; with keep, it
// also stores the content of each file of at most MaxFileBytes (hashing
// only files changed since the last scan), up to MaxScanBytes of new
// content. note says why the scan is partial ("" when it is whole).
func (s *Store) scan(ws string, keep bool) (map[string]entry, string) {
	out := map[string]entry{}
	var note string
	var stored int64
	_ = filepath.WalkDir(ws, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != ws && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || tool.IsWriteTemp(d.Name()) {
			return nil
		}
		if len(out) >= MaxScanFiles {
			note = "the folder has more files than a snapshot takes (20,000)"
			return filepath.SkipAll
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, err := filepath.Rel(ws, path)
		if err != nil {
			return nil
		}
		e := entry{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode().Perm()}
		if keep {
			switch {
			case fi.Size() > MaxFileBytes:
				e.why = "larger than 1 MiB before the command"
			default:
				e.blob, e.why = s.keep(path, e, &stored)
			}
		}
		out[filepath.ToSlash(rel)] = e
		return nil
	})
	return out, note
}

// keep returns the blob of a scanned file: from the index when its size
// and mtime are unchanged, else stored now (counted in stored).
func (s *Store) keep(path string, e entry, stored *int64) (string, string) {
	s.imu.Lock()
	c, ok := s.index[path]
	s.imu.Unlock()
	if ok && c.size == e.size && c.mtime == e.mtime {
		if _, err := os.Stat(s.blobPath(c.blob)); err == nil {
			return c.blob, ""
		}
	}
	if *stored+e.size > MaxScanBytes {
		return "", "the folder has more content than a snapshot keeps (64 MiB)"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "unreadable before the command"
	}
	blob, err := s.put(data)
	if err != nil {
		return "", "its content could not be kept"
	}
	*stored += int64(len(data))
	s.imu.Lock()
	s.index[path] = indexed{size: e.size, mtime: e.mtime, blob: blob}
	s.imu.Unlock()
	return blob, ""
}

type hasher struct{ hash.Hash }

func newHasher() hasher      { return hasher{sha256.New()} }
func (h hasher) hex() string { return hex.EncodeToString(h.Sum(nil)) }
