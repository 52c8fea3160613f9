package store

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// ErrNotFound is returned (possibly wrapped) by reads of a session, message
// or turn that does not exist. Test with errors.Is.
var ErrNotFound = errors.New("store: not found")

// Options configures Open.
type Options struct {
	// Timeout bounds the wait for the file lock held by another process.
	// Zero means 1s. A negative value waits forever.
	Timeout time.Duration
	// NoSync skips fsync on commit (tests and benchmarks only: a crash may
	// lose or corrupt committed data).
	NoSync bool
}

// DB is the open bbolt file. It is safe for concurrent use; writes should
// come from the single log writer (ipc.Bus) via Commit.
type DB struct {
	bolt      *bolt.DB
	path      string
	epoch     string
	floor     ulid.ULID
	recovered bool
}

// Root bucket names.
var (
	bucketMeta     = []byte("meta")
	bucketSessions = []byte("sessions")
	bucketMessages = []byte("messages") // sessionID → {o: offset→json, i: id→offset}
	bucketTurns    = []byte("turns")    // sessionID → turnID → json
	bucketEvents   = []byte("events")   // ULID → encoded EventRecord
	bucketSessEv   = []byte("sessev")   // sessionID → ULID → nil
	bucketGroups   = []byte("groups")   // streaming group key → ULID of the closing event

	keyEpoch  = []byte("epoch")
	keyFloor  = []byte("epoch_floor")
	keyClean  = []byte("clean")
	keyLast   = []byte("last_event_id")
	keyPruned = []byte("pruned_through")
)

// Open opens (creating if needed) the bbolt file at path. If another process
// holds the file, Open fails after opts.Timeout with an error naming the
// file's directory.
//
// The epoch names the log's identity. It is kept across clean and unclean
// shutdowns alike (every id a client saw was committed, so its cursor stays
// valid after a crash; RecoveredFromCrash reports the unclean one). A new
// epoch, whose floor is the newest event id on disk, begins only when the
// log's identity changed: a new file, a file other than the one the side
// file <path>.identity describes (replaced), or an older copy of it
// (restored: its newest id is below the side file's high water) — then
// cursors from before can never resume. The side file is rewritten at Open
// and Close; a copy restored within one run is not detected.
func Open(path string, opts Options) (*DB, error) {
	timeout := opts.Timeout
	switch {
	case timeout == 0:
		timeout = time.Second
	case timeout < 0:
		timeout = 0
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: create data dir %s: %w", filepath.Dir(path), err)
	}
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{
		Timeout:      timeout,
		NoSync:       opts.NoSync,
		FreelistType: bolt.FreelistMapType,
	})
	if err != nil {
		if errors.Is(err, berrors.ErrTimeout) {
			return nil, fmt.Errorf("store: data dir %s is in use by another Agent Hub process (lock on %s not acquired within %s): %w",
				filepath.Dir(path), filepath.Base(path), timeout, err)
		}
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db := &DB{bolt: bdb, path: path}
	if err := db.init(); err != nil {
		_ = bdb.Close()
		return nil, err
	}
	return db, nil
}

// init creates the buckets, decides the epoch and records the log's
// identity in the side file.
func (db *DB) init() error {
	side, known := readIdentity(db.path)
	var last ulid.ULID
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketMeta, bucketSessions, bucketMessages, bucketTurns, bucketEvents, bucketSessEv, bucketGroups} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		meta := tx.Bucket(bucketMeta)
		oldEpoch := meta.Get(keyEpoch)
		clean := meta.Get(keyClean)
		db.recovered = oldEpoch != nil && !(len(clean) == 1 && clean[0] == 1)
		if sameLog(side, known, oldEpoch, lastEventID(tx)) {
			db.epoch = string(oldEpoch)
			if f := meta.Get(keyFloor); len(f) == 16 {
				copy(db.floor[:], f)
			}
		} else {
			db.epoch = ulid.MustNew(ulid.Now(), rand.Reader).String()
			db.floor = lastEventID(tx)
			if err := meta.Put(keyEpoch, []byte(db.epoch)); err != nil {
				return err
			}
			if err := meta.Put(keyFloor, db.floor[:]); err != nil {
				return err
			}
		}
		last = lastEventID(tx)
		return meta.Put(keyClean, []byte{0})
	})
	if err != nil {
		return fmt.Errorf("store: initialise %s: %w", db.path, err)
	}
	return writeIdentity(db.path, db.epoch, last)
}

// Close records a clean shutdown and the log's high water in the side file,
// and closes the file. The caller must have stopped writing.
func (db *DB) Close() error {
	var last ulid.ULID
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		last = lastEventID(tx)
		return tx.Bucket(bucketMeta).Put(keyClean, []byte{1})
	})
	if err == nil {
		err = writeIdentity(db.path, db.epoch, last)
	}
	cerr := db.bolt.Close()
	if err != nil {
		return fmt.Errorf("store: record clean shutdown: %w", err)
	}
	if cerr != nil {
		return fmt.Errorf("store: close %s: %w", db.path, cerr)
	}
	return nil
}

// Path returns the file path the DB was opened with.
func (db *DB) Path() string { return db.path }

// Epoch returns the log's epoch id. It changes only when the log's
// identity does (a new, replaced or restored file), never on a crash.
func (db *DB) Epoch() string { return db.epoch }

// EpochFloor returns the newest event id that existed when the current epoch
// began (zero for none). A cursor is valid only if it is greater than this.
func (db *DB) EpochFloor() ulid.ULID { return db.floor }

// RecoveredFromCrash reports whether Open found the previous shutdown unclean.
func (db *DB) RecoveredFromCrash() bool { return db.recovered }

// Check runs bbolt's consistency check and returns every problem found.
func (db *DB) Check() error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		return errors.Join(errs...)
	})
}

// View runs fn in one read transaction: every read through tx sees the same
// committed state. tx must not be used after fn returns.
func (db *DB) View(fn func(tx *Tx) error) error {
	return db.bolt.View(func(btx *bolt.Tx) error { return fn(&Tx{tx: btx}) })
}

// Commit appends events (ids strictly increasing and greater than every id
// already stored) and applies ops, in that order, in one durable
// transaction: either all of it is stored or none of it.
func (db *DB) Commit(events []EventRecord, ops []Op) error {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		if err := appendEvents(tx, events); err != nil {
			return err
		}
		for i, op := range ops {
			if err := apply(tx, op); err != nil {
				return fmt.Errorf("op %d: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: commit %d events, %d ops: %w", len(events), len(ops), err)
	}
	return nil
}

// LastEventID returns the newest event id ever committed (even if since
// pruned), or the zero ULID for an empty log.
func (db *DB) LastEventID() (ulid.ULID, error) {
	var id ulid.ULID
	err := db.bolt.View(func(tx *bolt.Tx) error {
		id = lastEventID(tx)
		return nil
	})
	return id, err
}

func lastEventID(tx *bolt.Tx) ulid.ULID {
	var id ulid.ULID
	if v := tx.Bucket(bucketMeta).Get(keyLast); len(v) == 16 {
		copy(id[:], v)
	}
	if k, _ := tx.Bucket(bucketEvents).Cursor().Last(); len(k) == 16 && string(k) > string(id[:]) {
		copy(id[:], k)
	}
	return id
}

// CloseUnclean closes the file WITHOUT recording a clean shutdown, exactly
// as if the process had been killed after its last commit. For crash tests
// of this and dependent packages.
func CloseUnclean(db *DB) error {
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", db.path, err)
	}
	return nil
}
