// Package devices is what a hub trusts when it is reached through a
// gateway (docs/protocol.md §11): its own device id, the devices its user
// confirmed — each with its rights (full or read-only) and the hash of the
// token it paired with — and the pairing tokens not yet used. It lives in
// DATA_DIR/devices.json (mode 0600), read and replaced under a file lock,
// so `agenthub devices` and the running hub can both change it.
//
// A device proves itself with the token it paired with, every time it
// verifies: a device id alone proves nothing, because any socket may
// register any free id at a gateway.
package devices

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"agenthub/atomicfile"

	"github.com/google/uuid"
)

// File is the trust file's name in the data dir.
const File = "devices.json"

// Rights of a device.
type Rights string

const (
	// Full: everything a local client may do, except managing devices.
	Full Rights = "full"
	// ReadOnly: watch (subscribe, read history, search), no submit,
	// approve, cancel or settings.
	ReadOnly Rights = "read-only"
)

// ParseRights reads "full" or "read-only" ("" is full).
func ParseRights(s string) (Rights, error) {
	switch Rights(s) {
	case "", Full:
		return Full, nil
	case ReadOnly:
		return ReadOnly, nil
	}
	return "", fmt.Errorf("rights %q: want full or read-only", s)
}

// PairingTTL is how long a pairing token can be used.
const PairingTTL = 15 * time.Minute

// Errors of Authenticate and Redeem.
var (
	// ErrUnknownDevice: no confirmed device has this id.
	ErrUnknownDevice = errors.New("device not confirmed on this hub")
	// ErrBadToken: the token is not this device's, or no pairing token.
	ErrBadToken = errors.New("invalid or expired token")
)

// Device is a confirmed device.
type Device struct {
	ID      string            `json:"device_id"`
	Rights  Rights            `json:"rights"`
	AddedAt time.Time         `json:"added_at"`
	Meta    map[string]string `json:"meta,omitempty"`
	// TokenHash is the SHA-256 of the token it paired with (hex).
	TokenHash string `json:"token_sha256"`
}

// Pairing is a pairing token not yet used (only its hash is kept).
type Pairing struct {
	TokenHash string    `json:"token_sha256"`
	Rights    Rights    `json:"rights"`
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

type state struct {
	HubID   string    `json:"hub_id"`
	Devices []Device  `json:"devices"`
	Pairing []Pairing `json:"pairing"`
}

// Store is the trust file of one data dir. Safe for concurrent use, also
// across processes (a file lock around every change).
type Store struct {
	path string
	now  func() time.Time
	mu   sync.Mutex
}

// Open returns the store of dataDir (nothing is read or created yet).
func Open(dataDir string) *Store {
	return &Store{path: filepath.Join(dataDir, File), now: time.Now}
}

// Path is the trust file.
func (s *Store) Path() string { return s.path }

// HubID returns the hub's device id, creating (and saving) a UUIDv7 the
// first time: it stays the same for the life of the data dir.
func (s *Store) HubID() (string, error) {
	var id string
	err := s.update(func(st *state) (bool, error) {
		if st.HubID != "" {
			id = st.HubID
			return false, nil
		}
		u, err := uuid.NewV7()
		if err != nil {
			return false, fmt.Errorf("devices: new hub id: %w", err)
		}
		st.HubID, id = u.String(), u.String()
		return true, nil
	})
	return id, err
}

// KnownHubID returns the hub's id if one was made ("" before), creating
// nothing.
func (s *Store) KnownHubID() (string, error) {
	st, err := s.read()
	return st.HubID, err
}

// Pair mints a pairing token with rights, valid for PairingTTL. Only its
// hash is stored: the token is shown once, here.
func (s *Store) Pair(rights Rights) (token string, expires time.Time, err error) {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", time.Time{}, fmt.Errorf("devices: token: %w", err)
	}
	token = "ahp_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
	now := s.now()
	expires = now.Add(PairingTTL)
	err = s.update(func(st *state) (bool, error) {
		st.Pairing = append(st.Pairing, Pairing{TokenHash: hash(token), Rights: rights, CreatedAt: now, ExpiresAt: expires})
		return true, nil
	})
	return token, expires, err
}

// Devices lists the confirmed devices, oldest first.
func (s *Store) Devices() ([]Device, error) {
	st, err := s.read()
	if err != nil {
		return nil, err
	}
	sort.SliceStable(st.Devices, func(i, j int) bool { return st.Devices[i].AddedAt.Before(st.Devices[j].AddedAt) })
	return st.Devices, nil
}

// Lookup returns the confirmed device id.
func (s *Store) Lookup(id string) (Device, bool, error) {
	st, err := s.read()
	if err != nil {
		return Device{}, false, err
	}
	for _, d := range st.Devices {
		if d.ID == id {
			return d, true, nil
		}
	}
	return Device{}, false, nil
}

// Authenticate checks a confirmed device's token: ErrUnknownDevice when
// no device has the id, ErrBadToken when the token is not the one it
// paired with.
func (s *Store) Authenticate(id, token string) (Device, error) {
	d, ok, err := s.Lookup(id)
	switch {
	case err != nil:
		return Device{}, err
	case !ok:
		return Device{}, ErrUnknownDevice
	case token == "" || !sameHash(d.TokenHash, hash(token)):
		return Device{}, ErrBadToken
	}
	return d, nil
}

// Redeemable returns the pairing token's entry if it is unused and
// unexpired (ErrBadToken otherwise). It does not consume it.
func (s *Store) Redeemable(token string) (Pairing, error) {
	st, err := s.read()
	if err != nil {
		return Pairing{}, err
	}
	h := hash(token)
	for _, p := range st.Pairing {
		if sameHash(p.TokenHash, h) && s.now().Before(p.ExpiresAt) {
			return p, nil
		}
	}
	return Pairing{}, ErrBadToken
}

// Confirm consumes the pairing token and records device id with rights
// and meta, bound to that token (ErrBadToken when the token is no longer
// redeemable). A device already confirmed under id is replaced.
func (s *Store) Confirm(id, token string, rights Rights, meta map[string]string) (Device, error) {
	d := Device{ID: id, Rights: rights, AddedAt: s.now().UTC(), Meta: meta, TokenHash: hash(token)}
	err := s.update(func(st *state) (bool, error) {
		i := pairingIndex(st, hash(token), s.now())
		if i < 0 {
			return false, ErrBadToken
		}
		st.Pairing = append(st.Pairing[:i], st.Pairing[i+1:]...)
		st.Devices = removeDevice(st.Devices, id)
		st.Devices = append(st.Devices, d)
		return true, nil
	})
	return d, err
}

// Discard drops an unused pairing token (a denied device's).
func (s *Store) Discard(token string) error {
	return s.update(func(st *state) (bool, error) {
		i := pairingIndex(st, hash(token), time.Time{})
		if i < 0 {
			return false, nil
		}
		st.Pairing = append(st.Pairing[:i], st.Pairing[i+1:]...)
		return true, nil
	})
}

// Revoke forgets device id; it reports whether it was confirmed.
func (s *Store) Revoke(id string) (bool, error) {
	found := false
	err := s.update(func(st *state) (bool, error) {
		n := len(st.Devices)
		st.Devices = removeDevice(st.Devices, id)
		found = len(st.Devices) != n
		return found, nil
	})
	return found, err
}

// SetRights changes a confirmed device's rights (ErrUnknownDevice if none).
func (s *Store) SetRights(id string, rights Rights) error {
	return s.update(func(st *state) (bool, error) {
		for i := range st.Devices {
			if st.Devices[i].ID == id {
				st.Devices[i].Rights = rights
				return true, nil
			}
		}
		return false, ErrUnknownDevice
	})
}

// read loads the file (a missing file is an empty state).
func (s *Store) read() (state, error) {
	var st state
	b, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("devices: %w", err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("devices: %s is not valid JSON (fix or remove it): %w", s.path, err)
	}
	return st, nil
}

// update reads, changes and (when change says so) replaces the file, all
// under the process mutex and the file lock. Expired pairing tokens are
// dropped on every write.
func (s *Store) update(change func(*state) (bool, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	unlock, err := lockFile(s.path + ".lock")
	if err != nil {
		return fmt.Errorf("devices: lock: %w", err)
	}
	defer unlock()
	st, err := s.read()
	if err != nil {
		return err
	}
	changed, err := change(&st)
	if err != nil || !changed {
		return err
	}
	now := s.now()
	live := st.Pairing[:0]
	for _, p := range st.Pairing {
		if now.Before(p.ExpiresAt) {
			live = append(live, p)
		}
	}
	st.Pairing = live
	if err := atomicfile.WriteJSON(s.path, st, 0o600); err != nil {
		return fmt.Errorf("devices: %w", err)
	}
	return nil
}

func pairingIndex(st *state, h string, now time.Time) int {
	for i, p := range st.Pairing {
		if sameHash(p.TokenHash, h) && (now.IsZero() || now.Before(p.ExpiresAt)) {
			return i
		}
	}
	return -1
}

func removeDevice(ds []Device, id string) []Device {
	out := ds[:0]
	for _, d := range ds {
		if d.ID != id {
			out = append(out, d)
		}
	}
	return out
}

func hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

func sameHash(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
