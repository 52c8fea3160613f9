package attachment

import (
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"agenthub/app/confine"
)

// Stale lists the ids of blobs last written or uploaded before cut:
// those a sweep may remove if nothing references them. A missing store
// directory has none.
func (s *Store) Stale(cut time.Time) ([]string, error) {
	var ids []string
	dir, err := confine.Open(s.dir, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	defer dir.Close()
	err = fs.WalkDir(dir.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
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
	d, err := confine.Open(s.dir, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Remove(s.rel(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	_ = d.Remove(filepath.Dir(s.rel(id))) // the fan-out directory, when it is now empty
	return nil
}
