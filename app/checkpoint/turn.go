package checkpoint

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"agenthub/app/confine"
	"agenthub/app/tool"
)

// Turn records one turn's file changes; it implements tool.FileWatcher.
// Begin it before the turn's tools run and Finish it after.
type Turn struct {
	st   *Store
	ws   string
	real string // ws with symlinks resolved: the tools report real paths
	log  *slog.Logger

	mu     sync.Mutex
	man    Manifest
	byPath map[string]int // rel path → index in man.Changes
}

var _ tool.FileWatcher = (*Turn)(nil)

// Begin starts recording the changes turnID of sessionID makes in workspace.
func (s *Store) Begin(sessionID, turnID, workspace string, log *slog.Logger) *Turn {
	if log == nil {
		log = slog.Default()
	}
	real, err := confine.RealPath(workspace)
	if err != nil {
		real = workspace
	}
	return &Turn{st: s, ws: workspace, real: real, log: log, byPath: map[string]int{},
		man: Manifest{SessionID: sessionID, TurnID: turnID, Workspace: workspace}}
}

// BeforeWrite keeps path's content before the turn first changes it.
func (t *Turn) BeforeWrite(toolName, path string) {
	rel, ok := t.rel(path)
	if !ok {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, seen := t.byPath[rel]; seen {
		return
	}
	t.add(t.prior(toolName, rel))
}

// AfterWrite is part of tool.FileWatcher; the content a turn leaves is
// read when it finishes.
func (t *Turn) AfterWrite(string, string) {}

// BeforeCommand scans the workspace (keeping the content of every file
// within the bounds) and returns the func that scans it again once the
// command has ended and records what differs.
func (t *Turn) BeforeCommand(toolName string) func() int {
	before, note := t.st.scan(t.ws, true)
	return func() int {
		after, _ := t.st.scan(t.ws, false)
		t.mu.Lock()
		defer t.mu.Unlock()
		changed := 0
		for rel, b := range before {
			a, ok := after[rel]
			if ok && a.size == b.size && a.mtime == b.mtime && a.mode == b.mode {
				continue
			}
			changed++
			if _, seen := t.byPath[rel]; seen {
				continue
			}
			c := Change{Path: rel, Tool: toolName, Before: b.blob, Mode: b.mode}
			if b.blob == "" {
				c.Unrestorable = b.why
			}
			t.add(c)
		}
		for rel := range after {
			if _, existed := before[rel]; existed {
				continue
			}
			changed++
			if _, seen := t.byPath[rel]; seen {
				continue
			}
			c := Change{Path: rel, Tool: toolName, Created: true}
			if note != "" {
				// A file the first scan did not reach may have existed.
				c.Created, c.Unrestorable = false, note
			}
			t.add(c)
		}
		return changed
	}
}

// Finish reads what the turn left in each changed file, drops files it
// left as they were, and stores the manifest. It returns the manifest
// (no changes: nothing is stored).
func (t *Turn) Finish() Manifest {
	t.mu.Lock()
	defer t.mu.Unlock()
	d, derr := t.st.open(t.ws)
	if derr == nil {
		defer d.Close()
	}
	var kept []Change
	for _, c := range t.man.Changes {
		data, fi, err := readBounded(d, derr, c.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if c.Created {
				continue // created and removed again within the turn
			}
			c.Deleted = true
		case errors.Is(err, errTooLarge):
			c.AfterSum = fi.sum
			c.Unrestorable = first(c.Unrestorable, "larger than 1 MiB when the turn ended")
		case err != nil:
			c.Unrestorable = first(c.Unrestorable, "unreadable when the turn ended: "+err.Error())
		default:
			c.AfterSum = sumOf(data)
			if !c.Created && c.Before != "" && c.AfterSum == c.Before {
				continue // left as it was
			}
			if blob, err := t.st.put(data); err == nil {
				c.After = blob
			}
		}
		kept = append(kept, c)
	}
	t.man.Changes = kept
	if len(kept) == 0 {
		return t.man
	}
	sort.SliceStable(t.man.Changes, func(i, j int) bool { return t.man.Changes[i].Path < t.man.Changes[j].Path })
	if err := t.st.save(t.man); err != nil {
		t.log.Error("checkpoint: storing the turn's file changes", "turn", t.man.TurnID, "err", err)
	}
	return t.man
}

// prior is the Change of a file before the turn touches it.
func (t *Turn) prior(toolName, rel string) Change {
	c := Change{Path: rel, Tool: toolName}
	d, derr := t.st.open(t.ws)
	if derr == nil {
		defer d.Close()
	}
	data, fi, err := readBounded(d, derr, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Created = true
	case errors.Is(err, errTooLarge):
		c.Mode, c.Unrestorable = fi.mode, "larger than 1 MiB before the turn"
	case err != nil:
		c.Unrestorable = "unreadable before the turn: " + err.Error()
	default:
		c.Mode = fi.mode
		blob, err := t.st.put(data)
		if err != nil {
			t.log.Error("checkpoint: keeping a file's content", "path", rel, "err", err)
			c.Unrestorable = "its content could not be kept: " + err.Error()
		}
		c.Before = blob
	}
	return c
}

func (t *Turn) add(c Change) {
	t.byPath[c.Path] = len(t.man.Changes)
	t.man.Changes = append(t.man.Changes, c)
}

// rel is the real path a tool reported relative to the workspace (false
// outside it).
func (t *Turn) rel(path string) (string, bool) {
	r, err := filepath.Rel(t.real, path)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(r), true
}

var errTooLarge = errors.New("too large")

type fileInfo struct {
	mode fs.FileMode
	sum  string
}

// readBounded reads the regular file rel (slash-separated) of workspace
// d (derr: why d could not be opened) of at most MaxFileBytes; a larger
// one is errTooLarge (with its mode and checksum).
func readBounded(d *confine.Dir, derr error, rel string) ([]byte, fileInfo, error) {
	if derr != nil {
		return nil, fileInfo{}, derr
	}
	f, st, err := d.Open(filepath.FromSlash(rel))
	if errors.Is(err, confine.ErrNotRegular) {
		return nil, fileInfo{}, errors.New("not a regular file")
	}
	if err != nil {
		return nil, fileInfo{}, err
	}
	defer f.Close()
	if !st.Mode().IsRegular() {
		return nil, fileInfo{}, errors.New("not a regular file")
	}
	fi := fileInfo{mode: st.Mode().Perm()}
	if st.Size() > MaxFileBytes {
		h := newHasher()
		_, _ = io.Copy(h, f)
		fi.sum = h.hex()
		return nil, fi, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fi, err
	}
	return data, fi, nil
}

func first(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
