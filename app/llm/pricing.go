package llm

import (
	"maps"
	"strings"
	"sync"

	"agenthub/store"
)

// Price is a model's list price in USD per million tokens. CacheWrite is the
// 5-minute cache write price (Anthropic); OpenAI bills cache writes as input.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// defaultPrices are the providers' published list prices (per MTok). Keys
// are model names or name prefixes; a dated snapshot ("gpt-4o-2024-08-06",
// "claude-sonnet-4-5-20250929") uses the longest key it starts with.
var defaultPrices = map[string]Price{
	// Anthropic (docs.anthropic.com pricing; cache write = 1.25× input, read = 0.1×).
	"claude-opus-4":     {Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75},
	"claude-opus-4-1":   {Input: 15, Output: 75, CacheRead: 1.5, CacheWrite: 18.75},
	"claude-opus-4-5":   {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
	"claude-opus-4-6":   {Input: 5, Output: 25, CacheRead: 0.5, CacheWrite: 6.25},
	"claude-sonnet-4":   {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-sonnet-4-6": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-3-7-sonnet": {Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75},
	"claude-haiku-4-5":  {Input: 1, Output: 5, CacheRead: 0.1, CacheWrite: 1.25},
	"claude-3-5-haiku":  {Input: 0.8, Output: 4, CacheRead: 0.08, CacheWrite: 1},
	// OpenAI (platform.openai.com pricing; CacheRead = "cached input").
	"gpt-4.1":      {Input: 2, Output: 8, CacheRead: 0.5},
	"gpt-4.1-mini": {Input: 0.4, Output: 1.6, CacheRead: 0.1},
	"gpt-4.1-nano": {Input: 0.1, Output: 0.4, CacheRead: 0.025},
	"gpt-4o":       {Input: 2.5, Output: 10, CacheRead: 1.25},
	"gpt-4o-mini":  {Input: 0.15, Output: 0.6, CacheRead: 0.075},
	"o1":           {Input: 15, Output: 60, CacheRead: 7.5},
	"o3":           {Input: 2, Output: 8, CacheRead: 0.5},
	"o3-pro":       {Input: 20, Output: 80},
	"o3-mini":      {Input: 1.1, Output: 4.4, CacheRead: 0.55},
	"o4-mini":      {Input: 1.1, Output: 4.4, CacheRead: 0.275},
	"gpt-5":        {Input: 1.25, Output: 10, CacheRead: 0.125},
	"gpt-5-mini":   {Input: 0.25, Output: 2, CacheRead: 0.025},
	"gpt-5-nano":   {Input: 0.05, Output: 0.4, CacheRead: 0.005},
}

var (
	pricesMu sync.RWMutex
	prices   = maps.Clone(defaultPrices)
)

// SetPrices replaces (or adds) the given entries of the price table, e.g.
// from settings; other entries keep their defaults. Safe for concurrent use.
func SetPrices(overrides map[string]Price) {
	pricesMu.Lock()
	defer pricesMu.Unlock()
	maps.Copy(prices, overrides)
}

// ResetPrices restores the built-in price table.
func ResetPrices() {
	pricesMu.Lock()
	defer pricesMu.Unlock()
	prices = maps.Clone(defaultPrices)
}

// Prices returns a copy of the current price table.
func Prices() map[string]Price {
	pricesMu.RLock()
	defer pricesMu.RUnlock()
	return maps.Clone(prices)
}

// PriceFor returns the price of model (with or without a "provider:"
// prefix): an exact entry, else the longest entry that model starts with
// followed by "-" (a dated snapshot). ok is false for unknown (e.g. local)
// models, which cost 0.
func PriceFor(model string) (p Price, ok bool) {
	model = bareModel(model)
	pricesMu.RLock()
	defer pricesMu.RUnlock()
	return lookupPrefix(prices, model)
}

// lookupPrefix finds model in table exactly or by longest "key-" prefix.
func lookupPrefix[V any](table map[string]V, model string) (V, bool) {
	if v, ok := table[model]; ok {
		return v, true
	}
	best, bestLen := *new(V), 0
	for k, v := range table {
		if len(k) > bestLen && strings.HasPrefix(model, k+"-") {
			best, bestLen = v, len(k)
		}
	}
	return best, bestLen > 0
}

// bareModel strips a known "provider:" prefix.
func bareModel(model string) string {
	if p, m, ok := strings.Cut(model, ":"); ok && (p == ProviderAnthropic || p == ProviderOpenAI) {
		return m
	}
	return model
}

// Cost returns the USD cost of u for model: each token class at its own
// price (u.InputTokens excludes cache reads and writes; u.OutputTokens
// includes reasoning tokens, which are not billed twice). Unknown models
// cost 0.
func Cost(model string, u store.Usage) float64 {
	p, ok := PriceFor(model)
	if !ok {
		return 0
	}
	return (float64(u.InputTokens)*p.Input +
		float64(u.OutputTokens)*p.Output +
		float64(u.CacheReadTokens)*p.CacheRead +
		float64(u.CacheWriteTokens)*p.CacheWrite) / 1e6
}

// contextWindows are known models' context windows in tokens (same lookup
// as prices).
var contextWindows = map[string]int64{
	"claude":       200_000,
	"gpt-4.1":      1_047_576,
	"gpt-4.1-mini": 1_047_576,
	"gpt-4.1-nano": 1_047_576,
	"gpt-4o":       128_000,
	"gpt-4o-mini":  128_000,
	"o1":           200_000,
	"o3":           200_000,
	"o3-mini":      200_000,
	"o3-pro":       200_000,
	"o4-mini":      200_000,
	"gpt-5":        400_000,
	"gpt-5-mini":   400_000,
	"gpt-5-nano":   400_000,
}

// DefaultContextWindow is the window assumed for unknown models.
const DefaultContextWindow = 128_000

// ContextWindow returns model's context window in tokens (with or without a
// "provider:" prefix): known models from the table, 200k for any Claude
// model, DefaultContextWindow otherwise.
func ContextWindow(model string) int64 {
	if w, ok := lookupPrefix(contextWindows, bareModel(model)); ok {
		return w
	}
	return DefaultContextWindow
}
