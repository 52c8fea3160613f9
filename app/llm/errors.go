package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"agenthub/ipc/errclass"
)

// Error is every failure of this package. Class is one of the LLM classes
// of ipc/errclass (the wire's llm.call_failed error_class); Message is meant
// for the user; Retriable says whether the same call may succeed later (the
// agent decides, using Backoff); RetryAfter is the provider's retry-after
// hint (0 when absent); Status is the HTTP status when the failure came from
// one (200 for a mid-stream error frame).
type Error struct {
	Class      string
	Message    string
	Retriable  bool
	RetryAfter time.Duration
	Status     int
	cause      error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("llm %s (HTTP %d): %s", e.Class, e.Status, e.Message)
	}
	return fmt.Sprintf("llm %s: %s", e.Class, e.Message)
}

// Unwrap returns the underlying SDK or transport error, if any.
func (e *Error) Unwrap() error { return e.cause }

// AsError returns err as an *Error when it is one (or wraps one).
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// retriable reports the default retriability of a class.
func retriable(class string) bool {
	switch class {
	case errclass.RateLimit, errclass.Overloaded, errclass.Server, errclass.Network, errclass.Timeout:
		return true
	}
	return false
}

func newError(class, msg string, status int, cause error) *Error {
	return &Error{Class: class, Message: msg, Retriable: retriable(class), Status: status, cause: cause}
}

// contextOverflowWords are the phrases providers use when the prompt does not
// fit the model's context window (Anthropic "prompt is too long", OpenAI
// "context_length_exceeded"/"maximum context length", vLLM/llama.cpp/Ollama
// variants).
var contextOverflowWords = []string{
	"prompt is too long",
	"context_length_exceeded",
	"maximum context length",
	"context length",
	"context window",
	"exceed context limit",
	"exceeds the context",
	"too many tokens",
	"input is too long",
	"n_ctx",
}

func isContextOverflow(text string) bool {
	t := strings.ToLower(text)
	for _, w := range contextOverflowWords {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// classifyAPI maps a provider error (HTTP status, provider error type/code,
// message, headers) to an *Error. providerName is for messages ("Anthropic").
func classifyAPI(providerName string, status int, errType, msg string, header http.Header, cause error) *Error {
	if msg == "" {
		msg = http.StatusText(status)
	}
	detail := fmt.Sprintf("%s: %s", providerName, msg)
	class := ""
	switch errType {
	case "authentication_error", "permission_error", "invalid_api_key", "billing_error", "insufficient_quota":
		class = errclass.Auth
	case "rate_limit_error", "rate_limit_exceeded":
		class = errclass.RateLimit
	case "overloaded_error":
		class = errclass.Overloaded
	case "api_error", "server_error":
		class = errclass.Server
	case "timeout_error":
		class = errclass.Timeout
	case "context_length_exceeded":
		class = errclass.ContextOverflow
	case "invalid_request_error", "not_found_error", "request_too_large", "invalid_request", "model_not_found":
		class = errclass.InvalidRequest
	}
	if class == "" {
		switch {
		case status == 401 || status == 403:
			class = errclass.Auth
		case status == 429:
			class = errclass.RateLimit
		case status == 529:
			class = errclass.Overloaded
		case status == 408:
			class = errclass.Timeout
		case status >= 500:
			class = errclass.Server
		case status >= 400:
			class = errclass.InvalidRequest
		default:
			class = errclass.Server
		}
	}
	if class == errclass.InvalidRequest && isContextOverflow(msg) {
		class = errclass.ContextOverflow
	}
	if class == errclass.Auth && (status == 401 || errType == "authentication_error" || errType == "invalid_api_key") {
		env := "ANTHROPIC_API_KEY"
		if providerName != "Anthropic" {
			env = "OPENAI_API_KEY"
		}
		detail += fmt.Sprintf(" (check %s or the key in Settings)", env)
	}
	e := newError(class, detail, status, cause)
	e.RetryAfter = retryAfter(header, time.Now())
	return e
}

// retryAfter reads retry-after-ms (milliseconds), then retry-after (seconds
// or an HTTP date) from h. 0 when absent or unparseable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// errIdle is the cancel cause of a call whose stream went silent.
var errIdle = errors.New("stream idle timeout")

// classifyTransport maps a non-API error of a call made under callCtx (a
// child of parent) to an *Error: cancellation, idle/deadline timeouts,
// connection failures, and malformed streams.
func classifyTransport(providerName string, parent, callCtx context.Context, idle time.Duration, err error) *Error {
	switch {
	case errors.Is(context.Cause(callCtx), errIdle):
		return newError(errclass.Timeout, fmt.Sprintf("%s: no data received for %s", providerName, idle), 0, err)
	case errors.Is(parent.Err(), context.Canceled):
		return newError(errclass.Cancelled, fmt.Sprintf("%s call cancelled", providerName), 0, err)
	case errors.Is(parent.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		return newError(errclass.Timeout, fmt.Sprintf("%s call timed out", providerName), 0, err)
	}
	var netErr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return newError(errclass.Network, fmt.Sprintf("%s: connection refused: %v", providerName, err), 0, err)
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return newError(errclass.Network, fmt.Sprintf("%s: connection reset: %v", providerName, err), 0, err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return newError(errclass.Network, fmt.Sprintf("%s: connection closed mid-stream: %v", providerName, err), 0, err)
	case errors.As(err, &netErr) && netErr.Timeout():
		return newError(errclass.Timeout, fmt.Sprintf("%s: %v", providerName, err), 0, err)
	case errors.As(err, &netErr):
		return newError(errclass.Network, fmt.Sprintf("%s: %v", providerName, err), 0, err)
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return newError(errclass.Server, fmt.Sprintf("%s sent a malformed stream: %v", providerName, err), 0, err)
	}
	return newError(errclass.Network, fmt.Sprintf("%s: %v", providerName, err), 0, err)
}

// errorBody extracts (type, message) from a provider error JSON of either
// shape {"error":{"type"|"code","message"}} or {"type","code","message"}.
func errorBody(raw string) (errType, msg string) {
	var env struct {
		Error json.RawMessage `json:"error"`
		Type  string          `json:"type"`
		Code  any             `json:"code"`
		Msg   string          `json:"message"`
	}
	if json.Unmarshal([]byte(raw), &env) != nil {
		return "", strings.TrimSpace(raw)
	}
	if len(env.Error) > 0 {
		var inner struct {
			Type string `json:"type"`
			Code any    `json:"code"`
			Msg  string `json:"message"`
		}
		if json.Unmarshal(env.Error, &inner) == nil {
			return pickType(inner.Type, inner.Code), inner.Msg
		}
		var s string
		if json.Unmarshal(env.Error, &s) == nil { // Ollama: {"error":"..."}
			return "", s
		}
	}
	if env.Type == "error" {
		env.Type = ""
	}
	return pickType(env.Type, env.Code), env.Msg
}

// pickType prefers a specific code ("context_length_exceeded",
// "rate_limit_exceeded") over a generic type ("invalid_request_error").
func pickType(typ string, code any) string {
	if c, ok := code.(string); ok && c != "" {
		switch c {
		case "context_length_exceeded", "rate_limit_exceeded", "insufficient_quota", "invalid_api_key", "model_not_found", "server_error":
			return c
		}
	}
	return typ
}

// BackoffPolicy computes retry delays: exponential from Base, capped at Max,
// with "equal jitter" (half fixed, half random from Rand, which returns a
// value in [0,1)). A provider retry-after hint wins, capped at MaxRetryAfter.
type BackoffPolicy struct {
	Base          time.Duration
	Max           time.Duration
	MaxRetryAfter time.Duration
	Rand          func() float64
}

// DefaultBackoff is the policy Backoff uses: 1s, 2s, 4s … capped at 30s;
// retry-after hints honoured up to 2 minutes.
var DefaultBackoff = BackoffPolicy{Base: time.Second, Max: 30 * time.Second, MaxRetryAfter: 2 * time.Minute, Rand: rand.Float64}

// Delay returns the wait before retry number attempt (1 for the first
// retry). retryAfter > 0 (from Error.RetryAfter) is returned as is, capped at
// MaxRetryAfter; otherwise the delay is d/2 + Rand()*d/2 with
// d = min(Base*2^(attempt-1), Max).
func (p BackoffPolicy) Delay(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, p.MaxRetryAfter)
	}
	if attempt < 1 {
		attempt = 1
	}
	d := p.Base
	for i := 1; i < attempt && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	r := 0.5
	if p.Rand != nil {
		r = p.Rand()
	}
	return d/2 + time.Duration(r*float64(d/2))
}

// Backoff is DefaultBackoff.Delay.
func Backoff(attempt int, retryAfter time.Duration) time.Duration {
	return DefaultBackoff.Delay(attempt, retryAfter)
}
