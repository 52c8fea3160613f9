package llm

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The text and thinking deltas of an Anthropic stream, read without a
// general JSON decode when they arrive in the API's own compact layout —
// {"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}
// (thinking_delta with "thinking") — which is nearly every event of a long
// answer. Anything else (other fields, another order, whitespace) is left
// to encoding/json (anthropicEvent.UnmarshalJSON), so this only ever
// agrees with it.

var (
	deltaHead     = []byte(`{"type":"content_block_delta","index":`)
	textDeltaHead = []byte(`,"delta":{"type":"text_delta","text":`)
	thinkingHead  = []byte(`,"delta":{"type":"thinking_delta","thinking":`)
	deltaTail     = []byte(`}}`)
)

// readCompactDelta fills e from b when b is a text or thinking delta in the
// compact layout; false leaves e untouched.
func (e *anthropicEvent) readCompactDelta(b []byte) bool {
	if !bytes.HasPrefix(b, deltaHead) {
		return false
	}
	i := len(deltaHead)
	var index int64
	digits := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9' && digits < 9; i++ {
		index = index*10 + int64(b[i]-'0')
		digits++
	}
	if digits == 0 {
		return false
	}
	rest := b[i:]
	kind := ""
	switch {
	case bytes.HasPrefix(rest, textDeltaHead):
		kind, rest = "text_delta", rest[len(textDeltaHead):]
	case bytes.HasPrefix(rest, thinkingHead):
		kind, rest = "thinking_delta", rest[len(thinkingHead):]
	default:
		return false
	}
	if !bytes.HasSuffix(rest, deltaTail) {
		return false
	}
	quoted := rest[:len(rest)-len(deltaTail)]
	text, ok := jsonString(quoted)
	if !ok {
		return false
	}
	e.isDelta, e.index = true, index
	e.delta = anthropicDelta{Type: kind}
	if kind == "text_delta" {
		e.delta.Text = text
	} else {
		e.delta.Thinking = text
	}
	return true
}

// jsonString decodes q, which must be exactly one JSON string: plain text
// is taken as it is, anything escaped goes through encoding/json.
func jsonString(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	inner := q[1 : len(q)-1]
	plain := utf8.Valid(inner)
	for _, c := range inner {
		if c == '"' || c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(q, &s) != nil {
		return "", false
	}
	return s, true
}
