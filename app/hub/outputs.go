package hub

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"agenthub/app/confine"
	"agenthub/store"
)

// Defaults of the tool-output retention.
const (
	DefaultOutputRetention     = 168 * time.Hour
	DefaultOutputPruneInterval = time.Hour
)

// pruneOutputs applies retention to the tool output files under
// DATA_DIR/tool-output: a file older than OutputRetention is deleted, and so
// is the directory of a session that no longer exists. It returns how many
// files it removed. Messages and sessions are never touched: a toolResult
// keeps its capped output in the database; only the full output goes.
func (h *Hub) pruneOutputs(now time.Time) (int, error) {
	root := filepath.Join(h.cfg.DataDir, "tool-output")
	dirs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	cut := now.Add(-h.cfg.OutputRetention)
	removed := 0
	var errs []error
	for _, d := range dirs {
		dir := filepath.Join(root, d.Name())
		if !d.IsDir() {
			continue
		}
		if _, err := h.db.Session(d.Name()); errors.Is(err, store.ErrNotFound) {
			n, _ := os.ReadDir(dir)
			if err := os.RemoveAll(dir); err != nil {
				errs = append(errs, err)
			} else {
				removed += len(n)
			}
			continue
		}
		files, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			info, err := f.Info()
			if err != nil || f.IsDir() || !info.ModTime().Before(cut) {
				continue
			}
			if err := os.Remove(filepath.Join(dir, f.Name())); err != nil {
				errs = append(errs, err)
			} else {
				removed++
			}
		}
	}
	return removed, errors.Join(errs...)
}

// secureOutputs makes DATA_DIR/tool-output private, as the rest of the
// data dir is: directories 0700, files 0600 (older builds created them
// 0755 and 0644). Each is changed through a descriptor opened inside the
// store (app/confine), never through a symlink.
func (h *Hub) secureOutputs() error {
	d, err := confine.Open(filepath.Join(h.cfg.DataDir, "tool-output"), nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer d.Close()
	var errs []error
	_ = fs.WalkDir(d.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() && !e.Type().IsRegular() {
			return nil
		}
		f, fi, err := d.Open(p)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		defer f.Close()
		mode := fs.FileMode(0o600)
		if fi.IsDir() {
			mode = 0o700
		}
		if fi.Mode().Perm() != mode {
			if err := f.Chmod(mode); err != nil {
				errs = append(errs, err)
			}
		}
		return nil
	})
	return errors.Join(errs...)
}

// runOutputPruner prunes tool outputs, and sweeps attachments no message
// names, at start and every OutputPruneInterval until the hub closes.
func (h *Hub) runOutputPruner() {
	defer h.bg.Done()
	prune := func() {
		if n, err := h.pruneOutputs(time.Now()); err != nil {
			h.log.Warn("hub: pruning tool outputs", "removed", n, "err", err)
		} else if n > 0 {
			h.log.Info("hub: pruned tool outputs", "removed", n, "retention", h.cfg.OutputRetention)
		}
		if n, err := h.sweepAttachments(time.Now()); err != nil {
			h.log.Warn("hub: sweeping attachments", "removed", n, "err", err)
		} else if n > 0 {
			h.log.Info("hub: removed attachments no message names", "removed", n)
		}
	}
	prune()
	t := time.NewTicker(h.cfg.OutputPruneInterval)
	defer t.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-t.C:
			prune()
		}
	}
}
