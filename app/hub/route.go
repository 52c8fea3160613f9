package hub

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"agenthub/app/llm"
	"agenthub/ipc"
	"agenthub/store"
)

// Models chosen when nothing names one and a provider is configured.
const (
	DefaultAnthropicModel = "anthropic:claude-sonnet-4-6"
	DefaultOpenAIModel    = "openai:gpt-4.1"
)

// Route reasons (route.decided reason), one per rule of the policy.
const (
	ReasonSession        = "session model"
	ReasonSettings       = "settings default model"
	ReasonFlag           = "--model flag default"
	ReasonAnthropicKey   = "no model named; Anthropic API key configured: default Anthropic model"
	ReasonOpenAIKey      = "no model named; OpenAI API key for api.openai.com configured: default OpenAI model"
	ReasonServerListed   = "no model named; first model listed by the OpenAI-compatible server"
	ReasonNotConfigured  = "no model configured"
	ReasonServerNoModels = "no model named and the OpenAI-compatible server listed none"
)

// route is the routing policy: the session's model, else the settings'
// default, else the --model flag default, else one chosen by the configured
// provider (an Anthropic key → DefaultAnthropicModel; an OpenAI key for
// api.openai.com → DefaultOpenAIModel; an OpenAI-compatible base URL → the
// first model its GET /models lists within llm.ModelListTimeout). When no rule
// gives a model, Model is "" and failure is the not_configured message for
// the user.
func (h *Hub) route(ctx context.Context, s store.Session) (d ipc.RouteDecided, failure string) {
	d = ipc.RouteDecided{Policy: RoutingPolicy, PolicyVersion: RoutingPolicyVersion}
	switch {
	case s.ActiveModel != "":
		d.Model, d.Reason = s.ActiveModel, ReasonSession
		return d, ""
	case h.settings != nil && h.settings.DefaultModel() != "":
		d.Model, d.Reason = h.settings.DefaultModel(), ReasonSettings
		return d, ""
	case h.cfg.DefaultModel != "":
		d.Model, d.Reason = h.cfg.DefaultModel, ReasonFlag
		return d, ""
	}
	h.mu.Lock()
	cfg := h.providers.Config()
	h.mu.Unlock()
	switch {
	case cfg.AnthropicAPIKey != "":
		d.Model, d.Reason = DefaultAnthropicModel, ReasonAnthropicKey
		return d, ""
	case cfg.OpenAIAPIKey != "" && isOfficialOpenAI(cfg.OpenAIBaseURL):
		d.Model, d.Reason = DefaultOpenAIModel, ReasonOpenAIKey
		return d, ""
	case cfg.OpenAIBaseURL != "":
		models, err := llm.ListModels(ctx, cfg)
		if err != nil {
			d.Reason = ReasonServerNoModels
			return d, fmt.Sprintf("No model chosen, and the OpenAI-compatible server at %s did not list one (%v): "+
				"choose a model in Settings or pass --model openai:<model>", cfg.OpenAIBaseURL, err)
		}
		d.Model, d.Reason = llm.ProviderOpenAI+":"+models[0], ReasonServerListed
		return d, ""
	}
	d.Reason = ReasonNotConfigured
	return d, "No model configured: pass --model provider:model or choose a model in Settings " +
		"(or set ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL)"
}

// isOfficialOpenAI reports whether base (may be "") is api.openai.com.
func isOfficialOpenAI(base string) bool {
	if base == "" {
		return true
	}
	u, err := url.Parse(base)
	return err == nil && u.Hostname() == "api.openai.com"
}

// thinkingBudget is the thinking budget of calls to model: the settings'
// budget when set, else Config.ThinkingBudget; 0 for Anthropic models
// without extended thinking.
func (h *Hub) thinkingBudget(model string) int {
	budget := h.cfg.ThinkingBudget
	if ts, ok := h.settings.(ThinkingSettings); ok {
		if b := ts.ThinkingBudget(); b > 0 {
			budget = b
		}
	}
	if budget <= 0 {
		return 0
	}
	prov, name, err := llm.ParseModel(model)
	if err != nil {
		return 0
	}
	if prov == llm.ProviderAnthropic && !anthropicThinks(name) {
		return 0
	}
	return budget
}

// anthropicThinks reports whether an Anthropic model supports extended
// thinking: every Claude model from 3.7 on (the older families are listed).
func anthropicThinks(model string) bool {
	for _, old := range []string{"claude-2", "claude-instant", "claude-3-haiku", "claude-3-sonnet", "claude-3-opus", "claude-3-5-"} {
		if strings.HasPrefix(model, old) {
			return false
		}
	}
	return strings.HasPrefix(model, "claude-")
}

// modelConfigured reports whether model ("provider:model") can be called
// with the providers configured now; why says what is missing.
func (h *Hub) modelConfigured(model string) (ok bool, why string) {
	prov, _, err := llm.ParseModel(model)
	if err != nil {
		return false, err.Error()
	}
	h.mu.Lock()
	cfg := h.providers.Config()
	h.mu.Unlock()
	switch {
	case prov == llm.ProviderAnthropic && cfg.AnthropicAPIKey != "":
		return true, ""
	case prov == llm.ProviderOpenAI && (cfg.OpenAIAPIKey != "" || cfg.OpenAIBaseURL != ""):
		return true, ""
	}
	return false, "no " + prov + " provider is configured"
}
