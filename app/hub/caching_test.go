package hub_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
)

// TestToolLoopPromptCaching measures what prompt caching saves on a 20-step
// tool loop (each step reads a 4 KB file, so the prompt grows): the fake
// provider prices every request with a PromptCache from the cache_control
// breakpoints the Anthropic adapter sets. The billed input cost (input +
// cache writes at 1.25× + cache reads at 0.1×) must be at most 30% of the
// same prompts billed without caching, and the turn's reported usage must
// be exactly the provider's.
func TestToolLoopPromptCaching(t *testing.T) {
	const steps = 20
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "notes.txt"), []byte(strings.Repeat("a line of project notes to read\n", 128)), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := &llmtest.PromptCache{}
	var sum llmtest.AnthropicUsage
	reply := func(last bool, step int) llmtest.Response {
		return llmtest.CachingAnthropic(cache, func(u llmtest.AnthropicUsage) llmtest.Response {
			sum.Input += u.Input
			sum.CacheRead += u.CacheRead
			sum.CacheWrite += u.CacheWrite
			s := llmtest.NewAnthropicStream("claude-sonnet-4-6", u)
			if last {
				return s.Text("done").Finish("end_turn", 5).Response()
			}
			return s.ToolUse(fmt.Sprintf("tu_%d", step), "read_file", `{"path":"notes.txt"}`).Finish("tool_use", 20).Response()
		})
	}
	for i := range steps {
		h.srv.Enqueue(reply(i == steps-1, i))
	}
	s := h.session()
	w := h.watch(s.ID, false)
	h.submit(s.ID, "read the notes again and again")
	var tc ipc.TurnCompleted
	w.turnEnd(s.ID).decode(t, &tc)
	if tc.Status != ipc.TurnStatusCompleted {
		t.Fatalf("turn %+v", tc)
	}
	if tc.Usage.InputTokens != sum.Input || tc.Usage.CacheReadTokens != sum.CacheRead || tc.Usage.CacheWriteTokens != sum.CacheWrite {
		t.Fatalf("turn usage %+v, provider reported %+v", tc.Usage, sum)
	}
	price, _ := llm.PriceFor("claude-sonnet-4-6")
	total := sum.Input + sum.CacheRead + sum.CacheWrite
	uncached := float64(total) * price.Input / 1e6
	cached := (float64(sum.Input)*price.Input + float64(sum.CacheWrite)*price.CacheWrite + float64(sum.CacheRead)*price.CacheRead) / 1e6
	t.Logf("%d-step tool loop: %d prompt tokens; with caching %d input + %d written + %d read = $%.4f, without $%.4f (%.0f%%)",
		steps, total, sum.Input, sum.CacheWrite, sum.CacheRead, cached, uncached, 100*cached/uncached)
	if cached > 0.3*uncached {
		t.Fatalf("caching saves too little: $%.4f of $%.4f", cached, uncached)
	}
}
