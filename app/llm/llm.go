// Package llm adapts LLM providers (the Anthropic Messages API and any
// OpenAI-compatible Chat Completions endpoint) to one canonical streaming
// interface. It knows nothing of events: a Provider streams one model call
// into a Sink (message start, text/thinking deltas, tool use start/input/end)
// and returns the final Result; the agent loop turns those callbacks into
// events. Errors are *Error values with a Class the agent uses to decide on
// retries; adapters never retry themselves.
//
// llm imports only store, the provider SDKs and the standard library.
package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"agenthub/ipc/errclass"
	"agenthub/store"
)

// Provider names as used in "provider:model" strings.
const (
	ProviderAnthropic = "anthropic"
	ProviderOpenAI    = "openai"
)

// Stop reasons of a Result.
const (
	StopEndTurn      = "end_turn"
	StopMaxTokens    = "max_tokens"
	StopSequence     = "stop_sequence"
	StopToolUse      = "tool_use"
	StopCancelled    = "cancelled"
	StopError        = "error"
	DefaultMaxTokens = 8192
	// DefaultIdleTimeout is how long a stream may stay silent (no bytes,
	// including pings) before the call fails with errclass.Timeout.
	DefaultIdleTimeout = 60 * time.Second
)

// Config carries credentials and endpoints from settings. Environment
// variables (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY,
// OPENAI_BASE_URL), when set and non-empty, take precedence over these fields,
// like the other flags and env of DESIGN.md §3 take precedence over settings;
// set IgnoreEnv to use the fields alone (tests do).
type Config struct {
	AnthropicAPIKey  string
	AnthropicBaseURL string
	OpenAIAPIKey     string
	OpenAIBaseURL    string
	// IdleTimeout bounds the silence between received bytes of a call
	// (including the wait for response headers); 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// HTTPClient is used for every call; nil means a client with no overall
	// timeout (streams are bounded by the idle timeout and the ctx).
	HTTPClient *http.Client
	// IgnoreEnv disables the environment-variable overrides.
	IgnoreEnv bool
}

// resolved returns cfg with the environment overrides applied.
func (cfg Config) resolved(getenv func(string) string) Config {
	if cfg.IgnoreEnv {
		return cfg
	}
	over := func(dst *string, name string) {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			*dst = v
		}
	}
	over(&cfg.AnthropicAPIKey, "ANTHROPIC_API_KEY")
	over(&cfg.AnthropicBaseURL, "ANTHROPIC_BASE_URL")
	over(&cfg.OpenAIAPIKey, "OPENAI_API_KEY")
	over(&cfg.OpenAIBaseURL, "OPENAI_BASE_URL")
	return cfg
}

// Registry hands out configured providers. It is immutable and safe for
// concurrent use; build a new one when settings change.
type Registry struct {
	cfg Config
}

// New returns a Registry for cfg, with environment overrides applied unless
// cfg.IgnoreEnv is set. It does no I/O.
func New(cfg Config) *Registry {
	cfg = cfg.resolved(os.Getenv)
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	return &Registry{cfg: cfg}
}

// Config returns the registry's configuration with the environment overrides
// applied and defaults filled (what its providers use). The HTTPClient is
// shared: callers may use it but must not modify it.
func (r *Registry) Config() Config { return r.cfg }

// Provider returns the adapter for name ("anthropic" or "openai"). An unknown
// name is an *Error of class invalid_request; a provider without credentials
// (Anthropic: no API key; OpenAI-compatible: neither API key nor base URL) is
// an *Error of class not_configured whose message says what to set.
func (r *Registry) Provider(name string) (Provider, error) {
	switch name {
	case ProviderAnthropic:
		if r.cfg.AnthropicAPIKey == "" {
			return nil, &Error{Class: errclass.NotConfigured, Message: "No Anthropic API key: set ANTHROPIC_API_KEY or add the key in Settings"}
		}
		return newAnthropic(r.cfg), nil
	case ProviderOpenAI:
		if r.cfg.OpenAIAPIKey == "" && r.cfg.OpenAIBaseURL == "" {
			return nil, &Error{Class: errclass.NotConfigured, Message: "No OpenAI-compatible endpoint: set OPENAI_API_KEY (for api.openai.com) or OPENAI_BASE_URL (for Ollama, vLLM, llama.cpp or LM Studio), or add them in Settings"}
		}
		return newOpenAI(r.cfg), nil
	default:
		return nil, &Error{Class: errclass.InvalidRequest, Message: fmt.Sprintf("unknown LLM provider %q: use %q or %q", name, ProviderAnthropic, ProviderOpenAI)}
	}
}

// Stream is a convenience for ParseModel + Provider + Stream: model is
// "provider:model", and req.Model is replaced by the bare model name.
func (r *Registry) Stream(ctx context.Context, model string, req Request, sink Sink) (Result, error) {
	prov, name, err := ParseModel(model)
	if err != nil {
		return Result{StopReason: StopError}, err
	}
	p, err := r.Provider(prov)
	if err != nil {
		return Result{StopReason: StopError}, err
	}
	req.Model = name
	return p.Stream(ctx, req, sink)
}

// Provider streams one model call.
//
// Stream calls sink synchronously from the calling goroutine, in wire order,
// and returns when the call ends. On success the error is nil and the Result
// is final. On failure the error is an *Error and the Result holds whatever
// content arrived (an open tool call closed with the input that parses, else
// {}), StopReason "cancelled" when ctx was cancelled, else "error", and the
// usage known so far. Stream never retries.
type Provider interface {
	Stream(ctx context.Context, req Request, sink Sink) (Result, error)
}

// Request is one model call. Messages is the session history (roles user,
// assistant, toolResult); the adapter converts it to the provider's format,
// repairing tool calls without results and results without calls (see
// RepairToolPairs).
type Request struct {
	Model    string // bare model name, without the "provider:" prefix
	System   string
	Messages []store.Message
	Tools    []ToolSpec
	// MaxTokens caps the output; 0 means DefaultMaxTokens.
	MaxTokens int
	// ThinkingBudget > 0 asks for extended thinking (Anthropic: budget_tokens,
	// at least 1024; OpenAI reasoning models: a reasoning_effort derived from
	// it). 0 disables thinking.
	ThinkingBudget int
}

// ToolSpec describes a tool the model may call. InputSchema is a JSON Schema
// object ({"type":"object","properties":...}); empty means no parameters.
type ToolSpec struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Sink receives the canonical streaming callbacks of one call. index is the
// block's index in Result.Content. Callbacks come from the goroutine that
// called Stream, never concurrently, and never after Stream returns.
type Sink interface {
	// MessageStart is called once, when the provider starts its reply.
	MessageStart()
	// TextDelta carries a new chunk of a text block (not cumulative).
	TextDelta(index int, text string)
	// ThinkingDelta carries a chunk of a thinking block; signature is non-nil
	// only on the block's last delta, whose text may be empty.
	ThinkingDelta(index int, text string, signature *string)
	// ToolUseStart opens a tool call block.
	ToolUseStart(index int, id, name string)
	// ToolUseInputDelta carries a raw JSON fragment exactly as received; the
	// fragments are not parseable until ToolUseEnd.
	ToolUseInputDelta(index int, id, fragment string)
	// ToolUseEnd closes a tool call with its parsed input ({} when empty).
	ToolUseEnd(index int, id string, finalInput json.RawMessage)
}

// Result is the outcome of one call: the final content blocks (text,
// thinking, toolCall), the stop reason (end_turn, max_tokens, stop_sequence,
// tool_use, cancelled, error) and the normalised usage with CostUSD filled
// from Cost.
type Result struct {
	Content    []store.ContentBlock
	StopReason string
	Usage      store.Usage
}

// ParseModel splits "provider:model" (e.g. "anthropic:claude-sonnet-4-6",
// "openai:llama3.1:8b" — only the first colon separates). The provider must
// be "anthropic" or "openai" and the model non-empty; otherwise the error is
// an *Error of class invalid_request.
func ParseModel(s string) (provider, model string, err error) {
	provider, model, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || model == "" {
		return "", "", &Error{Class: errclass.InvalidRequest, Message: fmt.Sprintf("model %q is not of the form provider:model (e.g. anthropic:claude-sonnet-4-6, openai:gpt-4.1)", s)}
	}
	if provider != ProviderAnthropic && provider != ProviderOpenAI {
		return "", "", &Error{Class: errclass.InvalidRequest, Message: fmt.Sprintf("model %q: unknown provider %q (use anthropic or openai)", s, provider)}
	}
	return provider, model, nil
}
