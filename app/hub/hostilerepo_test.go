package hub_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"agenthub/app/apptest"
	"agenthub/ipc"
)

// plantHostileRepo makes dir a git work tree whose configuration names a
// command at every place git runs one — core.fsmonitor (through
// include.path), core.pager, core.sshCommand, core.hooksPath and the hooks,
// diff.external, a textconv and a clean/smudge filter — each touching its
// own file in markers. It returns the environment that keeps the
// developer's own git configuration out.
func plantHostileRepo(t *testing.T, dir, markers string) []string {
	t.Helper()
	env := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	touch := func(name string) string { return "touch " + filepath.Join(markers, name) }
	included := filepath.Join(t.TempDir(), "evil.config")
	apptest.WriteFile(t, included, "[core]\n\tfsmonitor = \""+touch("fsmonitor")+"\"\n")
	hooks := filepath.Join(dir, ".git", "hooks")
	for _, h := range []string{"post-checkout", "pre-commit", "post-commit", "post-index-change", "reference-transaction", "pre-auto-gc", "post-merge", "pre-push"} {
		apptest.WriteFile(t, filepath.Join(hooks, h), "#!/bin/sh\n"+touch("hook-"+h)+"\n")
		if err := os.Chmod(filepath.Join(hooks, h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(dir, ".git", "config")
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	apptest.WriteFile(t, config, string(b)+"[include]\n\tpath = "+included+"\n"+
		"[core]\n\tpager = "+touch("pager")+"\n\tsshCommand = "+touch("ssh")+"\n\thooksPath = "+hooks+"\n"+
		"[diff]\n\texternal = "+touch("diff-external")+"\n"+
		"[diff \"evil\"]\n\ttextconv = "+touch("textconv")+"\n"+
		"[filter \"evil\"]\n\tclean = "+touch("clean")+"\n\tsmudge = "+touch("smudge")+"\n")
	apptest.WriteFile(t, filepath.Join(dir, ".gitattributes"), "* diff=evil filter=evil\n")
	return env
}

// No program runs in an untrusted repository on the app's own initiative:
// every workspace operation the app starts by itself (the @ completion,
// mentions, instructions, a turn's checkpoint and its undo, the export)
// leaves a repository whose configuration names a command everywhere git
// runs one untouched — no marker appears. The planted configuration is
// live: a plain `git ls-files` there runs it.
func TestNoProgramRunsInAHostileRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	h := newHarness(t)
	markers := t.TempDir()
	env := plantHostileRepo(t, h.ws, markers)
	apptest.WriteFile(t, filepath.Join(h.ws, "notes.md"), "alpha\nbeta\n")
	apptest.WriteFile(t, filepath.Join(h.ws, "AGENTS.md"), "Be brief.\n")
	ctx := context.Background()
	s := h.session()
	w := h.watch(s.ID, false)

	files, err := h.hub.ListFiles(ctx, s.ID, "", 100)
	if err != nil || !slices.Contains(files, "notes.md") || slices.Contains(files, ".git/config") {
		t.Fatalf("listFiles: %v %v", files, err)
	}
	if _, err := h.hub.Instructions(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	h.srv.Enqueue(toolReply([3]string{"tu_w", "write_file", `{"path": "notes.md", "content": "gamma\n"}`}), textReply("rewrote it"))
	turn := h.submit(s.ID, "rewrite @notes.md please")
	if end := w.turnEnd(s.ID); end.Type != ipc.TypeTurnCompleted {
		t.Fatalf("turn ended %s", end.Type)
	}
	if ch, err := h.hub.TurnChanges(ctx, s.ID, turn.TurnID); err != nil || len(ch.Changes) != 1 {
		t.Fatalf("turn changes %+v %v", ch, err)
	}
	if _, err := h.hub.UndoTurn(ctx, s.ID, turn.TurnID); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"markdown", "json"} {
		if _, _, err := h.hub.ExportSession(ctx, s.ID, format); err != nil {
			t.Fatalf("export %s: %v", format, err)
		}
	}
	if ran, _ := os.ReadDir(markers); len(ran) > 0 {
		var names []string
		for _, e := range ran {
			names = append(names, e.Name())
		}
		t.Fatalf("the repository's commands ran: %v", names)
	}

	// The plant is live: git itself runs the included fsmonitor command.
	cmd := exec.Command("git", "-C", h.ws, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	cmd.Env = env
	_ = cmd.Run()
	if _, err := os.Stat(filepath.Join(markers, "fsmonitor")); err != nil {
		t.Fatalf("the planted core.fsmonitor did not run under git itself: %v", err)
	}
}
