package permission

import (
	"fmt"
	"path/filepath"
	"slices"
	"sync"

	"agenthub/atomicfile"
)

// FileName is the rules file in the data dir.
const FileName = "permissions.json"

// Store keeps the rules of every workspace in one JSON file (0600), keyed
// by the workspace's absolute, cleaned path. It is safe for concurrent use;
// every change is written at once (temp file + rename).
type Store struct {
	path string
	mu   sync.Mutex
	ws   map[string][]Rule
	git  map[string]bool // workspaces whose .git bash may write
}

type fileFormat struct {
	Workspaces map[string][]Rule `json:"workspaces"`
	// GitWrites lists the workspaces where sandboxed bash may write .git
	// (off unless set: docs/permissions.md).
	GitWrites map[string]bool `json:"git_writes,omitempty"`
}

// OpenStore reads path (a missing file is an empty store). A file that
// does not parse is an error naming it, so a hand edit gone wrong is
// reported instead of silently dropping the user's rules.
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, ws: map[string][]Rule{}, git: map[string]bool{}}
	var f fileFormat // stays empty when the file is missing
	if err := atomicfile.ReadJSON(path, &f); err != nil {
		return nil, fmt.Errorf("permissions: %w", err)
	}
	for ws, rules := range f.Workspaces {
		for _, r := range rules {
			if err := r.Check(); err != nil {
				return nil, fmt.Errorf("permissions: %s, workspace %s: %w", path, ws, err)
			}
		}
		s.ws[filepath.Clean(ws)] = rules
	}
	for ws, on := range f.GitWrites {
		if on {
			s.git[filepath.Clean(ws)] = true
		}
	}
	return s, nil
}

// GitWrites reports whether sandboxed bash may write the workspace's .git.
func (s *Store) GitWrites(workspace string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.git[filepath.Clean(workspace)]
}

// SetGitWrites turns git writes for a workspace on or off and saves.
func (s *Store) SetGitWrites(workspace string, allow bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return saveEntry(s, s.git, filepath.Clean(workspace), true, allow)
}

// Rules returns a copy of a workspace's rules, in the order they were added.
func (s *Store) Rules(workspace string) []Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ws[filepath.Clean(workspace)])
}

// Set replaces a workspace's rules (Settings) after checking each.
func (s *Store) Set(workspace string, rules []Rule) error {
	for _, r := range rules {
		if err := r.Check(); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return saveEntry(s, s.ws, filepath.Clean(workspace), slices.Clone(rules), len(rules) > 0)
}

// Add appends a rule to a workspace's rules unless an equal one is there
// (an "always" answer).
func (s *Store) Add(workspace string, r Rule) error {
	rules := s.Rules(workspace)
	if slices.Contains(rules, r) {
		return nil
	}
	return s.Set(workspace, append(rules, r))
}

// saveEntry sets m[key] to v (keep) or deletes it (!keep), one of s's maps,
// and saves; when the save fails m[key] is back as it was. The caller holds
// mu.
func saveEntry[V any](s *Store, m map[string]V, key string, v V, keep bool) error {
	old, had := m[key]
	put := func(v V, keep bool) {
		if keep {
			m[key] = v
		} else {
			delete(m, key)
		}
	}
	put(v, keep)
	if err := s.save(); err != nil {
		put(old, had)
		return err
	}
	return nil
}

// save writes the file; the caller holds mu.
func (s *Store) save() error {
	if err := atomicfile.WriteJSON(s.path, fileFormat{Workspaces: s.ws, GitWrites: s.git}, 0o600); err != nil {
		return fmt.Errorf("permissions: %w", err)
	}
	return nil
}
