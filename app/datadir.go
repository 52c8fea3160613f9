package app

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// goos is the platform the data dir rules follow.
var goos = runtime.GOOS

// dirName is the data dir's leaf name under the OS user data dir.
const dirName = "agenthub"

// ResolveDataDir returns the data dir to use: explicit (made absolute) when
// non-empty, else the OS user data dir for goos, looked up through getenv:
// $XDG_DATA_HOME/agenthub or $HOME/.local/share/agenthub on Linux and other
// Unixes, $HOME/Library/Application Support/agenthub on macOS,
// %AppData%\agenthub on Windows. It fails when neither the XDG variable nor
// the home directory is known.
func ResolveDataDir(explicit, goos string, getenv func(string) string) (string, error) {
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return "", fmt.Errorf("data dir %q: %w", explicit, err)
		}
		return abs, nil
	}
	switch goos {
	case "windows":
		if d := getenv("AppData"); d != "" {
			return filepath.Join(d, dirName), nil
		}
		return "", fmt.Errorf("data dir: %%AppData%% is not set; pass --data-dir")
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support", dirName), nil
		}
	default:
		if x := getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
			return filepath.Join(x, dirName), nil
		}
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, ".local", "share", dirName), nil
		}
	}
	return "", fmt.Errorf("data dir: $HOME is not set; pass --data-dir")
}

// DefaultDataDir is ResolveDataDir("", runtime.GOOS, os.Getenv).
func DefaultDataDir() (string, error) {
	return ResolveDataDir("", runtime.GOOS, os.Getenv)
}

// describeDefaultDataDir renders the default for --help, or a description
// of it when it cannot be resolved.
func describeDefaultDataDir() string {
	if d, err := DefaultDataDir(); err == nil {
		return d
	}
	return "the OS user data dir"
}

// EnsureDataDir creates dir (and parents) with mode 0700 if missing and
// checks that it is a directory.
func EnsureDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data dir %s: %w", dir, err)
	}
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("data dir %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("data dir %s: not a directory", dir)
	}
	return nil
}
