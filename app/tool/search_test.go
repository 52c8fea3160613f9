package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"agenthub/app/apptest"
	"agenthub/ipc/errclass"
)

func searchTree(t *testing.T) string {
	t.Helper()
	ws, _, links := sandbox(t)
	if !links {
		t.Skip("the search results expected include sandbox's links; this system makes none")
	}
	files := map[string]string{
		"main.go":             "package main // TODO one\n",
		"app/a.go":            "package app\n// TODO two\n// todo lower\n",
		"app/deep/b.go":       "package deep\n// TODO three\n// TODO four\n",
		"app/deep/c.txt":      "TODO five\n",
		"docs/readme.md":      "TODO six\nTODO seven\nTODO eight\nTODO nine\n",
		".git/config":         "TODO in git\n",
		".git/objects/x.go":   "package x // TODO hidden\n",
		"vendor/z.go":         "package z\n",
		"app/deep/binary.bin": "TODO\x00binary\n",
	}
	for p, c := range files {
		full := filepath.Join(ws, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		write(t, full, c)
	}
	apptest.Symlink(t, filepath.Join(filepath.Dir(ws), "outside", "secret.txt"), filepath.Join(ws, "app", "escape.go"))
	return ws
}

func TestGlob(t *testing.T) {
	ws := searchTree(t)
	env := Env{Workspace: ws}
	res := mustRun(t, env, "glob", `{"pattern":"**/*.go"}`)
	want := "app/a.go\napp/deep/b.go\nmain.go\nvendor/z.go\n"
	if res.Output != want || res.StatusText != "Found 4 files matching **/*.go" {
		t.Errorf("got %q / %q", res.Output, res.StatusText)
	}
	cases := map[string]string{
		`app/*.go`:                "app/a.go\n",
		`app/**`:                  "app/a.go\napp/deep/\napp/deep/b.go\napp/deep/binary.bin\napp/deep/c.txt\n",
		`**/deep/*.{go}`:          "No files match **/deep/*.{go}\n",
		`app/deep/[bc].*`:         "app/deep/b.go\napp/deep/c.txt\n",
		`main.go`:                 "main.go\n",
		filepath.Join(ws, "*.go"): "main.go\n",
		`missing/**/*.go`:         "No files match missing/**/*.go\n",
		`**/readme.md`:            "docs/readme.md\n",
	}
	for pat, want := range cases {
		res := mustRun(t, env, "glob", fmt.Sprintf(`{"pattern":%q}`, pat))
		if res.Output != want {
			t.Errorf("glob %q = %q, want %q", pat, res.Output, want)
		}
	}
	// The escaping symlink app/escape.go is not a result; escaping links at
	// the top level are excluded too, in-workspace ones kept.
	res = mustRun(t, env, "glob", `{"pattern":"*"}`)
	for _, bad := range []string{"filelink", "dirlink", "dangling\n", ".git"} {
		if strings.Contains(res.Output, bad) {
			t.Errorf("glob * lists %q: %q", bad, res.Output)
		}
	}
	if !strings.Contains(res.Output, "inlink\n") {
		t.Errorf("glob * misses inlink: %q", res.Output)
	}
	if _, err := run(t, env, "glob", `{"pattern":"docs/../../x"}`); errClass(err) != errclass.ToolDenied {
		t.Errorf("..: %v", err)
	}
	if _, err := run(t, env, "glob", `{"pattern":"/etc/*"}`); errClass(err) != errclass.ToolDenied {
		t.Errorf("abs outside: %v", err)
	}
	if _, err := run(t, env, "glob", `{"pattern":"app/[.go"}`); errClass(err) != errclass.ToolInvalidInput {
		t.Errorf("bad pattern: %v", err)
	}
}

func TestGrep(t *testing.T) {
	ws := searchTree(t)
	env := Env{Workspace: ws}
	res := mustRun(t, env, "grep", `{"pattern":"TODO"}`)
	if res.StatusText != "Found 9 matches for TODO" {
		t.Errorf("status %q; output:\n%s", res.StatusText, res.Output)
	}
	for _, want := range []string{"main.go:1: package main // TODO one\n", "app/deep/b.go:3: // TODO four\n", "docs/readme.md:4: TODO nine\n"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("missing %q in\n%s", want, res.Output)
		}
	}
	for _, bad := range []string{".git", "binary", "secret"} {
		if strings.Contains(res.Output, bad) {
			t.Errorf("output contains %q:\n%s", bad, res.Output)
		}
	}
	res = mustRun(t, env, "grep", `{"pattern":"(?i)todo (two|lower)","path":"app"}`)
	if res.Output != "app/a.go:2: // TODO two\napp/a.go:3: // todo lower\n" {
		t.Errorf("regexp/path: %q", res.Output)
	}
	res = mustRun(t, env, "grep", `{"pattern":"^TODO","path":"docs/readme.md"}`)
	if res.StatusText != "Found 4 matches for ^TODO" {
		t.Errorf("single file: %q", res.StatusText)
	}
	res = mustRun(t, env, "grep", `{"pattern":"nothing-matches-this"}`)
	if res.IsError || !strings.HasPrefix(res.Output, "No matches") || res.StatusText != "Found 0 matches for nothing-matches-this" {
		t.Errorf("no match: %+v", res)
	}
	if _, err := run(t, env, "grep", `{"pattern":"(unclosed"}`); errClass(err) != errclass.ToolInvalidInput {
		t.Errorf("bad regexp: %v", err)
	}
	if _, err := run(t, env, "grep", `{"pattern":"x","path":"nope"}`); errClass(err) != errclass.ToolInvalidInput {
		t.Errorf("missing path: %v", err)
	}
}

func TestGrepBoundedOutput(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "big.txt"), strings.Repeat("match "+strings.Repeat("x", 1000)+"\n", 2000))
	res := mustRun(t, Env{Workspace: ws}, "grep", `{"pattern":"match"}`)
	if !res.Truncated || len(res.Output) > grepMaxBytes+2048 || res.StatusText != "Found 2000 matches for match" {
		t.Errorf("truncated=%v len=%d status=%q", res.Truncated, len(res.Output), res.StatusText)
	}
}

func TestSearchCancelled(t *testing.T) {
	ws := searchTree(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct{ tool, input string }{{"grep", `{"pattern":"x"}`}, {"read_file", `{"path":"main.go"}`}, {"write_file", `{"path":"n","content":""}`}} {
		tl, _ := Lookup(Builtins(nil), c.tool)
		if _, err := tl.Run(ctx, Env{Workspace: ws}, json.RawMessage(c.input)); errClass(err) != errclass.ToolCancelled {
			t.Errorf("%s: %v", c.tool, err)
		}
	}
}

// fakeDelegator is a Delegator test double that streams chunks then answers.
type fakeDelegator struct {
	chunks []string
	answer string
	err    error
	block  bool // wait for ctx cancellation
	gotCtx string
	mu     sync.Mutex
}

func (f *fakeDelegator) Delegate(ctx context.Context, env Env, req DelegateRequest) (string, error) {
	f.mu.Lock()
	f.gotCtx = req.Task + "|" + req.Context
	f.mu.Unlock()
	for _, c := range f.chunks {
		if env.Output != nil {
			env.Output("worker", c)
		}
	}
	if f.block {
		<-ctx.Done()
		return "", fmt.Errorf("worker: %w", ctx.Err())
	}
	return f.answer, f.err
}

func TestDelegate(t *testing.T) {
	d := &fakeDelegator{chunks: []string{"Looking", " at it…"}, answer: "Fixed the **bug**."}
	tl, _ := Lookup(Builtins(d), "delegate")
	var streamed strings.Builder
	env := Env{Workspace: t.TempDir(), Output: func(stream, text string) {
		if stream != "worker" {
			t.Errorf("stream %q", stream)
		}
		streamed.WriteString(text)
	}}
	res, err := tl.Run(context.Background(), env, json.RawMessage(`{"task":"fix it","context":"parser.go"}`))
	if err != nil || res.Output != "Fixed the **bug**." || res.StatusText != "Sub-agent completed" ||
		!strings.Contains(res.Summary, "**Sub-agent result:**\n\nFixed the **bug**.") {
		t.Fatalf("res %+v err %v", res, err)
	}
	if streamed.String() != "Looking at it…" || d.gotCtx != "fix it|parser.go" {
		t.Errorf("streamed %q, got %q", streamed.String(), d.gotCtx)
	}

	// A long answer is capped, with the full text on disk.
	out := t.TempDir()
	long := strings.Repeat("word ", 20000)
	tl, _ = Lookup(Builtins(&fakeDelegator{answer: long}), "delegate")
	res, err = tl.Run(context.Background(), Env{Workspace: t.TempDir(), OutputDir: out, ToolUseID: "tu_9"}, json.RawMessage(`{"task":"t"}`))
	if err != nil || !res.Truncated || res.OutputPath != filepath.Join(out, "tu_9.log") || len(res.Output) > DefaultHeadBytes+DefaultTailBytes+200 {
		t.Fatalf("long: %v truncated=%v path=%q len=%d", err, res.Truncated, res.OutputPath, len(res.Output))
	}
	if b, _ := os.ReadFile(res.OutputPath); string(b) != long {
		t.Errorf("full answer not kept (%d bytes)", len(b))
	}

	// Errors.
	tl, _ = Lookup(Builtins(&fakeDelegator{err: errors.New("model exploded")}), "delegate")
	if _, err := tl.Run(context.Background(), env, json.RawMessage(`{"task":"t"}`)); errClass(err) != errclass.ToolExec {
		t.Errorf("worker error: %v", err)
	}
	tl, _ = Lookup(Builtins(nil), "delegate")
	if _, err := tl.Run(context.Background(), env, json.RawMessage(`{"task":"t"}`)); errClass(err) != errclass.ToolExec {
		t.Errorf("nil delegator: %v", err)
	}
	if _, err := tl.Run(context.Background(), env, json.RawMessage(`{"task":"  "}`)); errClass(err) != errclass.ToolInvalidInput {
		t.Errorf("empty task: %v", err)
	}

	// Cancellation reaches the worker and is reported as cancelled.
	blocker := &fakeDelegator{chunks: []string{"started"}, block: true}
	tl, _ = Lookup(Builtins(blocker), "delegate")
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	cenv := Env{Workspace: t.TempDir(), Output: func(string, string) { once.Do(func() { close(started) }) }}
	done := make(chan error, 1)
	go func() {
		_, err := tl.Run(ctx, cenv, json.RawMessage(`{"task":"long job"}`))
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; errClass(err) != errclass.ToolCancelled {
		t.Errorf("cancel: %v", err)
	}
}
