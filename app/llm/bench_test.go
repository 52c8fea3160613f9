package llm_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/store"
)

// Throughput of the adapters over loopback: one call streaming 2000 text
// deltas and a 200-fragment tool input. Reports deltas/s.
func BenchmarkAnthropicStream(b *testing.B) {
	chunks := make([]string, 2000)
	for i := range chunks {
		chunks[i] = "tok "
	}
	frags := append([]string{`{"content": "`}, strings.Split(strings.Repeat("x", 200), "")...)
	frags = append(frags, `"}`)
	resp := llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10}).
		Text(chunks...).ToolUse("t", "write_file", frags...).Finish("tool_use", 2000).Response()
	srv := llmtest.NewServer(b)
	p, err := llm.New(llm.Config{AnthropicAPIKey: "k", AnthropicBaseURL: srv.URL, IgnoreEnv: true}).Provider("anthropic")
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Model: "claude-sonnet-4-6", Messages: []store.Message{userMsg("x")}}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		srv.Enqueue(resp)
		b.StartTimer()
		if _, err := p.Stream(context.Background(), req, nopSink{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*(len(chunks)+len(frags)))/b.Elapsed().Seconds(), "deltas/s")
}

func BenchmarkOpenAIStream(b *testing.B) {
	chunks := make([]string, 2000)
	for i := range chunks {
		chunks[i] = "tok "
	}
	resp := llmtest.NewOpenAIStream("m").Text(chunks...).Finish("stop").Usage(10, 2000, 0, 0).Done().Response()
	srv := llmtest.NewServer(b)
	p, err := llm.New(llm.Config{OpenAIBaseURL: srv.URL, IgnoreEnv: true}).Provider("openai")
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Model: "m", Messages: []store.Message{userMsg("x")}}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		srv.Enqueue(resp)
		b.StartTimer()
		if _, err := p.Stream(context.Background(), req, nopSink{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "deltas/s")
}

type nopSink struct{}

func (nopSink) MessageStart()                           {}
func (nopSink) TextDelta(int, string)                   {}
func (nopSink) ThinkingDelta(int, string, *string)      {}
func (nopSink) ToolUseStart(int, string, string)        {}
func (nopSink) ToolUseInputDelta(int, string, string)   {}
func (nopSink) ToolUseEnd(int, string, json.RawMessage) {}
