package dialect

import (
	"sync"

	"github.com/oklog/ulid/v2"
)

// sharedCap bounds how many recent dialect frames are kept: enough for
// subscribers a burst apart to share them, a few MB at most.
const sharedCap = 8192

// sharedFrames lets dialect subscriptions of the bus share the frames of
// an event that depend on the event alone, so each is encoded once per
// dialect however many subscribers ask (the canonical frame is encoded
// once by the writer, and the publisher hands dialect subscribers the
// event already decoded: OutFrame.ev). Frames that depend on a
// subscription's own state — a start frame for a message it never saw
// open, seed000's accumulated updates, seed002's message.end — are still
// made per subscription. Subscribers woken by one commit may both miss
// and both encode (the first stored wins): cheaper than making one wait.
// Safe for concurrent use; a nil *sharedFrames shares nothing (an encoder
// used on its own).
type sharedFrames struct {
	frames sync.Map // sharedKey → []byte; loads take no lock

	mu   sync.Mutex  // stores and eviction
	ring []sharedKey // insertion order: the oldest is evicted once full
	next int
}

// sharedKey names one dialect's event-only frame of an event.
type sharedKey struct {
	dialect string
	id      ulid.ULID
}

func newSharedFrames() *sharedFrames { return &sharedFrames{} }

// frame returns dialect's frame of event id that depends on the event
// alone, made by mk when no subscriber made it yet. An event with no id
// (one not from the log) shares nothing.
func (sf *sharedFrames) frame(dialect string, id ulid.ULID, mk func() ([]byte, error)) ([]byte, error) {
	if sf == nil || id == (ulid.ULID{}) {
		return mk()
	}
	k := sharedKey{dialect, id}
	if b, ok := sf.frames.Load(k); ok {
		return b.([]byte), nil
	}
	b, err := mk()
	if err != nil {
		return nil, err
	}
	sf.mu.Lock()
	defer sf.mu.Unlock()
	if first, loaded := sf.frames.LoadOrStore(k, b); loaded {
		return first.([]byte), nil
	}
	if len(sf.ring) < sharedCap {
		sf.ring = append(sf.ring, k)
	} else {
		sf.frames.Delete(sf.ring[sf.next])
		sf.ring[sf.next] = k
		sf.next = (sf.next + 1) % sharedCap
	}
	return b, nil
}
