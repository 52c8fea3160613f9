//go:build linux

package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Plan mode's bash (Env.ReadOnly): whatever the line, the workspace is
// read-only to it and nothing outside the workspace can be read — the
// kernel's guard behind plan mode's read-only analysis (a program the
// analysis took for read-only that writes anyway). Without ReadOnly the
// same calls write and read.
func TestBashReadOnlyInPlanMode(t *testing.T) {
	bash := sandboxedBash(t)
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	plan := true
	env := Env{Workspace: ws, OutputDir: t.TempDir(), ToolUseID: "plan", ReadOnly: func() bool { return plan }}
	res, err := bash.Run(context.Background(), env, bashInputJSON(`cat notes.txt && t=$(mktemp) && echo tmp > "$t" && cat "$t"`, 0))
	if err != nil || res.IsError || res.Output != "alpha\ntmp\n" {
		t.Fatalf("reading the workspace and writing TMPDIR in plan mode: %+v %v", res, err)
	}
	res, err = bash.Run(context.Background(), env, bashInputJSON(`echo changed > notes.txt; touch new.txt; sort -o sorted.txt notes.txt`, 0))
	if err != nil || !res.IsError || !strings.Contains(res.Output, "Permission denied") {
		t.Fatalf("writing the workspace in plan mode: %+v %v, want Permission denied", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "alpha\n" || fileThere(ws, "new.txt") || fileThere(ws, "sorted.txt") {
		t.Fatalf("the workspace changed in plan mode: notes.txt %q", b)
	}
	if res, _ := bash.Run(context.Background(), env, bashInputJSON("cat "+secret, 0)); strings.Contains(res.Output, "s3cret") {
		t.Fatalf("plan mode read outside the workspace: %q", res.Output)
	}
	plan = false // the same session out of plan mode writes again
	if res, err := bash.Run(context.Background(), env, bashInputJSON(`touch new.txt`, 0)); err != nil || res.IsError || !fileThere(ws, "new.txt") {
		t.Fatalf("out of plan mode: %+v %v", res, err)
	}
}

func fileThere(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
