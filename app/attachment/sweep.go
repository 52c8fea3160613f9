package attachment

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Stale lists the ids of blobs last written or uploaded before cut:
// those a sweep may remove if nothing references them. A missing store
// directory has none.
func (s *Store) Stale(cut time.Time) ([]string, error) {
	var ids []string
	err := filepath.WalkDir(s.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == s.dir {
				return fs.SkipAll
			}
			return err
		}
		if !d.Type().IsRegular() || !ValidID(d.Name()) {
			return nil
		}
		info, err := d.Info()
		if err == nil && info.ModTime().Before(cut) {
			ids = append(ids, d.Name())
		}
		return nil
	})
	return ids, err
}

// Remove deletes the blob of id (no error when it is already gone).
func (s *Store) Remove(id string) error {
	if !ValidID(id) {
		return nil
	}
	if err := os.Remove(s.path(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	_ = os.Remove(filepath.Dir(s.path(id))) // the fan-out directory, when it is now empty
	return nil
}
