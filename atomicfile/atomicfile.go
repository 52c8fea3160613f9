// Package atomicfile writes a file so that a crash never leaves it torn:
// the data goes to a temporary file beside it, is synced, and is renamed
// over it. The settings, the permission rules, the secrets file and the
// devices' trust file use it; ReadJSON and WriteJSON are the JSON file
// stores' load and save. It imports nothing of the app, so ipc may use it.
package atomicfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, created with mode (applied before any
// byte is written, so a secret is never readable by others even briefly).
// The directory must exist. On error path is unchanged and no temporary
// file is left behind.
func Write(path string, data []byte, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	err = f.Chmod(mode)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// ReadJSON decodes the JSON file at path into v. A missing file is not an
// error: v is left as it is. Otherwise the error names path: "read <path>:
// …" when the file cannot be read, "<path> is not valid JSON: …" when it
// does not parse (a hand edit gone wrong is reported, never dropped).
func ReadJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	return nil
}

// WriteJSON replaces path with v as indented JSON and a final newline,
// with Write's guarantees and mode.
func WriteJSON(path string, v any, mode os.FileMode) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	return Write(path, append(b, '\n'), mode)
}
