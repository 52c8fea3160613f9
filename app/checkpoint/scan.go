package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io/fs"
	"os"
	"path/filepath"

	"agenthub/app/confine"
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

// scan walks ws (at most MaxScanFiles regular files, skipping skipDirs
// and the protected directories) through a confined view of it, and
// returns what it saw by slash-separated relative path; with keep, it
// also stores the content of each file of at most MaxFileBytes (hashing
// only files changed since the last scan), up to MaxScanBytes of new
// content. note says why the scan is partial ("" when it is whole).
func (s *Store) scan(ws string, keep bool) (map[string]entry, string) {
	out := map[string]entry{}
	d, err := s.open(ws)
	if err != nil {
		return out, "the folder cannot be opened: " + err.Error()
	}
	defer d.Close()
	var note string
	var stored int64
	_ = fs.WalkDir(d.FS(), ".", func(rel string, e fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if e.IsDir() {
			if rel != "." && (skipDirs[e.Name()] || d.Protected(filepath.Join(d.Path(), filepath.FromSlash(rel)))) {
				return fs.SkipDir
			}
			return nil
		}
		if !e.Type().IsRegular() || tool.IsWriteTemp(e.Name()) {
			return nil
		}
		if len(out) >= MaxScanFiles {
			note = "the folder has more files than a snapshot takes (20,000)"
			return fs.SkipAll
		}
		fi, err := e.Info()
		if err != nil {
			return nil
		}
		en := entry{size: fi.Size(), mtime: fi.ModTime().UnixNano(), mode: fi.Mode().Perm()}
		if keep {
			switch {
			case fi.Size() > MaxFileBytes:
				en.why = "larger than 1 MiB before the command"
			default:
				en.blob, en.why = s.keep(d, rel, en, &stored)
			}
		}
		out[rel] = en
		return nil
	})
	return out, note
}

// keep returns the blob of the scanned file rel of d: from the index
// when its size and mtime are unchanged, else stored now (counted in
// stored).
func (s *Store) keep(d *confine.Dir, rel string, e entry, stored *int64) (string, string) {
	key := filepath.Join(d.Path(), filepath.FromSlash(rel))
	s.imu.Lock()
	c, ok := s.index[key]
	s.imu.Unlock()
	if ok && c.size == e.size && c.mtime == e.mtime {
		if _, err := os.Stat(s.blobPath(c.blob)); err == nil {
			return c.blob, ""
		}
	}
	if *stored+e.size > MaxScanBytes {
		return "", "the folder has more content than a snapshot keeps (64 MiB)"
	}
	data, _, err := readBounded(d, nil, rel)
	if err != nil {
		return "", "unreadable before the command"
	}
	blob, err := s.put(data)
	if err != nil {
		return "", "its content could not be kept"
	}
	*stored += int64(len(data))
	s.imu.Lock()
	s.index[key] = indexed{size: e.size, mtime: e.mtime, blob: blob}
	s.imu.Unlock()
	return blob, ""
}

type hasher struct{ hash.Hash }

func newHasher() hasher      { return hasher{sha256.New()} }
func (h hasher) hex() string { return hex.EncodeToString(h.Sum(nil)) }
