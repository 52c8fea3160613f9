package hub

import (
	"context"
	"fmt"
	"time"

	"agenthub/app/llm"
	"agenthub/ipc"
	"agenthub/store"
)

var _ ipc.ConnectionTester = (*Hub)(nil)

// DefaultModel is the model a session without one of its own uses, as far
// as it is known without asking a server: the settings' default, the
// --model flag, or the configured key's provider default; "" otherwise (an
// OpenAI-compatible server's first listed model is chosen at a turn).
func (h *Hub) DefaultModel() string {
	if h.settings != nil && h.settings.DefaultModel() != "" {
		return h.settings.DefaultModel()
	}
	if h.cfg.DefaultModel != "" {
		return h.cfg.DefaultModel
	}
	h.mu.Lock()
	cfg := h.providers.Config()
	h.mu.Unlock()
	switch {
	case cfg.AnthropicAPIKey != "":
		return DefaultAnthropicModel
	case cfg.OpenAIAPIKey != "" && isOfficialOpenAI(cfg.OpenAIBaseURL):
		return DefaultOpenAIModel
	}
	return ""
}

// TestConnection implements ipc.ConnectionTester: one tiny call (a
// one-token reply to "ping") to provider with the credentials configured
// now, to the default model when it is that provider's, else to the
// provider's default (an OpenAI-compatible server: its first listed
// model). The answer says which model answered and how long it took, or,
// in plain words, why it failed (llm's error message: a bad key, no
// server at the address…).
func (h *Hub) TestConnection(ctx context.Context, provider string) (ipc.ConnectionTest, error) {
	if provider != llm.ProviderAnthropic && provider != llm.ProviderOpenAI {
		return ipc.ConnectionTest{}, fmt.Errorf("provider %q (use anthropic or openai): %w", provider, ipc.ErrInvalidInput)
	}
	h.mu.Lock()
	providers := h.providers
	h.mu.Unlock()
	res := ipc.ConnectionTest{Provider: provider}
	model, err := h.testModel(ctx, provider, providers.Config())
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	res.Model = provider + ":" + model
	p, err := providers.Provider(provider)
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err = p.Stream(ctx, llm.Request{Model: model, MaxTokens: 1, Messages: []store.Message{{Role: store.RoleUser,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: "ping"}}}}}, discardSink{})
	res.DurationMS = time.Since(start).Milliseconds()
	if err != nil {
		if le, ok := llm.AsError(err); ok {
			res.Error = le.Message
		} else {
			res.Error = err.Error()
		}
		return res, nil
	}
	res.OK = true
	return res, nil
}

// testModel is the bare model name TestConnection calls.
func (h *Hub) testModel(ctx context.Context, provider string, cfg llm.Config) (string, error) {
	if prov, name, err := llm.ParseModel(h.DefaultModel()); err == nil && prov == provider {
		return name, nil
	}
	switch {
	case provider == llm.ProviderAnthropic:
		_, name, _ := llm.ParseModel(DefaultAnthropicModel)
		return name, nil
	case isOfficialOpenAI(cfg.OpenAIBaseURL):
		_, name, _ := llm.ParseModel(DefaultOpenAIModel)
		return name, nil
	}
	models, err := llm.ListModels(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("the server lists no model: %w", err)
	}
	return models[0], nil
}
