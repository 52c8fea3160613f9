package permission_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/permission"
)

func TestProtectedPaths(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"g": ".git", "dangling": ".git/hooks/new", "data": data} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	p := permission.Protected{Workspace: ws, Dirs: []string{data}}
	for path, want := range map[string]bool{
		".git/config":                      true,
		".git/hooks/pre-commit":            true,
		"sub/.git/hooks/x":                 true,
		".GIT/config":                      true,
		"a/../.git/config":                 true,
		"g/config":                         true, // through a symlink
		"dangling":                         true, // a dangling symlink into .git
		"data/settings.json":               true,
		filepath.Join(data, "perms.json"):  true,
		filepath.Join(ws, ".git", "index"): true,
		".gitignore":                       false,
		".github/workflows/ci.yml":         false,
		"src/git/config":                   false,
		"notes.git":                        false,
	} {
		if got := p.Covers(path); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}

// Writes into a protected path ask in every mode, whatever the allow
// rules; deny rules still deny.
func TestProtectedWritesAskInEveryMode(t *testing.T) {
	ws, data := t.TempDir(), t.TempDir()
	prot := permission.Protected{Workspace: ws, Dirs: []string{data}}
	allowAll := []permission.Rule{{Tool: "write_file", Action: permission.Allow}, {Tool: "edit_file", Action: permission.Allow}, {Tool: "bash", Action: permission.Allow}}
	calls := []permission.Call{
		{Tool: "write_file", Writes: []string{".git/config"}, Protected: prot},
		{Tool: "edit_file", Writes: []string{"sub/.git/hooks/post-checkout"}, Protected: prot},
		{Tool: "bash", Command: "echo x > " + filepath.Join(data, "settings.json"), Protected: prot},
		{Tool: "bash", Command: "echo '[core] fsmonitor = touch X' >> .git/config", Protected: prot},
		{Tool: "bash", Command: "ls; bash -c 'cat x > .git/hooks/pre-commit'", Protected: prot},
	}
	for _, c := range calls {
		for _, mode := range []permission.Mode{permission.ModeAsk, permission.ModeAutoEdits, permission.ModeAutoAll} {
			if got := permission.Decide(allowAll, mode, c); got.Action != permission.Ask {
				t.Errorf("%s %+v: %s (%s), want ask", mode, c, got.Action, got.Reason)
			}
		}
		if _, ok := permission.AlwaysRule(c); ok {
			t.Errorf("%+v: always offered for a protected write", c)
		}
	}
	// A file tool's write into the data dir is refused outright: the
	// tool would refuse it whatever the answer, so asking is pointless.
	inData := permission.Call{Tool: "write_file", Writes: []string{filepath.Join(data, "settings.json")}, Protected: prot}
	for _, mode := range []permission.Mode{permission.ModeAsk, permission.ModeAutoEdits, permission.ModeAutoAll} {
		if got := permission.Decide(allowAll, mode, inData); got.Action != permission.Deny || !strings.Contains(got.Reason, "data folder") {
			t.Errorf("%s: a write into the data dir: %s (%s), want deny", mode, got.Action, got.Reason)
		}
	}
	deny := []permission.Rule{{Tool: "write_file", Action: permission.Deny}}
	if got := permission.Decide(deny, permission.ModeAutoAll, calls[0]); got.Action != permission.Deny {
		t.Errorf("a deny rule: %s", got.Action)
	}
	if got := permission.Decide(nil, permission.ModeAutoEdits, permission.Call{Tool: "write_file", Writes: []string{"src/main.go"}, Protected: prot}); got.Action != permission.Allow {
		t.Errorf("an ordinary write in auto-edits: %s", got.Action)
	}
}
