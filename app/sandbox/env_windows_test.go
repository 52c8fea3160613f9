package sandbox_test

import (
	"slices"
	"testing"

	"agenthub/app/sandbox"
)

// A tool process on Windows gets what Windows programs need to start
// (Path as Windows spells it, SystemRoot, …) and still none of the app's
// credentials; the user's tool_env wins over a same-named variable in any
// case.
func TestBaseEnvOnWindows(t *testing.T) {
	got := sandbox.BaseEnv([]string{
		`Path=C:\Windows\system32;C:\Program Files\Git\cmd`, `SystemRoot=C:\Windows`, `PATHEXT=.COM;.EXE`,
		`USERPROFILE=C:\Users\u`, "ANTHROPIC_API_KEY=sk-secret", "AGENTHUB_TOKEN=t", `pathext=dup`,
	}, map[string]string{"PATHEXT": ".EXE"})
	want := []string{`Path=C:\Windows\system32;C:\Program Files\Git\cmd`, `SystemRoot=C:\Windows`, `USERPROFILE=C:\Users\u`, "PATHEXT=.EXE"}
	if !slices.Equal(got, want) {
		t.Errorf("BaseEnv = %q, want %q", got, want)
	}
}
