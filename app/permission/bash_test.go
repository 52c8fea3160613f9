package permission_test

import (
	"testing"

	"agenthub/app/permission"
)

// attackRules are the rules of issue 32 row 1.
var attackRules = []permission.Rule{
	{Tool: "bash", Prefix: "git status", Action: permission.Allow},
	{Tool: "bash", Prefix: "rm", Action: permission.Deny},
}

// rowOne are the attack strings of issue 32 row 1 with what they must get.
var rowOne = map[string]permission.Action{
	"git status #'\ntouch P\n#'":      permission.Ask,
	"git status $'\\'' ; touch P # '": permission.Ask,
	"git status \\>&touch P":          permission.Ask,
	"git status >&2P":                 permission.Ask,
	"git status #'\nrm -f a.txt\n#'":  permission.Deny,
}

// Row 1: comments, $'…' quoting, escaped operators and >& followed by more
// than a number are read as bash reads them.
func TestRowOneAttacks(t *testing.T) {
	for cmd, want := range rowOne {
		got := permission.Decide(attackRules, permission.ModeAsk, permission.Call{Tool: "bash", Command: cmd})
		if got.Action != want {
			t.Errorf("%q: %s (%s), want %s", cmd, got.Action, got.Reason, want)
		}
	}
}

func decideAll(t *testing.T, rules []permission.Rule, mode permission.Mode, cases map[string]permission.Action) {
	t.Helper()
	for cmd, want := range cases {
		got := permission.Decide(rules, mode, permission.Call{Tool: "bash", Command: cmd})
		if got.Action != want {
			t.Errorf("%s %q: %s (%s), want %s", mode, cmd, got.Action, got.Reason, want)
		}
	}
}

// An allow rule vouches for a line only when every simple command of the
// whole tree is allowed and nothing writes a file.
func TestAllowNeedsEveryCommand(t *testing.T) {
	decideAll(t, allowRules, permission.ModeAsk, allowCases)
}

// allowRules and allowCases are TestAllowNeedsEveryCommand's (and seeds
// of FuzzAllow).
var allowRules = []permission.Rule{
	{Tool: "bash", Prefix: "git status", Action: permission.Allow},
	{Tool: "bash", Prefix: "ls", Action: permission.Allow},
	{Tool: "bash", Prefix: "timeout", Action: permission.Allow},
	{Tool: "bash", Prefix: "env", Action: permission.Allow},
	{Tool: "bash", Prefix: "go test", Action: permission.Allow},
}

var allowCases = map[string]permission.Action{
	// Quote removal: the words bash runs.
	"'git' status":               permission.Allow,
	`g"it" st\atus -s`:           permission.Allow,
	"git \\\nstatus":             permission.Allow, // a line continuation
	"git status # a comment":     permission.Allow,
	"git status; ls":             permission.Allow,
	"{ git status; ls; }":        permission.Allow,
	"(git status) | ls":          permission.Allow,
	"ls <(git status)":           permission.Allow,
	"ls $(git status)":           permission.Allow,
	"git status <<< $(ls)":       permission.Allow,
	"if git status; then ls; fi": permission.Allow,
	// Anything else anywhere in the tree asks.
	"git status; touch P":              permission.Ask,
	"{ git status; touch P; }":         permission.Ask,
	"(touch P)":                        permission.Ask,
	"coproc touch P":                   permission.Ask,
	"f() { touch P; }; git status":     permission.Ask,
	"git status <<< $(touch P)":        permission.Ask,
	"ls <(touch P)":                    permission.Ask,
	"ls >(touch P)":                    permission.Ask,
	"ls \"$(touch P)\"":                permission.Ask,
	"ls `touch P`":                     permission.Ask,
	"[[ $(touch P) ]]":                 permission.Ask,
	"case x in $(touch P)) ;; esac":    permission.Ask,
	"for x in $(touch P); do ls; done": permission.Ask,
	"while touch P; do ls; done":       permission.Ask,
	"ls ${x:-$(touch P)}":              permission.Ask,
	"time touch P":                     permission.Ask,
	"! touch P":                        permission.Ask,
	"git status & touch P":             permission.Ask,
	"git status |& touch P":            permission.Ask,
	// Arithmetic can run commands through a variable's value.
	"for x in 'a[$(touch P)]'; do ls $((x)); done": permission.Ask,
	"ls $((1+2))":    permission.Allow,
	"((x))":          permission.Ask,
	"[[ $x -eq 1 ]]": permission.Ask,
	"ls ${a[$i]}":    permission.Ask,
	"ls ${x@P}":      permission.Ask,
	"ls ${x:=1}":     permission.Ask,
	"let x=1":        permission.Ask,
	// The shell's own pass-through builtins, and wrappers.
	"command git status":           permission.Allow,
	"builtin command git status":   permission.Allow,
	"exec git status":              permission.Allow,
	"eval 'git status'":            permission.Allow,
	"eval 'git status; touch P'":   permission.Ask,
	"eval \"$X\"":                  permission.Ask,
	"command touch P":              permission.Ask,
	"exec touch P":                 permission.Ask,
	"timeout 5 git status":         permission.Allow,
	"timeout -s KILL 5 git status": permission.Allow,
	"timeout 5 touch P":            permission.Ask,
	"timeout --bogus 5 git status": permission.Ask,
	"env -i git status":            permission.Allow,
	"env touch P":                  permission.Ask,
	"env X=1 git status":           permission.Ask,
	"env -S 'touch P' git status":  permission.Ask,
	"nice git status":              permission.Ask, // nice is not allowed itself
	"bash -c 'git status'":         permission.Ask, // nor is bash
	"xargs git status":             permission.Ask,
	// Dynamic names, assignments, git -c, parse errors.
	"$X status":                      permission.Ask,
	"\"$(echo git)\" status":         permission.Ask,
	"g${X}it status":                 permission.Ask,
	"X=1 git status":                 permission.Ask,
	"X=1; git status":                permission.Ask,
	"export X=1; git status":         permission.Ask,
	"git -c core.fsmonitor=x status": permission.Ask,
	"git status '":                   permission.Ask,
	"git status )":                   permission.Ask,
	"git stat?s":                     permission.Ask,
	"git {status,push}":              permission.Ask,
	"~/git status":                   permission.Ask,
	"go test -exec 'touch P' ./...":  permission.Ask,
	"go test -toolexec=x ./...":      permission.Ask,
	"go test $FLAGS ./...":           permission.Ask,
	// Redirections: only /dev/null and descriptors.
	"git status 2>&1":        permission.Allow,
	"git status >&-":         permission.Allow,
	"git status 2>/dev/null": permission.Allow,
	"git status &>/dev/null": permission.Allow,
	"git status > out":       permission.Ask,
	"git status >> out":      permission.Ask,
	"git status >| out":      permission.Ask,
	"git status &> out":      permission.Ask,
	"git status <> out":      permission.Ask,
	"git status >&out":       permission.Ask,
	"git status >&$fd":       permission.Ask,
	"git status 2>&1x":       permission.Ask,
	"git status < input":     permission.Ask,
	"git status {fd}>&1":     permission.Ask,
	"{ git status; } > out":  permission.Ask,
	"ls $(git status > out)": permission.Ask,
	"exec 3>out":             permission.Ask,
	"exec 3>&1":              permission.Ask, // no command left: nothing to vouch
}

// A deny rule finds a command anywhere: in substitutions, function
// bodies, wrappers, command strings, find -exec, by its path.
func TestDenyAnywhere(t *testing.T) {
	decideAll(t, denyRules, permission.ModeAutoAll, denyCases)
}

var denyRules = []permission.Rule{{Tool: "bash", Prefix: "rm", Action: permission.Deny}, {Tool: "bash", Command: "git push", Action: permission.Deny}}

var denyCases = map[string]permission.Action{
	"rm x":                           permission.Deny,
	"'r'm x":                         permission.Deny,
	"\\rm x":                         permission.Deny,
	"/bin/rm x":                      permission.Deny,
	"ls $(rm x)":                     permission.Deny,
	"f() { rm x; }":                  permission.Deny,
	"command rm x":                   permission.Deny,
	"eval 'rm x'":                    permission.Deny,
	"env -i rm x":                    permission.Deny,
	"sudo -u root rm x":              permission.Deny,
	"timeout 5 nice -n 3 rm x":       permission.Deny,
	"xargs rm":                       permission.Deny,
	"bash -c 'ls; rm x'":             permission.Deny,
	"sh -ec \"bash -c 'rm x'\"":      permission.Deny,
	"find . -name x -exec rm {} \\;": permission.Deny,
	"trap 'rm x' EXIT":               permission.Deny,
	"cat <<EOF\n$(rm x)\nEOF":        permission.Deny,
	"git push":                       permission.Deny,
	"git push origin":                permission.Allow, // an exact command, not a prefix
	"rmdir x":                        permission.Allow,
	"echo rm":                        permission.Allow,
	"git rm x":                       permission.Allow,
	// What a deny rule cannot see through asks, even in auto-all.
	"$X x":                permission.Ask,
	"eval \"$X\"":         permission.Ask,
	"bash -c \"$X\"":      permission.Ask,
	"env -S 'rm x'":       permission.Ask,
	"xargs -I{} sh -c {}": permission.Ask,
	"rm '":                permission.Ask,
	"r? x":                permission.Ask,
}

// Existing prefix rules from before the grammar keep working; rules that
// are not one simple command of fixed words are refused.
func TestRuleCheck(t *testing.T) {
	for _, r := range []permission.Rule{
		{Tool: "bash", Prefix: "go test", Action: permission.Allow},
		{Tool: "bash", Prefix: "'git' status", Action: permission.Allow},
		{Tool: "bash", Command: "python3 -c 'print(1)'", Action: permission.Allow},
	} {
		if err := r.Check(); err != nil {
			t.Errorf("%v: %v", r, err)
		}
	}
	for _, r := range []permission.Rule{
		{Tool: "bash", Prefix: "git status; rm", Action: permission.Allow},
		{Tool: "bash", Prefix: "git $X", Action: permission.Allow},
		{Tool: "bash", Command: "ls > out", Action: permission.Allow},
		{Tool: "bash", Command: "X=1 ls", Action: permission.Allow},
		{Tool: "bash", Prefix: "ls", Command: "ls", Action: permission.Allow},
		{Tool: "write_file", Command: "ls", Action: permission.Allow},
		{Tool: "bash", Prefix: "'unterminated", Action: permission.Allow},
	} {
		if r.Check() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
}

// Builtins that take a variable name evaluate a subscript in it, which
// runs command substitutions: a name with one (or computed) asks.
func TestVariableNameArguments(t *testing.T) {
	rules := []permission.Rule{{Tool: "bash", Prefix: "read", Action: permission.Allow}, {Tool: "bash", Prefix: "printf", Action: permission.Allow},
		{Tool: "bash", Prefix: "test", Action: permission.Allow}, {Tool: "bash", Prefix: "unset", Action: permission.Allow}}
	decideAll(t, rules, permission.ModeAsk, map[string]permission.Action{
		"read -r line":                     permission.Allow,
		"read 'a[$(touch P)]'":             permission.Ask,
		"read $name":                       permission.Ask,
		"unset 'a[$(touch P)]'":            permission.Ask,
		"printf '%s' x":                    permission.Allow,
		"printf -v 'a[$(touch P)]' '%s' x": permission.Ask,
		"test -f x":                        permission.Allow,
		"test -v 'a[$(touch P)]'":          permission.Ask,
	})
}
