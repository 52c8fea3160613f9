package wailsipc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"agenthub/ipc"
)

// Delta runs: consecutive text.delta (or thinking.delta) frames of one
// content block that fall into the same batch travel as one frame — the
// first delta's envelope with the id and ts of the last and the texts
// joined. The page applies it as one delta, and its cursor (the last event
// id it saw) is the same as if it had seen them one by one, so a reload
// resumes exactly where it would have. A burst of 100k deltas then crosses
// into the webview as ~10× fewer bytes: the envelope (~250 bytes) was most
// of every small delta, and WebKit's UI process kept the memory of every
// payload it passed on (docs/benchmarks-desktop.md).

// runFrame is an event frame as the bus encodes it.
type runFrame struct {
	Type  string    `json:"type"`
	Event ipc.Event `json:"event"`
}

// deltaRun is the open run at the end of a pending batch.
type deltaRun struct {
	index int      // the run's frame in pending.frames
	frame runFrame // the first delta's envelope; ID and TS are the newest delta's
	key   string   // session, type, message and block: what a delta must share to join
	text  strings.Builder
	n     int // deltas in the run
}

// parseDelta reads a text or thinking delta frame that may join or start a
// run: one the bus encoded exactly as these types re-encode it (so nothing
// in it is lost by merging) and, for thinking, without the block's closing
// signature. ok is false for anything else.
func parseDelta(data []byte) (f runFrame, text, key string, ok bool) {
	head := data[:min(len(data), 160)]
	isText := bytes.Contains(head, []byte(`"type":"text.delta"`))
	if !isText && !bytes.Contains(head, []byte(`"type":"thinking.delta"`)) {
		return f, "", "", false
	}
	if json.Unmarshal(data, &f) != nil || f.Type != "event" {
		return f, "", "", false
	}
	var payload any
	var msg string
	var block int
	switch f.Event.Type {
	case ipc.TypeTextDelta:
		var p ipc.TextDelta
		if json.Unmarshal(f.Event.Payload, &p) != nil {
			return f, "", "", false
		}
		payload, msg, block, text = p, p.MessageID, p.ContentBlockIndex, p.Text
	case ipc.TypeThinkingDelta:
		var p ipc.ThinkingDelta
		if json.Unmarshal(f.Event.Payload, &p) != nil || p.Signature != nil {
			return f, "", "", false
		}
		payload, msg, block, text = p, p.MessageID, p.ContentBlockIndex, p.Text
	default:
		return f, "", "", false
	}
	re, err := json.Marshal(payload)
	if err != nil {
		return f, "", "", false
	}
	f.Event.Payload = re
	if again, err := json.Marshal(f); err != nil || !bytes.Equal(again, data) {
		return f, "", "", false // fields these types do not carry: pass it as it is
	}
	return f, text, f.Event.SessionID + "\x00" + f.Event.Type + "\x00" + msg + "\x00" + strconv.Itoa(block), true
}

// encode returns the run's frame: the first envelope, the newest id and
// ts, every text joined.
func (r *deltaRun) encode() json.RawMessage {
	text := r.text.String()
	var payload any
	var msg string
	var block int
	if r.frame.Event.Type == ipc.TypeTextDelta {
		var p ipc.TextDelta
		_ = json.Unmarshal(r.frame.Event.Payload, &p) // parsed once already
		msg, block = p.MessageID, p.ContentBlockIndex
		payload = ipc.TextDelta{MessageID: msg, ContentBlockIndex: block, Text: text}
	} else {
		var p ipc.ThinkingDelta
		_ = json.Unmarshal(r.frame.Event.Payload, &p)
		payload = ipc.ThinkingDelta{MessageID: p.MessageID, ContentBlockIndex: p.ContentBlockIndex, Text: text}
	}
	f := r.frame
	f.Event.Payload, _ = json.Marshal(payload) // cannot fail: strings and ints
	out, err := json.Marshal(f)
	if err != nil {
		panic("wailsipc: encode delta run: " + err.Error())
	}
	return out
}

// escapedTextLen is the length of s inside a JSON string as encoding/json
// writes it.
func escapedTextLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		n += escapedLen(r, w)
		i += w
	}
	return n
}
