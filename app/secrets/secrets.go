// Package secrets keeps API keys out of settings.json: in the system
// keyring (Secret Service on Linux, Keychain, Credential Manager) when one
// answers, else in a 0600 file in the data dir. settings.json keeps only a
// reference ("secret:NAME") where the key used to be.
package secrets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zalando/go-keyring"

	"agenthub/atomicfile"
)

// Service is the keyring service the keys are stored under.
const Service = "agenthub"

// RefPrefix starts a reference to a stored secret in settings.json.
const RefPrefix = "secret:"

// FileName is the fallback vault's file in the data dir.
const FileName = "secrets.json"

// ErrNotFound is returned by Get for a name that holds no secret.
var ErrNotFound = errors.New("secret not found")

// Vault stores named secrets.
type Vault interface {
	// Get returns the secret stored under name, or ErrNotFound.
	Get(name string) (string, error)
	// Set stores value under name, replacing any previous one.
	Set(name, value string) error
	// Delete removes name; deleting an absent name is not an error.
	Delete(name string) error
	// Where says where secrets are kept, for Settings.
	Where() string
}

// ProbeTimeout bounds Open's keyring probe. A keyring that must first ask
// for a password (locked, or without a default collection yet) answers only
// after a prompt; the app does not wait for one before its window opens.
const ProbeTimeout = 3 * time.Second

// Open returns the system keyring if it answers a probe within
// ProbeTimeout, else the file vault in dataDir (and why, in its Where). A
// probe that does not answer in time is left to finish on its own (the
// D-Bus call cannot be withdrawn); its goroutine ends when the keyring
// answers or the process exits.
func Open(dataDir string) Vault {
	return openWith(dataDir, func() error { _, err := keyring.Get(Service, "probe"); return err }, ProbeTimeout)
}

// openWith is Open with the probe and its time limit given.
func openWith(dataDir string, probe func() error, limit time.Duration) Vault {
	errc := make(chan error, 1)
	go func() { errc <- probe() }()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case err := <-errc:
		if err == nil || errors.Is(err, keyring.ErrNotFound) {
			return keyringVault{}
		}
		return &fileVault{path: filepath.Join(dataDir, FileName), why: firstLine(err.Error())}
	case <-timer.C:
		return &fileVault{path: filepath.Join(dataDir, FileName),
			why: fmt.Sprintf("the system keyring did not answer within %s (locked, waiting for a password prompt?)", limit)}
	}
}

// OpenFile returns the file vault in dataDir (no keyring probe).
func OpenFile(dataDir string) Vault {
	return &fileVault{path: filepath.Join(dataDir, FileName), why: "chosen"}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// IsRef reports whether a settings value is a reference to a stored secret.
func IsRef(value string) bool { return strings.HasPrefix(value, RefPrefix) }

// Resolve returns the secret a settings value stands for: the stored
// secret for a reference, the value itself otherwise.
func Resolve(v Vault, value string) (string, error) {
	if !IsRef(value) {
		return value, nil
	}
	name := strings.TrimPrefix(value, RefPrefix)
	s, err := v.Get(name)
	if errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("secret %q is not in the %s: enter the key again in Settings", name, v.Where())
	}
	return s, err
}

// Stash stores a plain value under name and returns the reference to keep
// in settings.json instead. An empty value deletes the secret and returns "".
// A value that is already a reference is returned as is.
func Stash(v Vault, name, value string) (string, error) {
	switch {
	case IsRef(value):
		return value, nil
	case value == "":
		return "", v.Delete(name)
	}
	if err := v.Set(name, value); err != nil {
		return "", err
	}
	return RefPrefix + name, nil
}

// keyringVault is the system keyring.
type keyringVault struct{}

func (keyringVault) Get(name string) (string, error) {
	s, err := keyring.Get(Service, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("keyring: read %s: %w", name, err)
	}
	return s, nil
}

func (keyringVault) Set(name, value string) error {
	if err := keyring.Set(Service, name, value); err != nil {
		return fmt.Errorf("keyring: store %s: %w", name, err)
	}
	return nil
}

func (keyringVault) Delete(name string) error {
	if err := keyring.Delete(Service, name); err != nil && !errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("keyring: delete %s: %w", name, err)
	}
	return nil
}

func (keyringVault) Where() string { return "system keyring" }

// fileVault is a 0600 JSON file: the fallback without a keyring.
type fileVault struct {
	path string
	why  string
	mu   sync.Mutex
}

// Where says, in a plain sentence for the Settings dialog, that the keys
// are in the 0600 file and that no system keyring was found; the
// technical reason is Reason's (for the log).
func (f *fileVault) Where() string {
	if f.why == "chosen" {
		return fmt.Sprintf("a file only you can read (0600): %s", f.path)
	}
	if strings.HasPrefix(f.why, "the system keyring did not answer") { // already a sentence
		return fmt.Sprintf("a file only you can read (0600): %s — %s", f.path, f.why)
	}
	return fmt.Sprintf("a file only you can read (0600): %s — no system keyring is running on this computer", f.path)
}

// Reason is why the file is used instead of the system keyring (the
// keyring's own error, for the log).
func (f *fileVault) Reason() string {
	return f.why
}

func (f *fileVault) load() (map[string]string, error) {
	m := map[string]string{} // stays empty when the file is missing
	if err := atomicfile.ReadJSON(f.path, &m); err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return m, nil
}

func (f *fileVault) Get(name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return "", err
	}
	s, ok := m[name]
	if !ok {
		return "", ErrNotFound
	}
	return s, nil
}

func (f *fileVault) Set(name, value string) error {
	return f.update(func(m map[string]string) { m[name] = value })
}

func (f *fileVault) Delete(name string) error {
	return f.update(func(m map[string]string) { delete(m, name) })
}

// update rewrites the file atomically (temp file + rename, 0600).
func (f *fileVault) update(change func(map[string]string)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.load()
	if err != nil {
		return err
	}
	change(m)
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("secrets: %w", err)
	}
	if err := atomicfile.WriteJSON(f.path, m, 0o600); err != nil {
		return fmt.Errorf("secrets: %w", err)
	}
	return nil
}
