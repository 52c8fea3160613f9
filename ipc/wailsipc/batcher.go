package wailsipc

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"
)

// Coalescing bounds (DESIGN.md §4: one JS eval per emit on the GTK thread;
// payloads over ~64 KB leak in WebKitGTK).
const (
	// FlushInterval is the longest a frame waits in a batch before it is emitted.
	FlushInterval = 16 * time.Millisecond
	// BatchBytes is the target size of one batch: frames are added while the
	// encoded batch stays within it.
	BatchBytes = 32 << 10
	// MaxEmitBytes is the hard bound of one emitted payload. A frame that does
	// not fit a batch of this size is split into chunks (see Chunk).
	MaxEmitBytes = 64 << 10
	// chunkDataBytes bounds the escaped data of one chunk, leaving room for
	// the batch envelope within MaxEmitBytes.
	chunkDataBytes = MaxEmitBytes - 1024
)

// Batch is the payload of one `localChat:event` emit: frames of one
// subscription, in order. FirstEventID/LastEventID are the ids of the first
// and last event frames in it (null when it carries none); a frame that
// joins a run of deltas carries the id of the run's last delta
// (deltarun.go). Frames holds
// complete server frames (seed 001 §4.2 shapes). A frame too large for one
// emit travels instead as consecutive batches carrying Chunk (Frames empty):
// concatenating the chunks' Data in order gives the frame's JSON text.
// Closed is set on the last batch of a subscription the server ended (its
// frames then end with an error frame naming the reason, e.g. client_too_slow).
type Batch struct {
	SubscriptionID string            `json:"subscription_id"`
	FirstEventID   *string           `json:"first_event_id"`
	LastEventID    *string           `json:"last_event_id"`
	Frames         []json.RawMessage `json:"frames"`
	Chunk          *Chunk            `json:"chunk,omitempty"`
	Closed         bool              `json:"closed,omitempty"`
}

// Chunk is one piece of a frame larger than MaxEmitBytes.
type Chunk struct {
	Index int    `json:"index"` // 0-based
	Count int    `json:"count"`
	Data  string `json:"data"`
}

// pending is the batch being filled for one subscription.
type pending struct {
	first, last string
	frames      []json.RawMessage
	size        int // encoded size of the batch if emitted now
	since       time.Time
	run         *deltaRun // deltas the next one of the same block joins (deltarun.go)
}

// closeRun puts the open run's joined frame in place (a run of one is its
// own frame already) and ends it.
func (p *pending) closeRun() {
	if p.run != nil && p.run.n > 1 {
		p.frames[p.run.index] = p.run.encode()
	}
	p.run = nil
}

// batcher is the pure coalescing state machine: it decides what is emitted
// when, given frames and the current time. It is not safe for concurrent use;
// the coalescer goroutine owns it.
type batcher struct {
	maxDelay time.Duration
	maxBytes int
	pending  map[string]*pending
	order    []string // subscriptions with a pending batch, oldest first
}

func newBatcher(maxDelay time.Duration, maxBytes int) *batcher {
	return &batcher{maxDelay: maxDelay, maxBytes: maxBytes, pending: map[string]*pending{}}
}

// envelopeSize is the encoded size of an empty batch for sub, with room for
// two event ids.
func envelopeSize(sub string) int {
	return len(`{"subscription_id":"","first_event_id":"","last_event_id":"","frames":[]}`) + len(sub) + 2*26
}

// add queues frame data (eventID "" for non-event frames) for sub and
// returns the encoded batches that must be emitted now, in order.
func (b *batcher) add(sub, eventID string, data []byte, now time.Time) [][]byte {
	var out [][]byte
	p := b.pending[sub]
	frame := escapeHTML(data)
	var delta deltaFrame
	isDelta := false
	if len(eventID) == idLen {
		delta, isDelta = parseDelta(frame)
		isDelta = isDelta && string(frame[idAt:afterID]) == eventID
	}
	if isDelta && p != nil && p.run != nil && delta.sameBlock(p.run.first) {
		// The next delta of the open run: its text joins the run's frame
		// (id and ts have fixed widths, so only the text grows).
		if grow := len(delta.text()); p.size+grow <= b.maxBytes {
			if p.first == p.run.lastID { // the run is the batch's first event frame
				p.first = eventID
			}
			p.run.join(delta, eventID)
			p.size += grow
			p.last = eventID
			return nil
		}
	}
	env := envelopeSize(sub)
	if p != nil && p.size+1+len(frame) > b.maxBytes {
		out = append(out, b.take(sub))
		p = nil
	}
	if env+len(frame) > b.maxBytes {
		// Too big to share a batch: emit alone, or in chunks.
		if env+len(frame) <= MaxEmitBytes {
			out = append(out, encode(Batch{SubscriptionID: sub, FirstEventID: idPtr(eventID), LastEventID: idPtr(eventID), Frames: []json.RawMessage{frame}}))
		} else {
			out = append(out, chunked(sub, eventID, frame)...)
		}
		return out
	}
	if p == nil {
		p = &pending{since: now, size: env}
		b.pending[sub] = p
		b.order = append(b.order, sub)
	}
	if eventID != "" {
		if p.first == "" {
			p.first = eventID
		}
		p.last = eventID
	}
	if len(p.frames) > 0 {
		p.size++ // comma
	}
	p.closeRun()
	p.frames = append(p.frames, frame)
	p.size += len(frame)
	if isDelta {
		p.run = newRun(len(p.frames)-1, delta, eventID)
	}
	return out
}

// due returns the batches whose first frame has waited maxDelay or longer.
func (b *batcher) due(now time.Time) [][]byte {
	var out [][]byte
	for len(b.order) > 0 {
		sub := b.order[0]
		if now.Sub(b.pending[sub].since) < b.maxDelay {
			break
		}
		out = append(out, b.take(sub))
	}
	return out
}

// deadline reports when the oldest pending batch falls due.
func (b *batcher) deadline() (time.Time, bool) {
	if len(b.order) == 0 {
		return time.Time{}, false
	}
	return b.pending[b.order[0]].since.Add(b.maxDelay), true
}

// flush returns sub's pending batch now (nil when none).
func (b *batcher) flush(sub string) []byte {
	if b.pending[sub] == nil {
		return nil
	}
	return b.take(sub)
}

// drop discards sub's pending frames.
func (b *batcher) drop(sub string) {
	if b.pending[sub] != nil {
		delete(b.pending, sub)
		b.removeOrder(sub)
	}
}

func (b *batcher) take(sub string) []byte {
	p := b.pending[sub]
	p.closeRun()
	delete(b.pending, sub)
	b.removeOrder(sub)
	return encode(Batch{SubscriptionID: sub, FirstEventID: idPtr(p.first), LastEventID: idPtr(p.last), Frames: p.frames})
}

func (b *batcher) removeOrder(sub string) {
	for i, s := range b.order {
		if s == sub {
			b.order = append(b.order[:i], b.order[i+1:]...)
			return
		}
	}
}

func idPtr(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

// encode marshals a batch. Frames are valid JSON produced by the bus, so
// marshalling cannot fail; a failure would be a programming error.
func encode(bt Batch) []byte {
	if bt.Frames == nil {
		bt.Frames = []json.RawMessage{}
	}
	out, err := json.Marshal(bt)
	if err != nil {
		panic("wailsipc: encode batch: " + err.Error())
	}
	return out
}

// escapeHTML returns data as encoding/json would re-encode it when the Wails
// runtime marshals the emit (<, > and & as \u00XX), so sizes measured here are
// the sizes that reach the page.
func escapeHTML(data []byte) json.RawMessage {
	if !bytes.ContainsAny(data, "<>&\u2028\u2029") {
		return json.RawMessage(data)
	}
	var buf bytes.Buffer
	json.HTMLEscape(&buf, data)
	return buf.Bytes()
}

// chunked splits a large frame into batches whose chunk data, escaped as a
// JSON string, stays within chunkDataBytes; splits fall on rune boundaries.
func chunked(sub, eventID string, frame []byte) [][]byte {
	var parts []string
	start, size := 0, 0
	for i := 0; i < len(frame); {
		r, n := utf8.DecodeRune(frame[i:])
		w := escapedLen(r, n)
		if size+w > chunkDataBytes {
			parts = append(parts, string(frame[start:i]))
			start, size = i, 0
		}
		size += w
		i += n
	}
	parts = append(parts, string(frame[start:]))
	out := make([][]byte, len(parts))
	for i, part := range parts {
		out[i] = encode(Batch{SubscriptionID: sub, FirstEventID: idPtr(eventID), LastEventID: idPtr(eventID),
			Chunk: &Chunk{Index: i, Count: len(parts), Data: part}})
	}
	return out
}

// escapedLen is the length of rune r (n bytes in the source) inside a JSON
// string as encoding/json writes it (HTML-escaped).
func escapedLen(r rune, n int) int {
	switch {
	case r == utf8.RuneError && n == 1:
		return 6 // \ufffd
	case r == '"' || r == '\\':
		return 2
	case r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20, r == '<', r == '>', r == '&', r == '\u2028', r == '\u2029':
		return 6
	}
	return n
}
