package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

var (
	subOffsets = []byte("o") // offset (8-byte big endian) → message JSON
	subIDs     = []byte("i") // message id → offset
)

type opFunc struct {
	name    string
	session *Session // set by PutSession, for OpSession
	fn      func(tx *bolt.Tx) error
}

func (o opFunc) apply(tx *bolt.Tx) error {
	if err := o.fn(tx); err != nil {
		return fmt.Errorf("%s: %w", o.name, err)
	}
	return nil
}

// OpSession reports the session an op writes, if op is a PutSession. The
// log writer uses it to keep its session-tree cache current.
func OpSession(op Op) (Session, bool) {
	if o, ok := op.(opFunc); ok && o.session != nil {
		return *o.session, true
	}
	return Session{}, false
}

// PutSession inserts or replaces a session record. The id must be non-empty.
func PutSession(s Session) Op {
	return opFunc{name: "put session " + s.ID, session: &s, fn: func(tx *bolt.Tx) error {
		if s.ID == "" {
			return fmt.Errorf("session id is empty")
		}
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		return tx.Bucket(bucketSessions).Put([]byte(s.ID), b)
	}}
}

// DeleteSession removes a session with its messages and turns. Its events
// stay in the log until retention prunes them. Deleting an absent session
// is not an error.
func DeleteSession(id string) Op {
	return opFunc{name: "delete session " + id, fn: func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketSessions).Delete([]byte(id)); err != nil {
			return err
		}
		for _, root := range [][]byte{bucketMessages, bucketTurns} {
			rb := tx.Bucket(root)
			if rb.Bucket([]byte(id)) != nil {
				if err := rb.DeleteBucket([]byte(id)); err != nil {
					return err
				}
			}
		}
		return nil
	}}
}

// PutMessage stores a message of an existing session. A new id is appended
// at the next offset of the session (m.Offset is ignored); an existing id is
// replaced in place and keeps its offset, so offsets never shift.
func PutMessage(m Message) Op {
	return opFunc{name: "put message " + m.ID, fn: func(tx *bolt.Tx) error {
		if m.ID == "" || m.SessionID == "" {
			return fmt.Errorf("message id and session id are required")
		}
		if tx.Bucket(bucketSessions).Get([]byte(m.SessionID)) == nil {
			return fmt.Errorf("session %s: %w", m.SessionID, ErrNotFound)
		}
		sb, err := tx.Bucket(bucketMessages).CreateBucketIfNotExists([]byte(m.SessionID))
		if err != nil {
			return err
		}
		ob, err := sb.CreateBucketIfNotExists(subOffsets)
		if err != nil {
			return err
		}
		ib, err := sb.CreateBucketIfNotExists(subIDs)
		if err != nil {
			return err
		}
		var key [8]byte
		if off := ib.Get([]byte(m.ID)); len(off) == 8 {
			copy(key[:], off)
			m.Offset = int64(binary.BigEndian.Uint64(off))
		} else {
			seq, err := ob.NextSequence()
			if err != nil {
				return err
			}
			m.Offset = int64(seq - 1)
			binary.BigEndian.PutUint64(key[:], uint64(m.Offset))
			if err := ib.Put([]byte(m.ID), key[:]); err != nil {
				return err
			}
			ob.FillPercent = 1.0
		}
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		return ob.Put(key[:], b)
	}}
}

// PutTurn inserts or replaces a turn of an existing session.
func PutTurn(t Turn) Op {
	return opFunc{name: "put turn " + t.ID, fn: func(tx *bolt.Tx) error {
		if t.ID == "" || t.SessionID == "" {
			return fmt.Errorf("turn id and session id are required")
		}
		if tx.Bucket(bucketSessions).Get([]byte(t.SessionID)) == nil {
			return fmt.Errorf("session %s: %w", t.SessionID, ErrNotFound)
		}
		sb, err := tx.Bucket(bucketTurns).CreateBucketIfNotExists([]byte(t.SessionID))
		if err != nil {
			return err
		}
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		return sb.Put([]byte(t.ID), b)
	}}
}
