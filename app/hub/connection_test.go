package hub_test

import (
	"strings"
	"testing"

	"agenthub/app/hub"
	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
)

// TestConnectionMakesOneTinyCall (issue 34 row 10): Settings' "Test
// connection" sends one request for a one-token reply with the configured
// credentials, and answers a failure in the provider's own words.
func TestConnectionMakesOneTinyCall(t *testing.T) {
	h := newHarness(t)
	ctx := t.Context()
	h.srv.Enqueue(textReply("pong"))
	res, err := h.hub.TestConnection(ctx, "anthropic")
	if err != nil || !res.OK || !strings.HasPrefix(res.Model, "anthropic:") || res.Error != "" {
		t.Fatalf("TestConnection = %+v, %v", res, err)
	}
	reqs := h.srv.Requests()
	var body struct {
		MaxTokens int `json:"max_tokens"`
	}
	if len(reqs) != 1 || reqs[0].Decode(&body) != nil || body.MaxTokens != 1 {
		t.Fatalf("%d requests, max_tokens %d: want one tiny call", len(reqs), body.MaxTokens)
	}
	h.srv.Enqueue(llmtest.HTTPError(401, llmtest.AnthropicErrorBody("authentication_error", "invalid x-api-key")))
	res, err = h.hub.TestConnection(ctx, "anthropic")
	if err != nil || res.OK || !strings.Contains(res.Error, "invalid x-api-key") {
		t.Fatalf("TestConnection with a bad key = %+v, %v", res, err)
	}
	if _, err := h.hub.TestConnection(ctx, "opnai"); err == nil {
		t.Fatal("an unknown provider was tested")
	}
}

// TestListModelsAsksTheServer (issue 34 row 10): an OpenAI-compatible
// server's own models (its GET /models) are offered, as configured; the
// default model is the configured key's provider default, no server asked.
func TestListModelsAsksTheServer(t *testing.T) {
	h := newHarness(t, func(c *hub.Config) { c.DefaultModel = "" })
	h.srv.ServeModels("llama3.1:8b", "qwen3")
	h.reg = llm.New(llm.Config{OpenAIBaseURL: h.srv.URL + "/v1", IgnoreEnv: true})
	h.hub.SetProviders(h.reg)
	models, err := h.hub.ListModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, m := range models {
		found[m.ID] = m.Configured
	}
	if !found["openai:llama3.1:8b"] || !found["openai:qwen3"] {
		t.Fatalf("the server's models are not offered as configured: %+v", models)
	}
	if m := h.hub.DefaultModel(); m != "" {
		t.Fatalf("DefaultModel with only a server = %q, want \"\" (chosen at a turn from its list)", m)
	}
	h.hub.SetProviders(llm.New(llm.Config{AnthropicAPIKey: "k", IgnoreEnv: true}))
	if m := h.hub.DefaultModel(); m != hub.DefaultAnthropicModel {
		t.Fatalf("DefaultModel with an Anthropic key = %q", m)
	}
}
