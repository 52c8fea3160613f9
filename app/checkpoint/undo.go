package checkpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"agenthub/app/confine"
	"agenthub/app/tool"
)

// Undo restores the files turnID of sessionID changed to their content
// before the turn: a file the turn created is removed, a deleted or edited
// one rewritten with its mode. A file that is no longer as the turn left
// it (changed since by the user or a later turn) is never overwritten: it
// is skipped with that reason, as is one whose prior content was not kept.
// ErrNoChanges when the turn changed nothing, ErrAlreadyUndone the second
// time.
func (s *Store) Undo(sessionID, turnID string) (UndoResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.Manifest(sessionID, turnID)
	if err != nil {
		return UndoResult{}, err
	}
	if m.Undone != nil {
		return *m.Undone, ErrAlreadyUndone
	}
	res := UndoResult{Restored: []string{}, Skipped: []Skipped{}}
	d, derr := s.open(m.Workspace)
	if derr == nil {
		defer d.Close()
	}
	for i := len(m.Changes) - 1; i >= 0; i-- {
		c := m.Changes[i]
		why := "the folder cannot be opened: " + errText(derr)
		if derr == nil {
			why = s.restore(d, m.Workspace, c)
		}
		if why != "" {
			res.Skipped = append(res.Skipped, Skipped{Path: c.Path, Reason: why})
		} else {
			res.Restored = append(res.Restored, c.Path)
		}
	}
	m.Undone = &res
	if err := s.save(m); err != nil {
		return res, fmt.Errorf("checkpoint: recording the undo: %w", err)
	}
	return res, nil
}

// restore puts one file of workspace ws (open as d) back; it returns why
// it did not ("" when it did). The path is checked (tool.Resolve, the
// protected directories), then read, removed and written through d only.
func (s *Store) restore(d *confine.Dir, ws string, c Change) string {
	if c.Unrestorable != "" {
		return "not restorable: " + c.Unrestorable
	}
	abs, err := tool.Resolve(ws, c.Path)
	if err != nil {
		return "outside the folder now: " + err.Error()
	}
	if d.Protected(abs) {
		return "inside Agent Hub's data folder: undo never writes there"
	}
	rel, err := filepath.Rel(d.Path(), abs)
	if err != nil || !confine.Within(d.Path(), abs) {
		return "outside the folder now"
	}
	data, fi, err := readBounded(d, nil, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !c.Deleted {
			return "changed since the turn: it was deleted"
		}
	case errors.Is(err, errTooLarge):
		if c.Deleted || fi.sum != c.AfterSum {
			return "changed since the turn"
		}
	case err != nil:
		return "unreadable: " + err.Error()
	default:
		if c.Deleted || sumOf(data) != c.AfterSum {
			return "changed since the turn"
		}
	}
	if c.Created {
		if err := d.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "could not remove it: " + err.Error()
		}
		return ""
	}
	prior, ok := s.Text(c.Before)
	if !ok {
		return "its prior content is no longer kept"
	}
	if err := d.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
		return "could not recreate its folder: " + err.Error()
	}
	mode := c.Mode
	if mode == 0 {
		mode = 0o644
	}
	if err := d.WriteFile(rel, []byte(prior), mode); err != nil {
		return "could not write it: " + err.Error()
	}
	if got, _, err := readBounded(d, nil, rel); err != nil || !bytes.Equal(got, []byte(prior)) {
		return "could not write it back"
	}
	return ""
}

// errText is err's text ("" for nil).
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
