package llmtest

import (
	"strings"
	"testing"
)

func TestPromptCache(t *testing.T) {
	long := strings.Repeat("x", 8000) // ~2,000 tokens
	c := &PromptCache{}
	first := `{"system":[{"type":"text","text":"` + long + `","cache_control":{"type":"ephemeral"}}],
	  "messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`
	u, err := c.Usage([]byte(first))
	if err != nil || u.CacheRead != 0 || u.CacheWrite == 0 || u.Input != 0 {
		t.Fatalf("first request %+v %v: want everything written", u, err)
	}
	second := `{"system":[{"type":"text","text":"` + long + `","cache_control":{"type":"ephemeral"}}],
	  "messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"text","text":"hello"}]},
	  {"role":"user","content":[{"type":"text","text":"more","cache_control":{"type":"ephemeral"}}]}]}`
	u2, err := c.Usage([]byte(second))
	if err != nil || u2.CacheRead != u.CacheWrite || u2.CacheWrite == 0 || u2.Input != 0 {
		t.Fatalf("second request %+v %v: want the first prefix read, the new tail written", u2, err)
	}
	none := `{"messages":[{"role":"user","content":[{"type":"text","text":"` + long + `"}]}]}`
	if u3, _ := c.Usage([]byte(none)); u3.CacheRead != 0 || u3.CacheWrite != 0 || u3.Input == 0 {
		t.Fatalf("no breakpoints: %+v", u3)
	}
	short := `{"messages":[{"role":"user","content":[{"type":"text","text":"tiny","cache_control":{"type":"ephemeral"}}]}]}`
	if u4, _ := c.Usage([]byte(short)); u4.CacheWrite != 0 {
		t.Fatalf("below MinTokens: %+v", u4)
	}
}
