package e2e

import (
	"strings"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// TestBranchesInBrowser: in an 800 px window, regenerate an answer and
// page between the two with ‹ n/m ›, then edit the question and resend it;
// the provider sees exactly the current path each time (branches.e2e.mjs).
func TestBranchesInBrowser(t *testing.T) {
	root, node, ctx := browserTest(t, 3*time.Minute)
	srv := llmtest.NewServer(t)
	usage := llmtest.AnthropicUsage{Input: 500, Output: 10}
	for _, text := range []string{"First answer.", "Second answer.", "Answer to the edit."} {
		srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Text(text).Finish("end_turn", 10).Response())
	}
	info := startHeadless(t, ctx, root, srv)
	t.Setenv("E2E_WIDTH", "800")
	runScenario(t, ctx, root, node, "branches.e2e.mjs", info, nil)
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the provider got %d requests, want 3", len(reqs))
	}
	if b := string(reqs[1].Body); !strings.Contains(b, "Name a colour.") || strings.Contains(b, "First answer.") {
		t.Errorf("the regenerate request is not the path up to the question:\n%s", b)
	}
	if b := string(reqs[2].Body); !strings.Contains(b, "Name a fruit.") || strings.Contains(b, "Name a colour.") || strings.Contains(b, "First answer.") || strings.Contains(b, "Second answer.") {
		t.Errorf("the edit request is not the edited question alone:\n%s", b)
	}
}
