package llmtest

import (
	"encoding/json"
	"fmt"
	"sort"
)

// AnthropicUsage is the usage a scripted Anthropic stream reports.
type AnthropicUsage struct {
	Input, CacheRead, CacheWrite, Output int64
}

// AnthropicStream builds a Messages API SSE stream exactly as the API
// frames it: message_start, content_block_start/delta/stop per block,
// message_delta, message_stop, with ping and error frames available.
type AnthropicStream struct {
	steps []Step
	index int // index of the next block
}

// NewAnthropicStream starts a stream with a message_start frame for model,
// reporting usage's input and cache counts.
func NewAnthropicStream(model string, usage AnthropicUsage) *AnthropicStream {
	s := &AnthropicStream{}
	s.event("message_start", map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": "msg_01Fake", "type": "message", "role": "assistant", "model": model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{
				"input_tokens": usage.Input, "cache_read_input_tokens": usage.CacheRead,
				"cache_creation_input_tokens": usage.CacheWrite, "output_tokens": 1,
			},
		},
	})
	return s
}

func (s *AnthropicStream) event(name string, data any) *AnthropicStream {
	b, err := json.Marshal(data)
	if err != nil {
		panic(fmt.Sprintf("llmtest: marshal %s: %v", name, err))
	}
	s.steps = append(s.steps, Step{Data: "event: " + name + "\ndata: " + string(b) + "\n\n"})
	return s
}

func (s *AnthropicStream) start(block map[string]any) *AnthropicStream {
	return s.event("content_block_start", map[string]any{"type": "content_block_start", "index": s.index, "content_block": block})
}

// delta sends a content_block_delta with its fields in the API's own order
// ({"type","index","delta":{"type",…}}), as the real stream writes them.
func (s *AnthropicStream) delta(d map[string]any) *AnthropicStream {
	inner := []byte(`{"type":`)
	t, _ := json.Marshal(d["type"])
	inner = append(inner, t...)
	keys := make([]string, 0, len(d))
	for k := range d {
		if k != "type" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, err := json.Marshal(d[k])
		if err != nil {
			panic(fmt.Sprintf("llmtest: marshal delta %s: %v", k, err))
		}
		kq, _ := json.Marshal(k) // cannot fail for a string
		inner = append(append(append(append(inner, ','), kq...), ':'), v...)
	}
	inner = append(inner, '}')
	return s.event("content_block_delta", struct {
		Type  string          `json:"type"`
		Index int             `json:"index"`
		Delta json.RawMessage `json:"delta"`
	}{"content_block_delta", s.index, inner})
}

// BeginText opens a text block.
func (s *AnthropicStream) BeginText() *AnthropicStream {
	return s.start(map[string]any{"type": "text", "text": ""})
}

// TextDelta sends a text_delta for the open block.
func (s *AnthropicStream) TextDelta(text string) *AnthropicStream {
	return s.delta(map[string]any{"type": "text_delta", "text": text})
}

// BeginThinking opens a thinking block.
func (s *AnthropicStream) BeginThinking() *AnthropicStream {
	return s.start(map[string]any{"type": "thinking", "thinking": "", "signature": ""})
}

// ThinkingDelta sends a thinking_delta for the open block.
func (s *AnthropicStream) ThinkingDelta(text string) *AnthropicStream {
	return s.delta(map[string]any{"type": "thinking_delta", "thinking": text})
}

// SignatureDelta sends the signature_delta that ends a thinking block.
func (s *AnthropicStream) SignatureDelta(sig string) *AnthropicStream {
	return s.delta(map[string]any{"type": "signature_delta", "signature": sig})
}

// BeginToolUse opens a tool_use block.
func (s *AnthropicStream) BeginToolUse(id, name string) *AnthropicStream {
	return s.start(map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}})
}

// InputDelta sends an input_json_delta fragment for the open tool_use block.
func (s *AnthropicStream) InputDelta(fragment string) *AnthropicStream {
	return s.delta(map[string]any{"type": "input_json_delta", "partial_json": fragment})
}

// EndBlock closes the open block (content_block_stop).
func (s *AnthropicStream) EndBlock() *AnthropicStream {
	s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": s.index})
	s.index++
	return s
}

// Text is a whole text block made of chunks.
func (s *AnthropicStream) Text(chunks ...string) *AnthropicStream {
	s.BeginText()
	for _, c := range chunks {
		s.TextDelta(c)
	}
	return s.EndBlock()
}

// Thinking is a whole thinking block: chunks, then the signature.
func (s *AnthropicStream) Thinking(signature string, chunks ...string) *AnthropicStream {
	s.BeginThinking()
	for _, c := range chunks {
		s.ThinkingDelta(c)
	}
	return s.SignatureDelta(signature).EndBlock()
}

// ToolUse is a whole tool_use block whose input arrives as fragments
// (like the API, an initial empty fragment is sent first).
func (s *AnthropicStream) ToolUse(id, name string, fragments ...string) *AnthropicStream {
	s.BeginToolUse(id, name).InputDelta("")
	for _, f := range fragments {
		s.InputDelta(f)
	}
	return s.EndBlock()
}

// Ping sends a ping frame.
func (s *AnthropicStream) Ping() *AnthropicStream {
	return s.event("ping", map[string]any{"type": "ping"})
}

// Error sends a mid-stream error frame (e.g. "overloaded_error").
func (s *AnthropicStream) Error(errType, message string) *AnthropicStream {
	return s.event("error", map[string]any{"type": "error", "error": map[string]any{"type": errType, "message": message}})
}

// Stall blocks the stream at g.
func (s *AnthropicStream) Stall(g *Gate) *AnthropicStream {
	s.steps = append(s.steps, Step{Gate: g})
	return s
}

// Hangup aborts the connection.
func (s *AnthropicStream) Hangup() *AnthropicStream {
	s.steps = append(s.steps, Step{Hangup: true})
	return s
}

// Finish sends message_delta (stop reason, cumulative output tokens) and
// message_stop.
func (s *AnthropicStream) Finish(stopReason string, outputTokens int64) *AnthropicStream {
	s.event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stopReason, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": outputTokens},
	})
	return s.event("message_stop", map[string]any{"type": "message_stop"})
}

// Response returns the scripted response.
func (s *AnthropicStream) Response() Response {
	return Response{Steps: append([]Step(nil), s.steps...)}
}

// AnthropicErrorBody is an Anthropic error JSON body.
func AnthropicErrorBody(errType, message string) string {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": errType, "message": message}})
	return string(b)
}

// MidFail is the "midfail" script: fails streams that each break after
// streaming part of an answer — the text partial, then the start of a
// list_dir call (tool_use id "toolu_midfail_<n>") — with an
// overloaded_error frame (retriable), then one stream that answers answer.
// A hub retries the call; what the client sees of the partials is the
// subject of docs/protocol.md "One message per model call".
func MidFail(model string, fails int, partial, answer string) []Response {
	usage := AnthropicUsage{Input: 40, Output: 1}
	out := make([]Response, 0, fails+1)
	for i := 1; i <= fails; i++ {
		out = append(out, NewAnthropicStream(model, usage).BeginText().TextDelta(partial).EndBlock().
			BeginToolUse(fmt.Sprintf("toolu_midfail_%d", i), "list_dir").InputDelta(`{"pa`).
			Error("overloaded_error", "Overloaded").Response())
	}
	return append(out, NewAnthropicStream(model, usage).Text(answer).Finish("end_turn", 5).Response())
}
