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

// apply writes op into tx (bbolt's meaning of the ops documented in op.go).
func apply(tx *bolt.Tx, op Op) error {
	if err := op.Check(); err != nil {
		return err
	}
	var err error
	switch op.Kind {
	case OpPutSession:
		err = putSession(tx, op.Session)
	case OpDeleteSession:
		err = deleteSession(tx, op.SessionID)
	case OpPutMessage:
		err = putMessage(tx, op.Message)
	case OpPutTurn:
		err = putTurn(tx, op.Turn)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	return nil
}

func putSession(tx *bolt.Tx, s Session) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return tx.Bucket(bucketSessions).Put([]byte(s.ID), b)
}

func deleteSession(tx *bolt.Tx, id string) error {
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
}

// sessionBucket returns the bucket of session under root (bucketMessages,
// bucketTurns), created if needed; the session must exist (ErrNotFound).
func sessionBucket(tx *bolt.Tx, root []byte, session string) (*bolt.Bucket, error) {
	if tx.Bucket(bucketSessions).Get([]byte(session)) == nil {
		return nil, fmt.Errorf("session %s: %w", session, ErrNotFound)
	}
	return tx.Bucket(root).CreateBucketIfNotExists([]byte(session))
}

func putMessage(tx *bolt.Tx, m Message) error {
	sb, err := sessionBucket(tx, bucketMessages, m.SessionID)
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
	m.Turn, m.Siblings = nil, nil // joined or computed on every read
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return ob.Put(key[:], b)
}

func putTurn(tx *bolt.Tx, t Turn) error {
	sb, err := sessionBucket(tx, bucketTurns, t.SessionID)
	if err != nil {
		return err
	}
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return sb.Put([]byte(t.ID), b)
}
