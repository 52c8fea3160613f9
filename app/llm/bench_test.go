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
	chunks := benchChunks()
	frags := append([]string{`{"content": "`}, strings.Split(strings.Repeat("x", 200), "")...)
	frags = append(frags, `"}`)
	resp := llmtest.NewAnthropicStream("claude-sonnet-4-6", llmtest.AnthropicUsage{Input: 10}).
		Text(chunks...).ToolUse("t", "write_file", frags...).Finish("tool_use", 2000).Response()
	srv := llmtest.NewServer(b)
	benchStream(b, srv, resp, llm.Config{AnthropicAPIKey: "k", AnthropicBaseURL: srv.URL, IgnoreEnv: true}, "anthropic:claude-sonnet-4-6", len(chunks)+len(frags))
}

func BenchmarkOpenAIStream(b *testing.B) {
	chunks := benchChunks()
	resp := llmtest.NewOpenAIStream("m").Text(chunks...).Finish("stop").Usage(10, 2000, 0, 0).Done().Response()
	srv := llmtest.NewServer(b)
	benchStream(b, srv, resp, llm.Config{OpenAIBaseURL: srv.URL, IgnoreEnv: true}, "openai:m", len(chunks))
}

// benchChunks are 2000 text deltas.
func benchChunks() []string {
	chunks := make([]string, 2000)
	for i := range chunks {
		chunks[i] = "tok "
	}
	return chunks
}

// benchStream streams resp from srv through the provider of model
// ("provider:name") once per iteration and reports deltas (per call) per
// second.
func benchStream(b *testing.B, srv *llmtest.Server, resp llmtest.Response, cfg llm.Config, model string, deltas int) {
	prov, name, err := llm.ParseModel(model)
	if err != nil {
		b.Fatal(err)
	}
	p, err := llm.New(cfg).Provider(prov)
	if err != nil {
		b.Fatal(err)
	}
	req := llm.Request{Model: name, Messages: []store.Message{userMsg("x")}}
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		srv.Enqueue(resp)
		b.StartTimer()
		if _, err := p.Stream(context.Background(), req, nopSink{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*deltas)/b.Elapsed().Seconds(), "deltas/s")
}

type nopSink struct{}

func (nopSink) MessageStart()                           {}
func (nopSink) TextDelta(int, string)                   {}
func (nopSink) ThinkingDelta(int, string, *string)      {}
func (nopSink) ToolUseStart(int, string, string)        {}
func (nopSink) ToolUseInputDelta(int, string, string)   {}
func (nopSink) ToolUseEnd(int, string, json.RawMessage) {}
