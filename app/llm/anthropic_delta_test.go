package llm

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The compact-layout reader agrees with encoding/json on every delta it
// takes, and leaves everything else to it.
func TestCompactDeltaAgreesWithJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "😀", "\"", "\\", "\n", "\t", "<b>&", "\u2028", "}}", `"}}`, " ", "\x01", "\u00ff"}
	for i := range 2000 {
		var sb strings.Builder
		for range rng.IntN(8) {
			sb.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := sb.String()
		q, _ := json.Marshal(text)
		for _, kind := range []string{"text", "thinking"} {
			raw := fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"%s_delta","%s":%s}}`, i%7, kind, kind, q)
			var fast anthropicEvent
			if !fast.readCompactDelta([]byte(raw)) {
				t.Fatalf("compact layout not read: %s", raw)
			}
			var slow struct {
				Index int64          `json:"index"`
				Delta anthropicDelta `json:"delta"`
			}
			if err := json.Unmarshal([]byte(raw), &slow); err != nil {
				t.Fatal(err)
			}
			if fast.index != slow.Index || fast.delta != slow.Delta {
				t.Fatalf("%s: compact %d %+v, encoding/json %d %+v", raw, fast.index, fast.delta, slow.Index, slow.Delta)
			}
		}
	}
	for _, raw := range []string{
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","extra":"b"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"x":{}}`,
		`{"type":"content_block_delta", "index":0,"delta":{"type":"text_delta","text":"a"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"unterminated}}`,
		`{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"a"}}`,
	} {
		var e anthropicEvent
		if e.readCompactDelta([]byte(raw)) {
			t.Errorf("read as compact, should be left to encoding/json: %s", raw)
		}
	}
}
