package custom

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"agenthub/atomicfile"
)

// TrustFileName is the file in the data dir that remembers which
// repository commands with shell lines the user let run.
const TrustFileName = "trusted-commands.json"

// Trust remembers the repository commands whose shell lines the user let
// run: by the file's path and the SHA-256 of its content, so a changed
// file asks again. Safe for concurrent use.
type Trust struct {
	path string
	mu   sync.Mutex
	m    map[string]string // path → hash
}

// OpenTrust reads path (a missing file is empty). A file that does not
// parse is an error naming it.
func OpenTrust(path string) (*Trust, error) {
	t := &Trust{path: path, m: map[string]string{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trusted commands: %w", err)
	}
	var f struct {
		Commands map[string]string `json:"commands"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("trusted commands: %s is not valid JSON: %w", path, err)
	}
	for p, h := range f.Commands {
		t.m[p] = h
	}
	return t, nil
}

// NeedsTrust reports whether running c needs the user's say first: a
// repository's command with shell lines that was never let run as it is
// now. The user's own commands never do.
func (t *Trust) NeedsTrust(c Command) bool {
	if c.Source != SourceProject || len(c.Shell) == 0 {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[c.Path] != c.Hash
}

// Grant remembers that the user let c run as it is now.
func (t *Trust) Grant(c Command) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	old, had := t.m[c.Path]
	t.m[c.Path] = c.Hash
	b, err := json.MarshalIndent(struct {
		Commands map[string]string `json:"commands"`
	}{t.m}, "", "  ")
	if err == nil {
		err = atomicfile.Write(t.path, append(b, '\n'), 0o600)
	}
	if err != nil {
		if had {
			t.m[c.Path] = old
		} else {
			delete(t.m, c.Path)
		}
		return fmt.Errorf("trusted commands: %w", err)
	}
	return nil
}
