package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oklog/ulid/v2"
)

// identity is the side file <db>.identity: which log this data dir last
// held (its epoch) and the newest event id seen in it (high water). It lives
// outside the bbolt file so that replacing or restoring that file — the only
// events after which a client's cursor may name events the log no longer
// has — can be told apart from a crash, which keeps every committed event.
type identity struct {
	Epoch     string `json:"epoch"`
	HighWater string `json:"high_water"`
}

func identityPath(dbPath string) string { return dbPath + ".identity" }

// readIdentity returns the side file's content, or ok=false when it is
// missing or unreadable (treated as an unknown identity).
func readIdentity(dbPath string) (identity, bool) {
	b, err := os.ReadFile(identityPath(dbPath))
	if err != nil {
		return identity{}, false
	}
	var id identity
	if json.Unmarshal(b, &id) != nil || id.Epoch == "" {
		return identity{}, false
	}
	return id, true
}

// writeIdentity replaces the side file atomically (temp file, fsync, rename).
func writeIdentity(dbPath, epoch string, high ulid.ULID) error {
	b, err := json.Marshal(identity{Epoch: epoch, HighWater: high.String()})
	if err != nil {
		return err
	}
	path := identityPath(dbPath)
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("store: write %s: %w", path, err)
	}
	return nil
}

// sameLog reports whether the bbolt file holding epoch with newest id last
// is the log the side file describes: same epoch, and not older than the
// newest id seen in it (an older copy is a restored backup).
func sameLog(side identity, known bool, epoch []byte, last ulid.ULID) bool {
	if !known || epoch == nil || side.Epoch != string(epoch) {
		return false
	}
	high, err := ulid.ParseStrict(side.HighWater)
	if err != nil {
		return false
	}
	return last.Compare(high) >= 0
}
