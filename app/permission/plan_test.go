package permission_test

import (
	"testing"

	"agenthub/app/permission"
)

// Plan mode runs only what reads: the read-only tools, the session's own
// tools and bash lines every command of which only reads; it refuses the
// rest with a reason the model reads. Each "deny" line here ran (or
// asked) before plan mode existed.
// planRules are the workspace rules of TestPlanModeRunsOnlyWhatReads.
var planRules = []permission.Rule{
	{Tool: "bash", Prefix: "git status", Action: permission.Allow, ReadOnly: true},
	{Tool: "bash", Prefix: "git log", Action: permission.Allow}, // allowed, not marked read-only
	{Tool: "bash", Prefix: "rm", Action: permission.Deny},
	{Tool: "bash", Prefix: "du", Action: permission.Ask},
	{Tool: "docs__search", Action: permission.Allow, ReadOnly: true},
	{Tool: "write_file", Action: permission.Allow},
}

// planCases are what plan mode decides under planRules.
var planCases = []struct {
	tool, command string
	want          permission.Action
}{
	{"read_file", "", permission.Allow},
	{"grep", "", permission.Allow},
	{"todo_write", "", permission.Allow},
	{"present_plan", "", permission.Allow},
	{"skill", "", permission.Allow},
	{"delegate", "", permission.Ask}, // the worker plans too; asks as always
	{"write_file", "", permission.Deny},
	{"edit_file", "", permission.Deny},
	{"github__create_issue", "", permission.Deny},
	{"docs__search", "", permission.Allow},
	{"bash", "ls -la", permission.Allow},
	{"bash", "grep -rn 'func main' . | sort | uniq -c | head -5", permission.Allow},
	{"bash", "cat go.mod && wc -l *.go", permission.Allow},
	{"bash", "sort *", permission.Deny}, // a file named -o in the folder makes it write
	{"bash", "find . -name main.go -type f", permission.Allow},
	{"bash", "timeout 5 ls", permission.Allow},
	{"bash", "git status -s", permission.Allow}, // the user's read-only rule
	{"bash", "du -sh .", permission.Ask},        // a rule asks
	{"bash", "git log -1", permission.Deny},     // allowed, but not marked read-only
	{"bash", "rm -rf src", permission.Deny},
	{"bash", "touch notes.txt", permission.Deny},
	{"bash", "echo hi > notes.txt", permission.Deny},
	{"bash", "ls; touch x", permission.Deny},
	{"bash", "echo $(touch x)", permission.Deny},
	{"bash", "sort -o out.txt in.txt", permission.Deny},
	{"bash", "sort -ruo out.txt in.txt", permission.Deny},
	{"bash", "sort --output=out.txt in.txt", permission.Deny},
	{"bash", "uniq in.txt out.txt", permission.Deny},
	{"bash", "tree -o out.txt", permission.Deny},
	{"bash", "find . -delete", permission.Deny},
	{"bash", "find . -exec rm {} ;", permission.Deny},
	{"bash", "find . -fprint out.txt", permission.Deny},
	{"bash", "rg --pre ./x foo", permission.Deny},
	{"bash", "echo -o out | xargs sort", permission.Deny},
	{"bash", "cat x | sh", permission.Deny},
	{"bash", "sh -c ls", permission.Deny},
	{"bash", "git status; touch x", permission.Deny},
	{"bash", "/tmp/ls", permission.Deny},
	{"bash", "X=1 ls", permission.Deny},
	{"bash", "ls $DIR", permission.Allow},
	{"bash", "$CMD x", permission.Deny},
	{"bash", "ls $(touch x)", permission.Deny},
	{"bash", "f() { touch x; }; ls", permission.Deny},
	{"bash", "make", permission.Deny},
	{"bash", "go test ./...", permission.Deny},
	{"bash", "timeout 5 touch x", permission.Deny},
}

// planSeeds are planCases' command lines, seeds of FuzzAllow.
var planSeeds = func() []string {
	var out []string
	for _, c := range planCases {
		if c.command != "" {
			out = append(out, c.command)
		}
	}
	return out
}()

func TestPlanModeRunsOnlyWhatReads(t *testing.T) {
	rules := planRules
	for _, c := range planCases {
		call := permission.Call{Tool: c.tool, Command: c.command, ConfinedReads: true}
		if c.tool == "write_file" || c.tool == "edit_file" {
			call.Writes = []string{"notes.txt"}
		}
		got := permission.Decide(rules, permission.ModePlan, call)
		if got.Action != c.want {
			t.Errorf("plan mode, %s %q: %s (%s), want %s", c.tool, c.command, got.Action, got.Reason, c.want)
		}
		if got.Action == permission.Deny && c.tool != "bash" && got.Reason == "" {
			t.Errorf("%s: a refusal without a reason", c.tool)
		}
	}
}

// Without a sandbox confining bash to reading the workspace, even a line
// that only reads asks in plan mode (cat ~/.ssh/id_ed25519 only reads).
func TestPlanModeAsksWithoutConfinement(t *testing.T) {
	got := permission.Decide(nil, permission.ModePlan, permission.Call{Tool: "bash", Command: "cat notes.txt"})
	if got.Action != permission.Ask {
		t.Fatalf("unconfined read-only line in plan mode: %s (%s), want ask", got.Action, got.Reason)
	}
}

func TestParseModePlan(t *testing.T) {
	if m, err := permission.ParseMode("plan"); err != nil || m != permission.ModePlan {
		t.Fatalf("ParseMode(plan) = %q, %v", m, err)
	}
}

func TestReadOnlyRuleCheck(t *testing.T) {
	bad := []permission.Rule{
		{Tool: "bash", Action: permission.Allow, ReadOnly: true},                      // all of bash
		{Tool: "bash", Prefix: "ls", Action: permission.Ask, ReadOnly: true},          // not an allow
		{Tool: "write_file", Action: permission.Allow, ReadOnly: true},                // writes
		{Tool: "*", Action: permission.Allow, ReadOnly: true},                         // everything
		{Tool: "edit_file", Action: permission.Allow, ReadOnly: true},                 // writes
		{Tool: "bash", Prefix: "git status", Action: permission.Deny, ReadOnly: true}, // not an allow
	}
	for _, r := range bad {
		if r.Check() == nil {
			t.Errorf("%s passed Check", r)
		}
	}
	good := permission.Rule{Tool: "bash", Prefix: "git diff", Action: permission.Allow, ReadOnly: true}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	if s := good.String(); s != `bash "git diff": allow (read-only)` {
		t.Errorf("String() = %s", s)
	}
	if ok, why := permission.ReadOnlyLine([]permission.Rule{good}, "git diff HEAD~1 | head"); !ok {
		t.Errorf("git diff with a read-only rule: %s", why)
	}
	if ok, _ := permission.ReadOnlyLine([]permission.Rule{good}, "git diff --output=x"); ok {
		t.Error("git diff --output passed as read-only under a prefix rule")
	}
}

func TestNarrowest(t *testing.T) {
	order := []permission.Mode{permission.ModePlan, permission.ModeAsk, permission.ModeAutoEdits, permission.ModeAutoAll}
	for i, a := range order {
		for j, b := range order {
			want := order[min(i, j)]
			if got := permission.Narrowest(a, b); got != want {
				t.Errorf("Narrowest(%s, %s) = %s, want %s", a, b, got, want)
			}
		}
	}
}
