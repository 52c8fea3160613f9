package llmtest

import (
	"encoding/json"
	"fmt"
)

// OpenAIStream builds a Chat Completions SSE stream as OpenAI frames it:
// "data: {chat.completion.chunk}" lines, tool_calls fragments keyed by index,
// a finish chunk, a usage chunk with empty choices (stream_options
// include_usage) and "data: [DONE]".
type OpenAIStream struct {
	model string
	steps []Step
}

// NewOpenAIStream starts a stream whose first chunk carries role assistant.
func NewOpenAIStream(model string) *OpenAIStream {
	s := &OpenAIStream{model: model}
	return s.chunk(map[string]any{"role": "assistant", "content": ""}, nil)
}

func (s *OpenAIStream) data(v any) *OpenAIStream {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest: marshal chunk: %v", err))
	}
	s.steps = append(s.steps, Step{Data: "data: " + string(b) + "\n\n"})
	return s
}

func (s *OpenAIStream) chunk(delta map[string]any, finish any) *OpenAIStream {
	return s.data(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1735689600, "model": s.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}},
	})
}

// Text sends one content chunk per argument.
func (s *OpenAIStream) Text(chunks ...string) *OpenAIStream {
	for _, c := range chunks {
		s.chunk(map[string]any{"content": c}, nil)
	}
	return s
}

// Reasoning sends one chunk per argument with the reasoning text in field
// ("reasoning_content" as vLLM/DeepSeek/llama.cpp, "reasoning" as Ollama).
func (s *OpenAIStream) Reasoning(field string, chunks ...string) *OpenAIStream {
	for _, c := range chunks {
		s.chunk(map[string]any{"content": nil, field: c}, nil)
	}
	return s
}

// ToolCall sends a tool call at wire index: a first chunk with id, name and
// empty arguments, then one chunk per argument fragment.
func (s *OpenAIStream) ToolCall(index int, id, name string, fragments ...string) *OpenAIStream {
	s.chunk(map[string]any{"tool_calls": []any{map[string]any{
		"index": index, "id": id, "type": "function", "function": map[string]any{"name": name, "arguments": ""},
	}}}, nil)
	for _, f := range fragments {
		s.ToolArgs(index, f)
	}
	return s
}

// ToolArgs sends one arguments fragment for the call at wire index.
func (s *OpenAIStream) ToolArgs(index int, fragment string) *OpenAIStream {
	return s.chunk(map[string]any{"tool_calls": []any{map[string]any{
		"index": index, "function": map[string]any{"arguments": fragment},
	}}}, nil)
}

// Finish sends the chunk with finish_reason ("stop", "length", "tool_calls").
func (s *OpenAIStream) Finish(reason string) *OpenAIStream {
	return s.chunk(map[string]any{}, reason)
}

// Usage sends the final usage chunk (empty choices). prompt includes
// cached; completion includes reasoning — as OpenAI reports them.
func (s *OpenAIStream) Usage(prompt, completion, cached, reasoning int64) *OpenAIStream {
	return s.data(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1735689600, "model": s.model,
		"choices": []any{},
		"usage": map[string]any{
			"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"prompt_tokens_details":     map[string]any{"cached_tokens": cached, "audio_tokens": 0},
			"completion_tokens_details": map[string]any{"reasoning_tokens": reasoning, "audio_tokens": 0},
		},
	})
}

// Error sends a mid-stream error chunk ({"error": {...}}).
func (s *OpenAIStream) Error(errType, code, message string) *OpenAIStream {
	return s.data(map[string]any{"error": map[string]any{"type": errType, "code": code, "message": message}})
}

// Done sends "data: [DONE]".
func (s *OpenAIStream) Done() *OpenAIStream {
	s.steps = append(s.steps, Step{Data: "data: [DONE]\n\n"})
	return s
}

// Stall blocks the stream at g.
func (s *OpenAIStream) Stall(g *Gate) *OpenAIStream {
	s.steps = append(s.steps, Step{Gate: g})
	return s
}

// Hangup aborts the connection.
func (s *OpenAIStream) Hangup() *OpenAIStream {
	s.steps = append(s.steps, Step{Hangup: true})
	return s
}

// Response returns the scripted response.
func (s *OpenAIStream) Response() Response {
	return Response{Steps: append([]Step(nil), s.steps...)}
}

// OpenAIErrorBody is an OpenAI error JSON body.
func OpenAIErrorBody(errType, code, message string) string {
	var c any
	if code != "" {
		c = code
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"type": errType, "code": c, "message": message, "param": nil}})
	return string(b)
}
