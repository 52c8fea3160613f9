package hub_test

import (
	"strings"
	"testing"

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
