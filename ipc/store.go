package ipc

import (
	"time"

	"github.com/oklog/ulid/v2"

	"agenthub/store"
)

// Store is the persistence the bus is built on: one ordered event log and
// the state (sessions, messages, turns) that changes with it, written by
// the bus's single writer and read by everyone. store.DB (bbolt) implements
// it through BoltStore; MemoryStore is the in-memory twin most tests use;
// any other backend must pass the conformance suite in ipc/storetest.
type Store interface {
	// Commit appends events — ids strictly increasing and greater than every
	// id ever committed, each with a session id and a type — and applies
	// ops in order, atomically and durably: after it returns nil every
	// later View sees all of it; after an error, none of it.
	Commit(events []store.EventRecord, ops []store.Op) error
	// View runs fn against one consistent snapshot of everything committed
	// so far; commits that finish meanwhile are not seen through it. The
	// view must not be used after fn returns. fn's error is returned as is.
	View(fn func(StoreView) error) error
	// Prune deletes events past retention — every event older than
	// eventRetention, and streaming events whose group closed more than
	// deltaRetention before now (ages from the ids' timestamps) — and
	// returns how many it deleted. State (sessions, messages, turns) is
	// never pruned.
	Prune(now time.Time, eventRetention, deltaRetention time.Duration) (int, error)
	// Epoch names the log's identity: a cursor from another epoch can never
	// resume. It does not change while the Store is open.
	Epoch() string
	// EpochFloor is the newest id that existed when the epoch began (zero
	// for none); a cursor must be greater than it.
	EpochFloor() ulid.ULID
}

// StoreView is one consistent read snapshot of a Store (see Store.View).
// Absent sessions, messages, turns and events are store.ErrNotFound
// (wrapped) where a method returns an error for them.
type StoreView interface {
	// Session returns one session.
	Session(id string) (store.Session, error)
	// Sessions returns every session, newest (CreatedAt, then id) first.
	Sessions() ([]store.Session, error)
	// Message returns one message of a session.
	Message(sessionID, id string) (store.Message, error)
	// MessageCount returns the number of messages of a session (its next offset).
	MessageCount(sessionID string) int
	// Messages returns the messages with offset in [offset, offset+limit),
	// oldest first, and the session's total; limit ≤ 0 means all.
	Messages(sessionID string, offset, limit int) ([]store.Message, int, error)
	// MessagesBefore returns up to limit messages older than beforeID (""
	// = from the newest), oldest first, and whether older ones remain; an
	// unknown beforeID is ErrNotFound; limit ≤ 0 means 50.
	MessagesBefore(sessionID, beforeID string, limit int) ([]store.Message, bool, error)
	// Turns returns a session's turns, oldest (CreatedAt, then id) first.
	Turns(sessionID string) ([]store.Turn, error)
	// TurnsWithStatus returns every session's turns whose status is one of
	// status, oldest first.
	TurnsWithStatus(status ...string) ([]store.Turn, error)
	// EventsAfter calls fn for every event with id > after whose session is
	// in sessionIDs, ascending; fn's error stops the walk and is returned.
	EventsAfter(sessionIDs []string, after ulid.ULID, fn func(store.EventRecord) error) error
	// EventsBefore calls fn for one session's events with id < before (zero:
	// from the newest), descending, until fn returns store.ErrStop
	// (swallowed) or another error (returned).
	EventsBefore(sessionID string, before ulid.ULID, fn func(store.EventRecord) error) error
	// Event returns one event by id.
	Event(id ulid.ULID) (store.EventRecord, error)
	// PrunedThrough returns the newest id retention deleted (zero if none).
	PrunedThrough() ulid.ULID
	// LastEventID returns the newest id ever committed, even if since pruned.
	LastEventID() ulid.ULID
}

// BoltStore is the Store on an open bbolt file. The caller keeps
// ownership of db and closes it after the bus.
func BoltStore(db *store.DB) Store { return boltStore{db} }

var _ Store = boltStore{}

type boltStore struct{ *store.DB }

// View adapts store.DB.View's transaction to StoreView.
func (s boltStore) View(fn func(StoreView) error) error {
	return s.DB.View(func(tx *store.Tx) error { return fn(tx) })
}

var (
	_ Store     = boltStore{}
	_ StoreView = (*store.Tx)(nil)
)

// StoreReader reads a Store one call at a time, each call in its own View
// (history pages, session lists: reads that need no snapshot across calls).
type StoreReader struct{ Store Store }

// Session returns one session; store.ErrNotFound (wrapped) when absent.
func (r StoreReader) Session(id string) (s store.Session, err error) {
	err = r.Store.View(func(v StoreView) error { s, err = v.Session(id); return err })
	return s, err
}

// Sessions returns every session, newest first.
func (r StoreReader) Sessions() (ss []store.Session, err error) {
	err = r.Store.View(func(v StoreView) error { ss, err = v.Sessions(); return err })
	return ss, err
}

// Message returns one message; store.ErrNotFound (wrapped) when absent.
func (r StoreReader) Message(sessionID, id string) (m store.Message, err error) {
	err = r.Store.View(func(v StoreView) error { m, err = v.Message(sessionID, id); return err })
	return m, err
}

// Messages returns a page of the session's current path by position, and
// the path's length (PathMessages; for an unbranched session, by storage
// offset as StoreView.Messages).
func (r StoreReader) Messages(sessionID string, offset, limit int) (ms []store.Message, total int, err error) {
	err = r.Store.View(func(v StoreView) error { ms, total, err = PathMessages(v, sessionID, offset, limit); return err })
	return ms, total, err
}

// MessagesBefore pages backwards along the current path from beforeID
// (PathMessagesBefore).
func (r StoreReader) MessagesBefore(sessionID, beforeID string, limit int) (ms []store.Message, more bool, err error) {
	err = r.Store.View(func(v StoreView) error { ms, more, err = PathMessagesBefore(v, sessionID, beforeID, limit); return err })
	return ms, more, err
}

// BranchMessages pages the branch through messageID ("" = the current path).
func (r StoreReader) BranchMessages(sessionID, messageID string, offset, limit int) (ms []store.Message, total int, err error) {
	err = r.Store.View(func(v StoreView) error {
		ms, total, err = BranchMessages(v, sessionID, messageID, offset, limit)
		return err
	})
	return ms, total, err
}

// BranchMessagesBefore pages the branch through messageID backwards.
func (r StoreReader) BranchMessagesBefore(sessionID, messageID, beforeID string, limit int) (ms []store.Message, more bool, err error) {
	err = r.Store.View(func(v StoreView) error {
		ms, more, err = BranchMessagesBefore(v, sessionID, messageID, beforeID, limit)
		return err
	})
	return ms, more, err
}

// StoredMessages returns every stored message of a session, every branch,
// in storage order (offsets are storage offsets).
func (r StoreReader) StoredMessages(sessionID string) (ms []store.Message, err error) {
	err = r.Store.View(func(v StoreView) error { ms, _, err = v.Messages(sessionID, 0, 0); return err })
	return ms, err
}

// Tree reads a session's message tree (every branch).
func (r StoreReader) Tree(sessionID string) (t *Tree, err error) {
	err = r.Store.View(func(v StoreView) error { t, err = LoadTree(v, sessionID); return err })
	return t, err
}

// Turns returns a session's turns, oldest first.
func (r StoreReader) Turns(sessionID string) (ts []store.Turn, err error) {
	err = r.Store.View(func(v StoreView) error { ts, err = v.Turns(sessionID); return err })
	return ts, err
}

// TurnsWithStatus returns turns across sessions with one of the statuses, oldest first.
func (r StoreReader) TurnsWithStatus(status ...string) (ts []store.Turn, err error) {
	err = r.Store.View(func(v StoreView) error { ts, err = v.TurnsWithStatus(status...); return err })
	return ts, err
}

// LastEventID returns the newest id ever committed (StoreView.LastEventID).
func (r StoreReader) LastEventID() (id ulid.ULID, err error) {
	err = r.Store.View(func(v StoreView) error { id = v.LastEventID(); return nil })
	return id, err
}

// SessionEvents calls fn for one session's events with id > after, ascending.
func (r StoreReader) SessionEvents(sessionID string, after ulid.ULID, fn func(store.EventRecord) error) error {
	return r.Store.View(func(v StoreView) error { return v.EventsAfter([]string{sessionID}, after, fn) })
}
