package tool

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// The bash tests' helpers, shared by the Unix and Windows tests.

func bashInputJSON(cmd string, timeoutMS int64) json.RawMessage {
	m := map[string]any{"command": cmd}
	if timeoutMS > 0 {
		m["timeout_ms"] = timeoutMS
	}
	b, _ := json.Marshal(m)
	return b
}

// recorder collects Output calls and signals when the text holds n integers.
type recorder struct {
	mu      sync.Mutex
	text    strings.Builder
	calls   int
	badUTF8 bool
	want    int
	ready   chan []int
	sent    bool
}

func newRecorder(wantPIDs int) *recorder {
	return &recorder{want: wantPIDs, ready: make(chan []int, 1)}
}

func (r *recorder) output(stream, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if !utf8.ValidString(text) {
		r.badUTF8 = true
	}
	r.text.WriteString(text)
	if r.want == 0 || r.sent {
		return
	}
	var pids []int
	for _, f := range strings.Fields(r.text.String()) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	if len(pids) >= r.want && strings.HasSuffix(r.text.String(), "\n") {
		r.sent = true
		r.ready <- pids[:r.want]
	}
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.text.String()
}

// waitPIDs waits for the command to print its PIDs; the deadline only
// guards against a hang and asserts nothing about speed.
func waitPIDs(t *testing.T, r *recorder, done <-chan error) []int {
	t.Helper()
	select {
	case pids := <-r.ready:
		return pids
	case err := <-done:
		t.Fatalf("command ended before printing its PIDs: %v; output %q", err, r.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("no PIDs printed; output %q", r.String())
	}
	return nil
}

// runAsyncWith is runAsync with the bash tool given.
func runAsyncWith(t *testing.T, bash Tool, ctx context.Context, cmd string, timeoutMS int64, npids int) (pids []int, done chan error, res *Result) {
	t.Helper()
	rec := newRecorder(npids)
	env := Env{Workspace: t.TempDir(), OutputDir: t.TempDir(), ToolUseID: "tu", Output: rec.output}
	done = make(chan error, 1)
	res = new(Result)
	go func() {
		r, err := bash.Run(ctx, env, bashInputJSON(cmd, timeoutMS))
		*res = r
		done <- err
	}()
	return waitPIDs(t, rec, done), done, res
}
