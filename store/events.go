package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
	bolt "go.etcd.io/bbolt"
)

// EventRecord is one entry of the ordered event log. Data is the complete
// envelope JSON, stored as is and sent as is; the other fields are an index
// so the log can be filtered without decoding Data.
type EventRecord struct {
	ID        ulid.ULID
	SessionID string
	Type      string
	// Streaming marks the streaming tier (kept for the delta retention after
	// its group closes); false is the bus tier (kept for the event retention).
	Streaming bool
	Data      []byte
	// Actor is the envelope's actor (used by subscription filters).
	Actor string
	// Group is the streaming group an event belongs to: the message id for
	// message.*, text/thinking deltas and tool.use_*, the tool_use_id for
	// tool.output_delta. "" for none.
	Group string
	// Closes names the group this event completes (message.complete closes
	// its message; tool.completed/failed close the tool's output group).
	// Streaming events of a closed group are pruned deltaRetention after it.
	Closes string
}

// Time returns the millisecond timestamp encoded in the event id.
func (r EventRecord) Time() time.Time { return ulid.Time(r.ID.Time()) }

const recordVersion = 1

func recordSize(r *EventRecord) int {
	return 2 + 4*binary.MaxVarintLen64 + len(r.SessionID) + len(r.Type) + len(r.Actor) + len(r.Group) + len(r.Data)
}

// appendRecord appends r's stored form to b.
func appendRecord(b []byte, r *EventRecord) []byte {
	var flags byte
	if r.Streaming {
		flags |= 1
	}
	b = append(b, recordVersion, flags)
	for _, s := range []string{r.SessionID, r.Type, r.Actor, r.Group} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return append(b, r.Data...)
}

var errBadRecord = errors.New("malformed event record")

// decodeRecord decodes v (which may alias bbolt memory: the result is
// copied so it stays valid after the transaction).
func decodeRecord(k, v []byte) (EventRecord, error) {
	var r EventRecord
	if len(k) != 16 || len(v) < 2 || v[0] != recordVersion {
		return r, errBadRecord
	}
	copy(r.ID[:], k)
	r.Streaming = v[1]&1 != 0
	p := v[2:]
	var fields [4]string
	for i := range fields {
		l, n := binary.Uvarint(p)
		if n <= 0 || uint64(len(p)-n) < l {
			return r, errBadRecord
		}
		fields[i] = string(p[n : n+int(l)])
		p = p[n+int(l):]
	}
	r.SessionID, r.Type, r.Actor, r.Group = fields[0], fields[1], fields[2], fields[3]
	r.Data = bytes.Clone(p)
	return r, nil
}

func appendEvents(tx *bolt.Tx, events []EventRecord) error {
	if len(events) == 0 {
		return nil
	}
	eb := tx.Bucket(bucketEvents)
	eb.FillPercent = 1.0
	se := tx.Bucket(bucketSessEv)
	groups := tx.Bucket(bucketGroups)
	last := lastEventID(tx)
	var sb *bolt.Bucket
	var sbID string
	// One buffer for every value of the batch (bbolt keeps the value slices
	// until the transaction commits, so they must not be reused).
	size := 0
	for i := range events {
		size += recordSize(&events[i])
	}
	buf := make([]byte, 0, size)
	for i := range events {
		r := &events[i]
		if r.ID.Compare(last) <= 0 {
			return fmt.Errorf("event %d: id %s is not greater than the newest id %s", i, r.ID, last)
		}
		if r.SessionID == "" || r.Type == "" {
			return fmt.Errorf("event %s: session id and type are required", r.ID)
		}
		last = r.ID
		start := len(buf)
		buf = appendRecord(buf, r)
		if err := eb.Put(r.ID[:], buf[start:len(buf):len(buf)]); err != nil {
			return err
		}
		if sb == nil || sbID != r.SessionID {
			var err error
			if sb, err = se.CreateBucketIfNotExists([]byte(r.SessionID)); err != nil {
				return fmt.Errorf("session index %q: %w", r.SessionID, err)
			}
			sb.FillPercent = 1.0
			sbID = r.SessionID
		}
		if err := sb.Put(r.ID[:], nil); err != nil {
			return err
		}
		if r.Closes != "" {
			if err := groups.Put([]byte(r.Closes), r.ID[:]); err != nil {
				return err
			}
		}
	}
	return tx.Bucket(bucketMeta).Put(keyLast, last[:])
}

// EventsAfter calls fn for every event with id > after whose session is in
// sessionIDs, in ascending id order. An error from fn stops the walk and is
// returned as is.
func (db *DB) EventsAfter(sessionIDs []string, after ulid.ULID, fn func(EventRecord) error) error {
	return db.View(func(tx *Tx) error { return tx.EventsAfter(sessionIDs, after, fn) })
}

// SessionEvents calls fn for every event of one session with id > after,
// ascending.
func (db *DB) SessionEvents(sessionID string, after ulid.ULID, fn func(EventRecord) error) error {
	return db.View(func(tx *Tx) error { return tx.EventsAfter([]string{sessionID}, after, fn) })
}

// EventsAfter is DB.EventsAfter inside a read transaction. It merges the
// per-session indexes, so its cost is proportional to the events returned.
func (t *Tx) EventsAfter(sessionIDs []string, after ulid.ULID, fn func(EventRecord) error) error {
	eb := t.tx.Bucket(bucketEvents)
	se := t.tx.Bucket(bucketSessEv)
	type head struct {
		c *bolt.Cursor
		k []byte
	}
	var heads []head
	seen := map[string]bool{}
	for _, sid := range sessionIDs {
		if seen[sid] {
			continue
		}
		seen[sid] = true
		b := se.Bucket([]byte(sid))
		if b == nil {
			continue
		}
		c := b.Cursor()
		k, _ := c.Seek(after[:])
		if k != nil && bytes.Equal(k, after[:]) {
			k, _ = c.Next()
		}
		if k != nil {
			heads = append(heads, head{c, k})
		}
	}
	for len(heads) > 0 {
		min := 0
		for i := 1; i < len(heads); i++ {
			if bytes.Compare(heads[i].k, heads[min].k) < 0 {
				min = i
			}
		}
		k := heads[min].k
		v := eb.Get(k)
		if v != nil { // index entries of pruned events are removed with them; tolerate a lag
			r, err := decodeRecord(k, v)
			if err != nil {
				return fmt.Errorf("store: event %x: %w", k, err)
			}
			if err := fn(r); err != nil {
				return err
			}
		}
		if nk, _ := heads[min].c.Next(); nk != nil {
			heads[min].k = nk
		} else {
			heads = append(heads[:min], heads[min+1:]...)
		}
	}
	return nil
}

// EventsBefore calls fn for the events of one session with id < before
// (zero ULID: from the newest), in DESCENDING id order, until fn returns
// ErrStop (which EventsBefore swallows) or another error.
func (t *Tx) EventsBefore(sessionID string, before ulid.ULID, fn func(EventRecord) error) error {
	b := t.tx.Bucket(bucketSessEv).Bucket([]byte(sessionID))
	if b == nil {
		return nil
	}
	eb := t.tx.Bucket(bucketEvents)
	c := b.Cursor()
	var k []byte
	if before == (ulid.ULID{}) {
		k, _ = c.Last()
	} else {
		k, _ = c.Seek(before[:])
		if k == nil {
			k, _ = c.Last()
		} else {
			k, _ = c.Prev()
		}
	}
	for ; k != nil; k, _ = c.Prev() {
		v := eb.Get(k)
		if v == nil {
			continue
		}
		r, err := decodeRecord(k, v)
		if err != nil {
			return fmt.Errorf("store: event %x: %w", k, err)
		}
		if err := fn(r); err != nil {
			if errors.Is(err, ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// ErrStop ends a walk early without error (see Tx.EventsBefore).
var ErrStop = errors.New("store: stop walk")

// Event returns one event by id; ErrNotFound if it is not in the log.
func (t *Tx) Event(id ulid.ULID) (EventRecord, error) {
	v := t.tx.Bucket(bucketEvents).Get(id[:])
	if v == nil {
		return EventRecord{}, fmt.Errorf("event %s: %w", id, ErrNotFound)
	}
	return decodeRecord(id[:], v)
}

// PrunedThrough returns the newest id retention has deleted (zero if none).
// A cursor older than it may be followed by a gap and must be treated as
// expired.
func (t *Tx) PrunedThrough() ulid.ULID {
	var id ulid.ULID
	if v := t.tx.Bucket(bucketMeta).Get(keyPruned); len(v) == 16 {
		copy(id[:], v)
	}
	return id
}

// LastEventID is DB.LastEventID inside a read transaction.
func (t *Tx) LastEventID() ulid.ULID { return lastEventID(t.tx) }

// Prune deletes events past retention: any event older than eventRetention,
// and streaming events whose group closed more than deltaRetention before
// now. Ages come from the ids' timestamps. It works in bounded
// transactions and returns the number of events deleted.
func (db *DB) Prune(now time.Time, eventRetention, deltaRetention time.Duration) (int, error) {
	eventCut := ulid.Timestamp(now.Add(-eventRetention))
	deltaCut := ulid.Timestamp(now.Add(-deltaRetention))
	scanCut := max(eventCut, deltaCut)
	total := 0
	var from ulid.ULID
	for {
		n, next, done, err := db.pruneChunk(from, scanCut, eventCut, deltaCut)
		total += n
		if err != nil {
			return total, fmt.Errorf("store: prune: %w", err)
		}
		if done {
			break
		}
		from = next
	}
	if err := db.bolt.Update(func(tx *bolt.Tx) error {
		g := tx.Bucket(bucketGroups)
		var dead [][]byte
		_ = g.ForEach(func(k, v []byte) error {
			var id ulid.ULID
			copy(id[:], v)
			if id.Time() < eventCut {
				dead = append(dead, bytes.Clone(k))
			}
			return nil
		})
		for _, k := range dead {
			if err := g.Delete(k); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return total, fmt.Errorf("store: prune groups: %w", err)
	}
	return total, nil
}

const pruneChunk = 5000

func (db *DB) pruneChunk(from ulid.ULID, scanCut, eventCut, deltaCut uint64) (n int, next ulid.ULID, done bool, err error) {
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		eb := tx.Bucket(bucketEvents)
		se := tx.Bucket(bucketSessEv)
		groups := tx.Bucket(bucketGroups)
		type victim struct{ k, sid []byte }
		var victims []victim
		c := eb.Cursor()
		scanned := 0
		k, v := c.Seek(from[:])
		for ; k != nil; k, v = c.Next() {
			var id ulid.ULID
			copy(id[:], k)
			if id.Time() >= scanCut {
				done = true
				break
			}
			if scanned == pruneChunk {
				next = id
				break
			}
			scanned++
			r, derr := decodeRecord(k, v)
			if derr != nil {
				return fmt.Errorf("event %s: %w", id, derr)
			}
			kill := id.Time() < eventCut
			if !kill && r.Streaming && r.Group != "" {
				if g := groups.Get([]byte(r.Group)); len(g) == 16 {
					var gid ulid.ULID
					copy(gid[:], g)
					kill = gid.Time() < deltaCut
				}
			}
			if kill {
				victims = append(victims, victim{bytes.Clone(k), []byte(r.SessionID)})
			}
		}
		if k == nil {
			done = true
		}
		for _, vi := range victims {
			if err := eb.Delete(vi.k); err != nil {
				return err
			}
			if b := se.Bucket(vi.sid); b != nil {
				if err := b.Delete(vi.k); err != nil {
					return err
				}
			}
		}
		n = len(victims)
		if n > 0 {
			// Remember the newest pruned id: a cursor older than it may have a
			// gap after it, so it is expired (see Tx.PrunedThrough).
			meta := tx.Bucket(bucketMeta)
			top := victims[n-1].k
			if old := meta.Get(keyPruned); bytes.Compare(old, top) < 0 {
				if err := meta.Put(keyPruned, top); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return n, next, done, err
}
