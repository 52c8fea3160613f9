package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"agenthub/app/llm"
	"agenthub/ipc/errclass"
	"agenthub/store"
)

// Scripted is the in-memory twin of an llm.Provider, for tests of what is
// above the adapters (the agent loop, the hub): each Stream call takes the
// next Reply queued with Enqueue and plays it into the sink as an adapter
// plays a provider's stream — MessageStart, each block's deltas in order,
// ToolUseEnd with the parsed input — and returns the Result an adapter
// would. It records every Request. The adapters' own tests, which prove the
// providers' wire formats, keep the fake SSE servers of this package.
//
// Scripted is also an agent.ProviderSource and a hub's Providers: every
// provider name gives the same script. Safe for concurrent use; calls are
// served in the order they arrive.
type Scripted struct {
	mu      sync.Mutex
	replies []Reply
	reqs    []llm.Request
}

var _ llm.Provider = (*Scripted)(nil)

// Reply is one scripted model call.
type Reply struct {
	// Blocks are the reply's content blocks, streamed in order.
	Blocks []Block
	// Stop is the stop reason; "" means end_turn, or tool_use when a block
	// is a tool call.
	Stop string
	// Usage is the call's usage (its cost is filled in as an adapter does).
	Usage store.Usage
	// Stall, when set, stops the stream after its first block (after
	// MessageStart when there is none) at the gate until it is released or
	// the call's context ends (then the call is cancelled).
	Stall *Gate
	// Err, when set, fails the call after the blocks: the Result keeps what
	// streamed, with StopReason "error".
	Err *llm.Error
}

// Block is one content block of a Reply: text, thinking, or a tool call
// (ToolName set) whose input arrives as the given fragments.
type Block struct {
	Text      string
	Thinking  string
	ToolID    string
	ToolName  string
	ToolInput []string
}

// TextReply is a reply that says text and ends the turn.
func TextReply(text string) Reply { return Reply{Blocks: []Block{{Text: text}}} }

// ToolReply is a reply that calls the tool name with id and the JSON input.
func ToolReply(id, name, input string) Reply {
	return Reply{Blocks: []Block{{ToolID: id, ToolName: name, ToolInput: []string{input}}}}
}

// NewScripted returns a twin that will play replies, in order.
func NewScripted(replies ...Reply) *Scripted { return &Scripted{replies: replies} }

// Enqueue appends replies to the script.
func (s *Scripted) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = append(s.replies, replies...)
}

// Requests returns the requests the twin was asked, in order.
func (s *Scripted) Requests() []llm.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]llm.Request(nil), s.reqs...)
}

// Provider returns the twin for every name (agent.ProviderSource).
func (s *Scripted) Provider(string) (llm.Provider, error) { return s, nil }

// Config is a configuration in which both providers are configured, as
// the hub asks of its providers before routing a turn.
func (s *Scripted) Config() llm.Config {
	return llm.Config{AnthropicAPIKey: "scripted", OpenAIAPIKey: "scripted", IgnoreEnv: true}
}

// Stream implements llm.Provider: it plays the next reply. With the script
// exhausted the call fails (class invalid_request), naming the request.
func (s *Scripted) Stream(ctx context.Context, req llm.Request, sink llm.Sink) (llm.Result, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	if len(s.replies) == 0 {
		n := len(s.reqs)
		s.mu.Unlock()
		return llm.Result{StopReason: llm.StopError}, &llm.Error{Class: errclass.InvalidRequest,
			Message: fmt.Sprintf("llmtest: the script has no reply for call %d", n)}
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	s.mu.Unlock()
	return r.play(ctx, req.Model, sink)
}

// play streams r into sink.
func (r Reply) play(ctx context.Context, model string, sink llm.Sink) (llm.Result, error) {
	res := llm.Result{Usage: r.Usage}
	res.Usage.CostUSD = llm.Cost(model, r.Usage)
	if err := ctx.Err(); err != nil {
		return cancelled(res, err)
	}
	sink.MessageStart()
	stop := r.Stop
	for i, b := range r.Blocks {
		if i == 1 { // the stall comes after the first block
			if err := r.stall(ctx); err != nil {
				return cancelled(res, err)
			}
		}
		if err := ctx.Err(); err != nil {
			return cancelled(res, err)
		}
		switch {
		case b.ToolName != "":
			sink.ToolUseStart(i, b.ToolID, b.ToolName)
			var in string
			for _, f := range b.ToolInput {
				sink.ToolUseInputDelta(i, b.ToolID, f)
				in += f
			}
			input := json.RawMessage(in)
			if !json.Valid(input) {
				input = json.RawMessage(`{}`)
			}
			sink.ToolUseEnd(i, b.ToolID, input)
			res.Content = append(res.Content, store.ContentBlock{Type: store.BlockToolCall, ID: b.ToolID, Name: b.ToolName, Arguments: input})
			if stop == "" {
				stop = llm.StopToolUse
			}
		case b.Thinking != "":
			sig := "scripted"
			sink.ThinkingDelta(i, b.Thinking, &sig)
			res.Content = append(res.Content, store.ContentBlock{Type: store.BlockThinking, Thinking: b.Thinking, Signature: sig})
		default:
			sink.TextDelta(i, b.Text)
			res.Content = append(res.Content, store.ContentBlock{Type: store.BlockText, Text: b.Text})
		}
	}
	if len(r.Blocks) <= 1 {
		if err := r.stall(ctx); err != nil {
			return cancelled(res, err)
		}
	}
	if r.Err != nil {
		res.StopReason = llm.StopError
		return res, r.Err
	}
	if stop == "" {
		stop = llm.StopEndTurn
	}
	res.StopReason = stop
	return res, nil
}

// stall waits at r's gate (none: no wait) until it is released; the
// error is the context's when it ends first.
func (r Reply) stall(ctx context.Context) error {
	if r.Stall == nil {
		return nil
	}
	r.Stall.reachOnce.Do(func() { close(r.Stall.reached) })
	select {
	case <-r.Stall.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// cancelled is the Result and error of a call whose context ended.
func cancelled(res llm.Result, err error) (llm.Result, error) {
	res.StopReason = llm.StopCancelled
	return res, &llm.Error{Class: errclass.Cancelled, Message: err.Error()}
}
