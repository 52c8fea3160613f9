package llm_test

import (
	"context"
	"encoding/json"
	"fmt"

	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
)

// printSink prints the streaming callbacks of one call as they come.
type printSink struct{}

func (printSink) MessageStart()                                   { fmt.Println("start") }
func (printSink) TextDelta(index int, text string)                { fmt.Printf("text[%d] %q\n", index, text) }
func (printSink) ThinkingDelta(index int, text string, _ *string) {}
func (printSink) ToolUseStart(index int, id, name string) {
	fmt.Printf("tool[%d] %s %s\n", index, id, name)
}
func (printSink) ToolUseInputDelta(int, string, string) {}
func (printSink) ToolUseEnd(index int, id string, in json.RawMessage) {
	fmt.Printf("tool[%d] input %s\n", index, in)
}

// A Provider streams one model call into a Sink and returns the final
// content. Here the provider is the in-memory twin the loop's tests use;
// a Registry hands out the real adapters (Anthropic, OpenAI-compatible)
// by the model's "provider:" prefix.
func ExampleProvider() {
	var p llm.Provider = llmtest.NewScripted(llmtest.Reply{Blocks: []llmtest.Block{
		{Text: "Reading it."},
		{ToolID: "call_1", ToolName: "read_file", ToolInput: []string{`{"path":`, `"go.mod"}`}},
	}})
	res, err := p.Stream(context.Background(), llm.Request{Model: "claude-sonnet-4-6"}, printSink{})
	fmt.Println(res.StopReason, len(res.Content), err)
	// Output:
	// start
	// text[0] "Reading it."
	// tool[1] call_1 read_file
	// tool[1] input {"path":"go.mod"}
	// tool_use 2 <nil>
}

// Models are named "provider:model"; only the first colon separates.
func ExampleParseModel() {
	p, m, err := llm.ParseModel("openai:llama3.1:8b")
	fmt.Println(p, m, err)
	_, _, err = llm.ParseModel("gpt-4.1")
	fmt.Println(err)
	// Output:
	// openai llama3.1:8b <nil>
	// llm invalid_request: model "gpt-4.1" is not of the form provider:model (e.g. anthropic:claude-sonnet-4-6, openai:gpt-4.1)
}

// A provider without credentials is an *Error of class not_configured
// whose message says what to set.
func ExampleRegistry_Provider() {
	reg := llm.New(llm.Config{IgnoreEnv: true})
	_, err := reg.Provider(llm.ProviderAnthropic)
	if e, ok := llm.AsError(err); ok {
		fmt.Println(e.Class)
	}
	// Output: not_configured
}
