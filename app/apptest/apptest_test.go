package apptest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestEnvDropsProviderAndAppSettings(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "secret")
	t.Setenv("OPENAI_BASE_URL", "http://x")
	t.Setenv("AGENTHUB_TEST_CONTROL", "stdio")
	t.Setenv("APPTEST_KEEP", "1")
	env := strings.Join(Env(), "\n")
	for _, gone := range []string{"ANTHROPIC_API_KEY=", "OPENAI_BASE_URL=", "AGENTHUB_TEST_CONTROL="} {
		if strings.Contains(env, gone) {
			t.Errorf("Env keeps %s", gone)
		}
	}
	if !strings.Contains(env, "APPTEST_KEEP=1") {
		t.Error("Env drops other variables")
	}
}

func TestBufferConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 100 {
				fmt.Fprintf(&b, "%d\n", i)
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := strings.Count(b.String(), "\n"); n != 400 {
		t.Fatalf("%d lines, want 400", n)
	}
}
