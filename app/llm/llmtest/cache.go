package llmtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
)

// PromptCache emulates Anthropic's prompt caching closely enough to price
// a conversation: it reads the cache_control breakpoints of a Messages API
// request body and reports the usage the API would (input, cache read,
// cache write tokens). The rules it follows (Anthropic's documentation):
// the prompt is tools, then system, then messages, in blocks; a breakpoint
// caches the prefix ending at its block if that prefix has at least
// MinTokens; a request reads the longest cached prefix that ends at one of
// its breakpoints or at most Lookback blocks before one; what lies between
// the read prefix and the last breakpoint is written; the rest is input.
// Tokens are estimated as bytes/4 of each block's JSON.
type PromptCache struct {
	MinTokens int64 // default 1024 (Sonnet/Opus)
	Lookback  int   // default 20 blocks

	mu      sync.Mutex
	entries map[[32]byte]bool
}

// block is one prompt block: its JSON without cache_control, and whether
// it carried a breakpoint.
type block struct {
	raw        json.RawMessage
	breakpoint bool
}

// Usage returns the usage of one request body.
func (c *PromptCache) Usage(body []byte) (AnthropicUsage, error) {
	blocks, err := promptBlocks(body)
	if err != nil {
		return AnthropicUsage{}, err
	}
	minTok, look := c.MinTokens, c.Lookback
	if minTok <= 0 {
		minTok = 1024
	}
	if look <= 0 {
		look = 20
	}
	// Cumulative tokens and prefix hashes at each block.
	cum := make([]int64, len(blocks))
	hashes := make([][32]byte, len(blocks))
	h := sha256.New()
	var total int64
	for i, b := range blocks {
		total += int64(len(b.raw)+3) / 4
		cum[i] = total
		h.Write(b.raw)
		copy(hashes[i][:], h.Sum(nil))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[[32]byte]bool{}
	}
	read, last := -1, -1
	for i, b := range blocks {
		if !b.breakpoint {
			continue
		}
		last = i
		for j := i; j >= 0 && j >= i-look; j-- {
			if c.entries[hashes[j]] && j > read {
				read = j
				break
			}
		}
	}
	var u AnthropicUsage
	readTok := int64(0)
	if read >= 0 {
		readTok = cum[read]
	}
	u.CacheRead = readTok
	if last >= 0 && cum[last] >= minTok && last > read {
		u.CacheWrite = cum[last] - readTok
		for i, b := range blocks[:last+1] {
			if b.breakpoint && cum[i] >= minTok {
				c.entries[hashes[i]] = true
			}
		}
	}
	u.Input = total - u.CacheRead - u.CacheWrite
	return u, nil
}

// promptBlocks flattens a Messages API body into its prompt blocks.
func promptBlocks(body []byte) ([]block, error) {
	var req struct {
		Tools    []map[string]any `json:"tools"`
		System   []map[string]any `json:"system"`
		Messages []struct {
			Role    string           `json:"role"`
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("llmtest: prompt cache: %w", err)
	}
	var out []block
	add := func(m map[string]any, prefix string) {
		_, bp := m["cache_control"]
		delete(m, "cache_control")
		raw, _ := json.Marshal(m)
		out = append(out, block{raw: append([]byte(prefix), raw...), breakpoint: bp})
	}
	for _, t := range req.Tools {
		add(t, "tool:")
	}
	for _, s := range req.System {
		add(s, "system:")
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			add(b, m.Role+":")
		}
	}
	return out, nil
}

// CachingAnthropic is a reply whose usage a PromptCache computes from the
// request; build makes the stream for that usage.
func CachingAnthropic(c *PromptCache, build func(AnthropicUsage) Response) Response {
	return Response{Dynamic: func(r Request) Response {
		u, err := c.Usage(r.Body)
		if err != nil {
			return HTTPError(400, AnthropicErrorBody("invalid_request_error", err.Error()))
		}
		return build(u)
	}}
}
