package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"agenthub/app/apptest"
	"agenthub/ipc/errclass"
)

func run(t *testing.T, env Env, name, input string) (Result, error) {
	t.Helper()
	tl, ok := Lookup(Builtins(nil), name)
	if !ok {
		t.Fatalf("no tool %q", name)
	}
	return tl.Run(context.Background(), env, json.RawMessage(input))
}

func mustRun(t *testing.T, env Env, name, input string) Result {
	t.Helper()
	res, err := run(t, env, name, input)
	if err != nil {
		t.Fatalf("%s %s: %v", name, input, err)
	}
	return res
}

func TestBuiltinsNamesAndSchemas(t *testing.T) {
	want := []string{"bash", "read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "delegate"}
	tools := Builtins(nil)
	if len(tools) != len(want) {
		t.Fatalf("%d tools, want %d", len(tools), len(want))
	}
	fields := map[string][]string{
		"bash": {"command", "timeout_ms"}, "read_file": {"path", "offset", "limit"},
		"write_file": {"path", "content"}, "edit_file": {"path", "old", "new"}, "list_dir": {"path"},
		"glob": {"pattern"}, "grep": {"pattern", "path"}, "delegate": {"task", "context"},
	}
	for i, tl := range tools {
		if tl.Name() != want[i] {
			t.Errorf("tool %d is %q, want %q", i, tl.Name(), want[i])
		}
		if tl.Description() == "" {
			t.Errorf("%s: empty description", tl.Name())
		}
		var s struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(tl.Schema(), &s); err != nil {
			t.Fatalf("%s: schema: %v", tl.Name(), err)
		}
		if s.Type != "object" || len(s.Required) == 0 || len(s.Properties) != len(fields[tl.Name()]) {
			t.Errorf("%s: schema %+v", tl.Name(), s)
		}
		for _, f := range fields[tl.Name()] {
			if _, ok := s.Properties[f]; !ok {
				t.Errorf("%s: schema lacks %q", tl.Name(), f)
			}
		}
		// Describe never fails, even on garbage.
		for _, in := range []string{``, `null`, `{`, `[]`, `{"x":1}`} {
			st, sum := tl.Describe(json.RawMessage(in))
			if st == "" || sum == "" {
				t.Errorf("%s.Describe(%q) = %q, %q", tl.Name(), in, st, sum)
			}
		}
		// Run rejects bad input with invalid_input.
		if _, err := tl.Run(context.Background(), Env{Workspace: t.TempDir()}, json.RawMessage(`{"bogus":1}`)); errClass(err) != errclass.ToolInvalidInput {
			t.Errorf("%s: unknown field: %v", tl.Name(), err)
		}
	}
	if _, ok := Lookup(tools, "nope"); ok {
		t.Error("Lookup found a missing tool")
	}
}

func TestDescribeCallLayer(t *testing.T) {
	cases := []struct{ tool, input, status, inSummary string }{
		{"bash", `{"command":"git status\necho more"}`, "Running: git status", "```bash\ngit status\necho more\n```"},
		{"bash", `{"command":"` + strings.Repeat("x", 200) + `"}`, "Running: " + strings.Repeat("x", 79) + "…", ""},
		{"read_file", `{"path":"app/main.go","offset":10,"limit":5}`, "Reading app/main.go", "lines 10–14"},
		{"write_file", `{"path":"notes.md","content":"a\nb\nc\n"}`, "Writing notes.md", "3 lines"},
		{"edit_file", `{"path":"main.go","old":"a","new":"b"}`, "Editing main.go", "- a\n+ b"},
		{"list_dir", `{"path":"src"}`, "Listing src", "`src`"},
		{"glob", `{"pattern":"**/*.go"}`, "Finding files matching **/*.go", "`**/*.go`"},
		{"grep", `{"pattern":"TODO"}`, "Searching for TODO in .", "`TODO`"},
		{"delegate", `{"task":"Fix the bug\nin parser","context":"see parser.go"}`, "Starting sub-agent: Fix the bug", "**Context provided:**"},
	}
	for _, c := range cases {
		tl, _ := Lookup(BuiltinsWithOptions(nil, Options{Shell: DefaultShell}), c.tool) // TestPowerShellArgvAndDescription: the others
		st, sum := tl.Describe(json.RawMessage(c.input))
		if st != c.status || !strings.Contains(sum, c.inSummary) {
			t.Errorf("%s: got %q / %q", c.tool, st, sum)
		}
	}
}

func TestCodeBlockFencing(t *testing.T) {
	content := "before\n````\ninside\n```\n"
	got := codeBlock("", content)
	if !strings.HasPrefix(got, "`````\n") || !strings.HasSuffix(got, "\n`````\n") {
		t.Errorf("fence not longer than content's backtick runs: %q", got)
	}
	if got := codeSpan("a`b"); got != "``a`b``" {
		t.Errorf("codeSpan = %q", got)
	}
}

func TestReadFile(t *testing.T) {
	ws := t.TempDir()
	env := Env{Workspace: ws}
	var b strings.Builder
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	os.MkdirAll(filepath.Join(ws, "app"), 0o755)
	write(t, filepath.Join(ws, "app/main.go"), b.String())

	res := mustRun(t, env, "read_file", `{"path":"app/main.go"}`)
	if res.StatusText != "Read app/main.go (120 lines)" {
		t.Errorf("status %q", res.StatusText)
	}
	if !strings.HasPrefix(res.Output, "     1\tline 1\n     2\tline 2\n") || !strings.HasSuffix(res.Output, "   120\tline 120\n") || res.Truncated {
		t.Errorf("output %q…", res.Output[:40])
	}
	if !strings.Contains(res.Summary, "```go\nline 1\n") {
		t.Errorf("summary %q", res.Summary)
	}
	// absolute path inside the workspace
	res = mustRun(t, env, "read_file", `{"path":`+jsonString(filepath.Join(ws, "app/main.go"))+`,"offset":10,"limit":3}`)
	if res.Output != "    10\tline 10\n    11\tline 11\n    12\tline 12\n[… file continues; read more with offset=13]\n" || !res.Truncated {
		t.Errorf("offset/limit output %q", res.Output)
	}
	if res.StatusText != "Read app/main.go (3 lines)" {
		t.Errorf("status %q", res.StatusText)
	}
	// last line without newline, long line cut
	write(t, filepath.Join(ws, "long.txt"), "short\n"+strings.Repeat("y", 5000))
	res = mustRun(t, env, "read_file", `{"path":"long.txt"}`)
	if !strings.Contains(res.Output, "     2\t"+strings.Repeat("y", readMaxLineBytes)+" … [line cut]\n") {
		t.Errorf("long line not cut: %d bytes", len(res.Output))
	}
	write(t, filepath.Join(ws, "empty.txt"), "")
	if res := mustRun(t, env, "read_file", `{"path":"empty.txt"}`); res.Output != "(empty file)\n" {
		t.Errorf("empty: %q", res.Output)
	}
	os.WriteFile(filepath.Join(ws, "bin.dat"), []byte{0x7f, 'E', 'L', 'F', 0, 1, 2}, 0o644)
	errs := []struct{ input, class, msg string }{
		{`{"path":"bin.dat"}`, errclass.ToolInvalidInput, "binary file"},
		{`{"path":"app/main.go","offset":500}`, errclass.ToolInvalidInput, "past the end"},
		{`{"path":"app/main.go","offset":0}`, errclass.ToolInvalidInput, "offset"},
		{`{"path":"app/main.go","limit":0}`, errclass.ToolInvalidInput, "limit"},
		{`{"path":"missing.txt"}`, errclass.ToolInvalidInput, "does not exist"},
		{`{"path":"app"}`, errclass.ToolInvalidInput, "directory"},
		{`{"path":""}`, errclass.ToolInvalidInput, "required"},
		{`{"path":1}`, errclass.ToolInvalidInput, ""},
	}
	for _, e := range errs {
		_, err := run(t, env, "read_file", e.input)
		if errClass(err) != e.class || !strings.Contains(fmt.Sprint(err), e.msg) {
			t.Errorf("%s: %v", e.input, err)
		}
	}
}

func TestWriteFile(t *testing.T) {
	ws := t.TempDir()
	env := Env{Workspace: ws}
	res := mustRun(t, env, "write_file", `{"path":"docs/deep/notes.md","content":"a\nb\nc\n"}`)
	if res.StatusText != "Wrote docs/deep/notes.md (3 lines)" {
		t.Errorf("status %q", res.StatusText)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "docs/deep/notes.md")); string(b) != "a\nb\nc\n" {
		t.Errorf("content %q", b)
	}
	// overwrite keeps the mode; no temp files are left behind
	p := filepath.Join(ws, "run.sh")
	os.WriteFile(p, []byte("old"), 0o750)
	os.Chmod(p, 0o750)
	res = mustRun(t, env, "write_file", `{"path":"run.sh","content":"#!/bin/sh\necho hi\n"}`)
	fi, _ := os.Stat(p)
	if (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o750) || !strings.Contains(res.Summary, "Overwrote") { // no mode bits on Windows
		t.Errorf("mode %v, summary %q", fi.Mode(), res.Summary)
	}
	entries, _ := os.ReadDir(ws)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left: %s", e.Name())
		}
	}
	// empty content is a valid file
	mustRun(t, env, "write_file", `{"path":"empty","content":""}`)
	if _, err := run(t, env, "write_file", `{"path":"docs","content":"x"}`); errClass(err) != errclass.ToolInvalidInput {
		t.Errorf("write over dir: %v", err)
	}
	if _, err := run(t, env, "write_file", `{"path":"x.txt"}`); errClass(err) != errclass.ToolInvalidInput {
		t.Errorf("missing content: %v", err)
	}
}

func TestEditFile(t *testing.T) {
	ws := t.TempDir()
	env := Env{Workspace: ws}
	p := filepath.Join(ws, "main.go")
	orig := "package main\n\nfunc main() {\n\tprintln(\"a\")\n\tprintln(\"a\")\n}\n"
	os.WriteFile(p, []byte(orig), 0o755)
	os.Chmod(p, 0o755)

	res := mustRun(t, env, "edit_file", `{"path":"main.go","old":"func main() {","new":"func main() {\n\t// start"}`)
	if res.StatusText != "Edited main.go" || !strings.Contains(res.Summary, "at line 3") ||
		!strings.Contains(res.Summary, "```diff\n- func main() {\n+ func main() {\n+ \t// start\n```") {
		t.Errorf("result %+v", res)
	}
	b, _ := os.ReadFile(p)
	if want := strings.Replace(orig, "func main() {", "func main() {\n\t// start", 1); string(b) != want {
		t.Errorf("content %q", b)
	}
	if fi, _ := os.Stat(p); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o755 {
		t.Errorf("mode not kept: %v", fi.Mode())
	}
	before, _ := os.ReadFile(p)
	errs := []struct{ input, msg string }{
		{`{"path":"main.go","old":"nothere","new":"x"}`, "not found"},
		{`{"path":"main.go","old":"println(\"a\")","new":"x"}`, "ambiguous, 2 occurrences"},
		{`{"path":"main.go","old":"","new":"x"}`, "must not be empty"},
		{`{"path":"main.go","old":"a","new":"a"}`, "identical"},
		{`{"path":"main.go","old":"a"}`, "new is required"},
		{`{"path":"missing.go","old":"a","new":"b"}`, "does not exist"},
	}
	for _, e := range errs {
		_, err := run(t, env, "edit_file", e.input)
		if errClass(err) != errclass.ToolInvalidInput || !strings.Contains(fmt.Sprint(err), e.msg) {
			t.Errorf("%s: %v", e.input, err)
		}
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Error("a failed edit changed the file")
	}
	// deletion with new ""
	mustRun(t, env, "edit_file", `{"path":"main.go","old":"\t// start\n","new":""}`)
	if b, _ := os.ReadFile(p); string(b) != orig {
		t.Errorf("delete: %q", b)
	}
}

func TestListDir(t *testing.T) {
	ws := t.TempDir()
	env := Env{Workspace: ws}
	os.MkdirAll(filepath.Join(ws, "src/pkg"), 0o755)
	write(t, filepath.Join(ws, "src/b.go"), "12345")
	write(t, filepath.Join(ws, "src/a.go"), "")
	apptest.Symlink(t, "a.go", filepath.Join(ws, "src/link"))
	res := mustRun(t, env, "list_dir", `{"path":"src"}`)
	if res.Output != "a.go (0 bytes)\nb.go (5 bytes)\nlink -> a.go\npkg/\n" || res.StatusText != "Listed src (4 entries)" {
		t.Errorf("got %q / %q", res.Output, res.StatusText)
	}
	if res := mustRun(t, env, "list_dir", `{"path":"."}`); res.Output != "src/\n" || res.StatusText != "Listed . (1 entry)" {
		t.Errorf("root: %q %q", res.Output, res.StatusText)
	}
	if res := mustRun(t, env, "list_dir", `{"path":"src/pkg"}`); res.Output != "(empty directory)\n" {
		t.Errorf("empty: %q", res.Output)
	}
	if _, err := run(t, env, "list_dir", `{"path":"src/b.go"}`); errClass(err) != errclass.ToolInvalidInput {
		t.Errorf("file: %v", err)
	}
	if _, err := run(t, env, "list_dir", `{"path":"nope"}`); errClass(err) != errclass.ToolInvalidInput {
		t.Errorf("missing: %v", err)
	}
}

func TestIsWriteTemp(t *testing.T) {
	for name, want := range map[string]bool{
		".notes.txt.tmp-123456": true, ".a.tmp-1": true, "notes.txt": false, ".notes.txt.tmp-": false,
		".notes.txt.tmp-12a": false, "notes.txt.tmp-1": false, ".tmp-1": false,
	} {
		if IsWriteTemp(name) != want {
			t.Errorf("IsWriteTemp(%q) = %v", name, !want)
		}
	}
	// The names atomicWrite's os.CreateTemp pattern makes.
	for i := 0; i < 5; i++ {
		f, err := os.CreateTemp(t.TempDir(), ".x.txt.tmp-*")
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		if !IsWriteTemp(filepath.Base(f.Name())) {
			t.Fatalf("IsWriteTemp(%q) = false", filepath.Base(f.Name()))
		}
	}
}

// A file with CRLF line endings (made on Windows) is edited with the
// model's "\n" text and keeps CRLF throughout; the preview finds the spot
// too. A file mixing both is edited only where the text matches as given.
func TestEditKeepsCRLF(t *testing.T) {
	ws := t.TempDir()
	env := Env{Workspace: ws}
	p := filepath.Join(ws, "win.txt")
	if err := os.WriteFile(p, []byte("one\r\ntwo\r\nthree\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	input := `{"path":"win.txt","old":"two\nthree\n","new":"2\n3\n4\n"}`
	if spot, ok := FindEdit(env, json.RawMessage(input), 3); !ok || spot.Line != 2 {
		t.Errorf("preview %+v %v", spot, ok)
	}
	mustRun(t, env, "edit_file", input)
	if b, _ := os.ReadFile(p); string(b) != "one\r\n2\r\n3\r\n4\r\n" {
		t.Errorf("content %q", b)
	}
	if err := os.WriteFile(p, []byte("a\nb\r\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, env, "edit_file", `{"path":"win.txt","old":"a\n","new":"A\n"}`)
	if b, _ := os.ReadFile(p); string(b) != "A\nb\r\nc\n" {
		t.Errorf("mixed content %q", b)
	}
}
