package faults

import (
	"fmt"
	"testing"

	"agenthub/app/llm/llmtest"
)

// TestProviderFaults: rate limits, server errors, overload, a connection
// reset mid-stream and a stream that stops mid-answer. The turn retries
// what is retriable and fails visibly (turn.completed failed, with the
// error class) what is not; the process survives and the next turn works.
func TestProviderFaults(t *testing.T) {
	llm := llmtest.NewServer(t)
	in := start(t, newDirs(t), llm.URL)
	sid := in.session()
	cl, _ := in.attach(sid, "")
	ok := func() llmtest.Response {
		return llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 10, Output: 1}).Text("fine").Finish("end_turn", 1).Response()
	}
	cases := []struct {
		name  string
		resps []llmtest.Response
		want  string // turn.completed status
	}{
		{"429 then success", []llmtest.Response{llmtest.HTTPError(429, llmtest.AnthropicErrorBody("rate_limit_error", "slow down"), "Retry-After", "0"), ok()}, "completed"},
		{"500 then success", []llmtest.Response{llmtest.HTTPError(500, llmtest.AnthropicErrorBody("api_error", "boom")), ok()}, "completed"},
		{"529 overloaded then success", []llmtest.Response{llmtest.HTTPError(529, llmtest.AnthropicErrorBody("overloaded_error", "busy")), ok()}, "completed"},
		{"connection reset mid-stream, then success", []llmtest.Response{
			llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 10, Output: 1}).Text("partial ").Hangup().Response(), ok()}, "completed"},
		{"stream error event mid-answer, then success", []llmtest.Response{
			llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 10, Output: 1}).Text("partial ").Error("overloaded_error", "busy").Response(), ok()}, "completed"},
		{"401 (not retriable)", []llmtest.Response{llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "bad key"))}, "failed"},
	}
	var rows []string
	for _, c := range cases {
		llm.Enqueue(c.resps...)
		in.submit(sid, c.name)
		evs := cl.until(c.name+": the turn's end", turnEnded)
		end := evs[len(evs)-1]
		var p struct {
			Status     string `json:"status"`
			ErrorClass string `json:"error_class"`
		}
		_ = jsonUnmarshal(end.Payload, &p)
		failures := 0
		for _, e := range evs {
			if e.Type == "llm.call_failed" {
				failures++
			}
		}
		if end.Type != "turn.completed" || p.Status != c.want {
			t.Fatalf("%s: turn ended %s %+v, want %s", c.name, end.Type, p, c.want)
		}
		rows = append(rows, fmt.Sprintf("%s → %s after %d failed call(s)", c.name, p.Status, failures))
	}
	rep.add("provider faults (fake Anthropic server, real SSE)", fmt.Sprint(rows))
}
