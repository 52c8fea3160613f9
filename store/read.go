package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// Tx is a read transaction (see DB.View). Every read through one Tx sees the
// same committed state.
type Tx struct{ tx *bolt.Tx }

// Session returns one session; ErrNotFound if absent.
func (t *Tx) Session(id string) (Session, error) {
	var s Session
	v := t.tx.Bucket(bucketSessions).Get([]byte(id))
	if v == nil {
		return s, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	if err := json.Unmarshal(v, &s); err != nil {
		return s, fmt.Errorf("store: decode session %s: %w", id, err)
	}
	return s, nil
}

// Sessions returns every session, newest (by CreatedAt, then id) first.
func (t *Tx) Sessions() ([]Session, error) {
	var out []Session
	err := t.tx.Bucket(bucketSessions).ForEach(func(k, v []byte) error {
		var s Session
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("store: decode session %s: %w", k, err)
		}
		out = append(out, s)
		return nil
	})
	slices.SortFunc(out, func(a, b Session) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, err
}

func (t *Tx) msgBuckets(sessionID string) (ob, ib *bolt.Bucket) {
	sb := t.tx.Bucket(bucketMessages).Bucket([]byte(sessionID))
	if sb == nil {
		return nil, nil
	}
	return sb.Bucket(subOffsets), sb.Bucket(subIDs)
}

// decodeMessage decodes a stored message and joins its turn's outcome
// onto a user message that started a turn.
func (t *Tx) decodeMessage(v []byte) (Message, error) {
	var m Message
	if err := json.Unmarshal(v, &m); err != nil {
		return m, fmt.Errorf("store: decode message: %w", err)
	}
	if m.Role == RoleUser && m.TurnID != "" {
		if tb := t.tx.Bucket(bucketTurns).Bucket([]byte(m.SessionID)); tb != nil {
			if tv := tb.Get([]byte(m.TurnID)); tv != nil {
				var tu Turn
				if err := json.Unmarshal(tv, &tu); err != nil {
					return m, fmt.Errorf("store: decode turn %s: %w", m.TurnID, err)
				}
				m.Turn = tu.Outcome()
			}
		}
	}
	return m, nil
}

// Message returns one message; ErrNotFound if absent.
func (t *Tx) Message(sessionID, id string) (Message, error) {
	ob, ib := t.msgBuckets(sessionID)
	if ib != nil {
		if off := ib.Get([]byte(id)); off != nil {
			if v := ob.Get(off); v != nil {
				return t.decodeMessage(v)
			}
		}
	}
	return Message{}, fmt.Errorf("message %s in session %s: %w", id, sessionID, ErrNotFound)
}

// MessageCount returns the number of messages of a session (the next offset).
func (t *Tx) MessageCount(sessionID string) int {
	ob, _ := t.msgBuckets(sessionID)
	if ob == nil {
		return 0
	}
	return int(ob.Sequence())
}

// Messages returns the messages with offset in [offset, offset+limit),
// oldest first, and the session's total message count. limit <= 0 means all.
func (t *Tx) Messages(sessionID string, offset, limit int) ([]Message, int, error) {
	ob, _ := t.msgBuckets(sessionID)
	if ob == nil {
		return nil, 0, nil
	}
	total := int(ob.Sequence())
	if offset < 0 {
		offset = 0
	}
	var out []Message
	var key [8]byte
	binary.BigEndian.PutUint64(key[:], uint64(offset))
	c := ob.Cursor()
	for k, v := c.Seek(key[:]); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Next() {
		m, err := t.decodeMessage(v)
		if err != nil {
			return nil, total, err
		}
		out = append(out, m)
	}
	return out, total, nil
}

// MessagesBefore returns up to limit messages older than beforeID ("" = from
// the newest), oldest→newest, and whether older ones remain. An unknown
// beforeID is ErrNotFound. limit <= 0 means 50.
func (t *Tx) MessagesBefore(sessionID, beforeID string, limit int) ([]Message, bool, error) {
	if limit <= 0 {
		limit = 50
	}
	ob, ib := t.msgBuckets(sessionID)
	if ob == nil {
		if beforeID != "" {
			return nil, false, fmt.Errorf("message %s in session %s: %w", beforeID, sessionID, ErrNotFound)
		}
		return nil, false, nil
	}
	c := ob.Cursor()
	var k, v []byte
	if beforeID == "" {
		k, v = c.Last()
	} else {
		off := ib.Get([]byte(beforeID))
		if off == nil {
			return nil, false, fmt.Errorf("message %s in session %s: %w", beforeID, sessionID, ErrNotFound)
		}
		c.Seek(off)
		k, v = c.Prev()
	}
	var out []Message
	for ; k != nil && len(out) < limit; k, v = c.Prev() {
		m, err := t.decodeMessage(v)
		if err != nil {
			return nil, false, err
		}
		out = append(out, m)
	}
	slices.Reverse(out)
	return out, k != nil, nil
}

// Turns returns a session's turns, oldest (by CreatedAt, then id) first.
func (t *Tx) Turns(sessionID string) ([]Turn, error) {
	sb := t.tx.Bucket(bucketTurns).Bucket([]byte(sessionID))
	if sb == nil {
		return nil, nil
	}
	var out []Turn
	err := sb.ForEach(func(k, v []byte) error {
		var tu Turn
		if err := json.Unmarshal(v, &tu); err != nil {
			return fmt.Errorf("store: decode turn %s: %w", k, err)
		}
		out = append(out, tu)
		return nil
	})
	sortTurns(out)
	return out, err
}

func sortTurns(ts []Turn) {
	slices.SortFunc(ts, func(a, b Turn) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// TurnsWithStatus returns the turns of every session whose status is one of
// status, oldest first.
func (t *Tx) TurnsWithStatus(status ...string) ([]Turn, error) {
	var out []Turn
	err := t.tx.Bucket(bucketTurns).ForEachBucket(func(sid []byte) error {
		return t.tx.Bucket(bucketTurns).Bucket(sid).ForEach(func(k, v []byte) error {
			var tu Turn
			if err := json.Unmarshal(v, &tu); err != nil {
				return fmt.Errorf("store: decode turn %s: %w", k, err)
			}
			if slices.Contains(status, tu.Status) {
				out = append(out, tu)
			}
			return nil
		})
	})
	sortTurns(out)
	return out, err
}

// Session returns one session; ErrNotFound (wrapped) when absent.
func (db *DB) Session(id string) (s Session, err error) {
	err = db.View(func(tx *Tx) error { s, err = tx.Session(id); return err })
	return s, err
}

// Sessions returns every session, newest first.
func (db *DB) Sessions() (ss []Session, err error) {
	err = db.View(func(tx *Tx) error { ss, err = tx.Sessions(); return err })
	return ss, err
}

// Message returns one message; ErrNotFound (wrapped) when absent.
func (db *DB) Message(sessionID, id string) (m Message, err error) {
	err = db.View(func(tx *Tx) error { m, err = tx.Message(sessionID, id); return err })
	return m, err
}

// Messages returns messages with offset in [offset, offset+limit) and the
// session's total count; see Tx.Messages.
func (db *DB) Messages(sessionID string, offset, limit int) (ms []Message, total int, err error) {
	err = db.View(func(tx *Tx) error { ms, total, err = tx.Messages(sessionID, offset, limit); return err })
	return ms, total, err
}

// MessagesBefore pages backwards from beforeID; see Tx.MessagesBefore.
func (db *DB) MessagesBefore(sessionID, beforeID string, limit int) (ms []Message, hasMore bool, err error) {
	err = db.View(func(tx *Tx) error { ms, hasMore, err = tx.MessagesBefore(sessionID, beforeID, limit); return err })
	return ms, hasMore, err
}

// Turns returns a session's turns, oldest first.
func (db *DB) Turns(sessionID string) (ts []Turn, err error) {
	err = db.View(func(tx *Tx) error { ts, err = tx.Turns(sessionID); return err })
	return ts, err
}

// TurnsWithStatus returns turns across sessions with one of the statuses,
// oldest first (crash recovery, the queue).
func (db *DB) TurnsWithStatus(status ...string) (ts []Turn, err error) {
	err = db.View(func(tx *Tx) error { ts, err = tx.TurnsWithStatus(status...); return err })
	return ts, err
}
