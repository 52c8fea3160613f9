package app

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// programStarters are the files that may start a program. Each starts one
// the user asked for, never one a workspace names: bash (the tool the model
// calls, through the sandbox helper, after approval), the MCP servers the
// user configured, the desktop test harness's screenshot (smoketest
// builds only) and the test MCP server. Nothing else in the app may, so it
// never runs git (or anything a repository's configuration names) on its
// own initiative in a workspace (docs/permissions.md).
var programStarters = map[string]bool{
	"app/sandbox/probe_linux.go":   true, // the app's own binary (or true), to probe the namespaces
	"app/sandbox/stage1_linux.go":  true, // the helper's stage 2: the app's own binary
	"app/sandbox/stage2_linux.go":  true, // the approved command, confined
	"app/tool/bash_sandbox.go":     true,
	"app/tool/proc_unix.go":        true,
	"app/tool/proc_other.go":       true,
	"app/tool/proc_windows.go":     true, // bash in a job object
	"app/tool/shell_windows.go":    true, // exec.LookPath("git.exe") only: where bash.exe is; starts nothing
	"app/jobobject/job_windows.go": true, // starts a command suspended inside a job
	"app/mcp/process.go":           true,
	"app/mcp/tree_unix.go":         true,
	"app/mcp/tree_windows.go":      true,
	"app/mcp/mcptest/mcptest.go":   true,
	"app/smoketest/smoke.go":       true,
}

// TestOnlyKnownFilesStartPrograms fails when a non-test file of the app
// (app/, ipc/, store/, atomicfile/, main) imports os/exec or calls syscall.Exec,
// syscall.ForkExec or os.StartProcess outside programStarters.
func TestOnlyKnownFilesStartPrograms(t *testing.T) {
	var files []string
	for _, dir := range []string{".", "../ipc", "../store", "../atomicfile"} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	files = append(files, "../main.go")
	fset := token.NewFileSet()
	checked := 0
	for _, p := range files {
		rel := filepath.ToSlash(filepath.Join("app", p))
		if strings.HasPrefix(p, "..") {
			rel = filepath.ToSlash(filepath.Clean(p[3:]))
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src, err := parser.ParseFile(fset, p, b, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if programStarters[rel] {
			continue
		}
		for _, imp := range src.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); path == "os/exec" {
				t.Errorf("%s imports os/exec: the app must not start programs on its own (add it to programStarters only for a program the user asked for)", rel)
			}
		}
		for _, call := range []string{"syscall.Exec(", "syscall.ForkExec(", "os.StartProcess(", "unix.Exec("} {
			if strings.Contains(string(b), call) {
				t.Errorf("%s calls %s", rel, strings.TrimSuffix(call, "("))
			}
		}
	}
	if checked < 100 {
		t.Fatalf("checked only %d files", checked)
	}
}
