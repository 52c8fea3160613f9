package wailsipc

import (
	"bytes"

	"agenthub/ipc"
)

// Delta runs: consecutive text.delta (or thinking.delta) frames of one
// content block that fall into the same batch travel as one frame — the
// first delta's envelope with the id and ts of the last and the texts
// joined. The page applies it as one delta, and its cursor (the last event
// id it saw) is the same as if it had seen them one by one, so a reload
// resumes exactly where it would have. A burst of 100k deltas then crosses
// into the webview as ~10× fewer bytes (the envelope, ~250 bytes, was most
// of every small delta): less for the page to parse and less garbage on
// both sides (docs/benchmarks-desktop.md, the streaming section).
//
// Frames are matched byte for byte against the layout the bus writes
// (ipc.Bus: the envelope's fields in a fixed order, the payload from
// json.Marshal of ipc.TextDelta / ipc.ThinkingDelta); anything else — an
// extra field, a thinking delta with its signature — passes as it is. The
// texts are joined still escaped, as they were in their frames.

// deltaFrame is a delta event frame split where a run joins it:
// frame[:idAt] id frame[idAt+26:tsAt] ts frame[tsAt+len(ts):textAt] text tail.
type deltaFrame struct {
	frame  []byte
	tsAt   int // where the ts value starts
	textAt int // where the text's escaped content starts
	textTo int // where it ends (the closing quote)
}

const (
	deltaPrefix = `{"type":"event","event":{"id":"`
	idLen       = 26                              // a ULID's text
	tsLen       = len("2006-01-02T15:04:05.000Z") // ipc.TimeFormat in UTC
	textTail    = `"}}}`                          // after a text.delta's text
	thinkTail   = `","signature":null}}}`         // after an unsigned thinking.delta's text
	typeText    = `","type":"` + ipc.TypeTextDelta + `"`
	typeThink   = `","type":"` + ipc.TypeThinkingDelta + `"`
	idAt        = len(deltaPrefix)
	afterID     = idAt + idLen
	sessionKey  = `,"session_id":"`
	turnKey     = `,"turn_id":`
	tsKey       = `,"ts":"`
	actorKey    = `","actor":"`
	messageKey  = `,"payload":{"message_id":"`
	blockKey    = `,"content_block_index":`
	textKey     = `,"text":"`
	jsonNull    = `null`
	closingQuot = '"'
)

// parseDelta splits a delta frame that may join or start a run; ok is
// false for any other frame.
func parseDelta(f []byte) (d deltaFrame, ok bool) {
	if len(f) < afterID || !bytes.HasPrefix(f, []byte(deltaPrefix)) {
		return d, false
	}
	i := afterID
	tail := textTail
	switch {
	case bytes.HasPrefix(f[i:], []byte(typeText)):
		i += len(typeText)
	case bytes.HasPrefix(f[i:], []byte(typeThink)):
		i += len(typeThink)
		tail = thinkTail
	default:
		return d, false
	}
	var good bool
	if i, good = expectString(f, i, sessionKey); !good {
		return d, false
	}
	if !bytes.HasPrefix(f[i:], []byte(turnKey)) {
		return d, false
	}
	i += len(turnKey)
	if bytes.HasPrefix(f[i:], []byte(jsonNull)) {
		i += len(jsonNull)
	} else if i, good = expectString(f, i, `"`); !good {
		return d, false
	}
	if !bytes.HasPrefix(f[i:], []byte(tsKey)) || len(f) < i+len(tsKey)+tsLen {
		return d, false
	}
	d.tsAt = i + len(tsKey)
	i = d.tsAt + tsLen
	if i, good = expectString(f, i, actorKey); !good {
		return d, false
	}
	if i, good = expectString(f, i, messageKey); !good {
		return d, false
	}
	if !bytes.HasPrefix(f[i:], []byte(blockKey)) {
		return d, false
	}
	i += len(blockKey)
	digits := i
	for i < len(f) && f[i] >= '0' && f[i] <= '9' {
		i++
	}
	if i == digits || !bytes.HasPrefix(f[i:], []byte(textKey)) {
		return d, false
	}
	d.textAt = i + len(textKey)
	j := d.textAt
	for j < len(f) && f[j] != closingQuot {
		if f[j] == '\\' {
			j++ // the escaped character
		}
		j++
	}
	if j >= len(f) || string(f[j:]) != tail {
		return d, false
	}
	d.textTo, d.frame = j, f
	return d, true
}

// expectString expects key (ending in an opening quote, or the quote
// itself) at f[i:] and a string without escapes after it; it returns the
// index after the closing quote.
func expectString(f []byte, i int, key string) (int, bool) {
	if !bytes.HasPrefix(f[i:], []byte(key)) {
		return i, false
	}
	i += len(key)
	for i < len(f) && f[i] != closingQuot {
		if f[i] == '\\' {
			return i, false
		}
		i++
	}
	return i + 1, i < len(f)
}

// sameBlock reports whether d may join a run that started with r: the
// same frame apart from id, ts and text.
func (d deltaFrame) sameBlock(r deltaFrame) bool {
	return bytes.Equal(d.frame[afterID:d.tsAt], r.frame[afterID:r.tsAt]) &&
		bytes.Equal(d.frame[d.tsAt+tsLen:d.textAt], r.frame[r.tsAt+tsLen:r.textAt]) &&
		bytes.Equal(d.frame[d.textTo:], r.frame[r.textTo:])
}

func (d deltaFrame) text() []byte { return d.frame[d.textAt:d.textTo] }

// deltaRun is the open run at the end of a pending batch.
type deltaRun struct {
	index  int        // the run's frame in pending.frames
	first  deltaFrame // the first delta (the bus's bytes: never written to)
	lastID string     // the newest delta's id
	lastTS [tsLen]byte
	text   []byte // the texts joined, escaped
	n      int    // deltas in the run
}

func newRun(index int, d deltaFrame, id string) *deltaRun {
	r := &deltaRun{index: index, first: d, lastID: id, n: 1}
	copy(r.lastTS[:], d.frame[d.tsAt:])
	r.text = append(r.text, d.text()...)
	return r
}

// join appends d to the run.
func (r *deltaRun) join(d deltaFrame, id string) {
	r.text = append(r.text, d.text()...)
	r.lastID = id
	copy(r.lastTS[:], d.frame[d.tsAt:])
	r.n++
}

// encode returns the run's frame: the first envelope, the newest id and
// ts, every text joined.
func (r *deltaRun) encode() []byte {
	f := r.first.frame
	out := make([]byte, 0, len(f)+len(r.text))
	out = append(out, f[:idAt]...)
	out = append(out, r.lastID...)
	out = append(out, f[afterID:r.first.tsAt]...)
	out = append(out, r.lastTS[:]...)
	out = append(out, f[r.first.tsAt+tsLen:r.first.textAt]...)
	out = append(out, r.text...)
	return append(out, f[r.first.textTo:]...)
}
