package hub

import (
	"encoding/json"
	"testing"
)

func TestThinkingBudgetByModel(t *testing.T) {
	h := &Hub{cfg: Config{ThinkingBudget: 4096}}
	for model, want := range map[string]int{
		"anthropic:claude-sonnet-4-6":        4096,
		"anthropic:claude-3-7-sonnet-latest": 4096,
		"anthropic:claude-opus-4-1":          4096,
		"anthropic:claude-3-5-sonnet-latest": 0,
		"anthropic:claude-3-haiku-20240307":  0,
		"openai:o4-mini":                     4096, // the adapter maps it to a reasoning effort
		"not a model":                        0,
	} {
		if got := h.thinkingBudget(model); got != want {
			t.Errorf("thinkingBudget(%q) = %d, want %d", model, got, want)
		}
	}
	off := &Hub{}
	if got := off.thinkingBudget("anthropic:claude-sonnet-4-6"); got != 0 {
		t.Errorf("default budget %d, want 0", got)
	}
	withSettings := &Hub{cfg: Config{ThinkingBudget: 1024}, settings: budgetSettings(8000)}
	if got := withSettings.thinkingBudget("anthropic:claude-sonnet-4-6"); got != 8000 {
		t.Errorf("settings budget %d, want 8000", got)
	}
}

// budgetSettings is a Settings with a thinking budget.
type budgetSettings int

func (budgetSettings) DefaultModel() string                            { return "" }
func (budgetSettings) Masked() (json.RawMessage, error)                { return json.RawMessage(`{}`), nil }
func (budgetSettings) Update(json.RawMessage) (json.RawMessage, error) { return nil, nil }
func (b budgetSettings) ThinkingBudget() int                           { return int(b) }
