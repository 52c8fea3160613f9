package permission

import (
	"slices"
	"strings"
)

// subcommands are the multi-command tools whose "always" rule is the
// program and its subcommand (git status, go test, cargo build); a
// subcommand not listed (git config, go run, npm exec…) gets the exact
// command. runScripts also take the script or target name: npm run test.
var subcommands = map[string][]string{
	"git": {"status", "diff", "log", "show", "branch", "add", "commit", "checkout", "switch", "restore", "stash",
		"fetch", "pull", "push", "tag", "blame", "ls-files", "rev-parse", "reset", "mv", "rm", "init", "describe",
		"shortlog", "reflog", "merge", "cherry-pick", "revert", "remote", "show-ref", "cat-file", "ls-tree", "worktree"},
	"go":      {"build", "test", "vet", "fmt", "list", "mod", "doc", "version"},
	"cargo":   {"build", "test", "check", "clippy", "fmt", "doc", "tree", "metadata"},
	"npm":     {"test", "ci", "install", "ls", "outdated", "audit", "run"},
	"pnpm":    {"test", "install", "ls", "outdated", "audit", "run"},
	"yarn":    {"test", "install", "list", "outdated", "audit", "run"},
	"docker":  {"ps", "images", "logs", "inspect", "build"},
	"kubectl": {"get", "describe", "logs"},
}

// runScripts take a script name after the subcommand: npm run test.
var runScripts = map[string]string{"npm": "run", "pnpm": "run", "yarn": "run"}

// plainPrograms are single-purpose commands that only read, whose
// "always" rule is the program alone (ls covers ls -la).
var plainPrograms = map[string]bool{
	"ls": true, "cat": true, "head": true, "tail": true, "wc": true, "grep": true, "rg": true, "pwd": true,
	"echo": true, "which": true, "file": true, "stat": true, "du": true, "df": true, "tree": true, "diff": true,
	"cmp": true, "sort": true, "uniq": true, "cut": true, "tr": true, "date": true, "whoami": true, "uname": true,
	"true": true, "false": true, "basename": true, "dirname": true, "realpath": true, "readlink": true,
	"sha256sum": true, "md5sum": true, "nproc": true, "id": true, "printenv": true, "jq": true,
}

// AlwaysRule is the rule an "always" answer stores, narrow enough to
// cover little more than the call shown: for bash, the program and its
// subcommand for the multi-command tools (git status, npm run test, go
// test), the program alone for read-only single-purpose ones (ls), and
// the exact command for everything else — interpreters, wrappers, make,
// git with global options, scripts by path (python3 build.py, git -C .
// status). For other tools, the whole tool. ok is false when no single
// rule covers the call: several different commands, a write, a computed
// word, a protected path.
func AlwaysRule(c Call) (r Rule, ok bool) {
	defer func() {
		if recover() != nil {
			r, ok = Rule{}, false
		}
	}()
	if c.Tool != "bash" {
		r = Rule{Tool: c.Tool, Action: Allow}
	} else {
		p := parseBash(c.Command, 0)
		if len(p.issues) > 0 || len(p.cmds) == 0 {
			return Rule{}, false
		}
		if r, ok = narrowRule(p.cmds[0]); !ok {
			return Rule{}, false
		}
		if !Covers(r, c) && r.Prefix != "" { // go test -exec …: the prefix does not vouch for it
			if r, ok = exactRule(p.cmds[0]); !ok {
				return Rule{}, false
			}
		}
	}
	if !Covers(r, c) {
		return Rule{}, false
	}
	return r, true
}

// narrowRule is the always rule for one simple command.
func narrowRule(cmd *command) (Rule, bool) {
	w := cmd.words
	exact := func() (Rule, bool) { return exactRule(cmd) }
	prefix := func(n int) (Rule, bool) {
		return Rule{Tool: "bash", Prefix: (&command{words: w[:n]}).String(), Action: Allow}, true
	}
	name := w[0].val
	if cmd.assigns || cmd.inner != nil || cmd.unknown != "" || strings.Contains(name, "/") {
		return exact()
	}
	if plainPrograms[name] {
		return prefix(1)
	}
	subs, multi := subcommands[name]
	script, runs := runScripts[name]
	switch {
	case !multi:
		return exact()
	case len(w) < 2 || !isSubcommand(w[1]) || !slices.Contains(subs, w[1].val):
		return exact()
	case runs && w[1].val == script: // npm run test
		if len(w) >= 3 && isSubcommand(w[2]) {
			return prefix(3)
		}
		return exact()
	}
	return prefix(2)
}

// exactRule is the rule for exactly cmd's words.
func exactRule(cmd *command) (Rule, bool) {
	if cmd.assigns || cmd.moreArgs || !allExact(cmd.words) {
		return Rule{}, false
	}
	return Rule{Tool: "bash", Command: cmd.String(), Action: Allow}, true
}

// isSubcommand reports whether w is a fixed word of letters, digits, '-',
// '_', ':' and '.', not an option.
func isSubcommand(w word) bool {
	s := w.val
	if !w.exact || s == "" || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':' || c == '.') {
			return false
		}
	}
	return true
}

// Covers reports whether the allow rule r, on its own, allows the call c
// (the check on a rule edited in the approval prompt): r must be valid,
// name c's tool (not "*") and allow c under the precedence of Decide.
func Covers(r Rule, c Call) bool {
	if r.Action != Allow || r.Tool != c.Tool || r.Check() != nil {
		return false
	}
	return Decide([]Rule{r}, ModeAsk, c).Action == Allow
}
