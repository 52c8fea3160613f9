package permission

import (
	"path"
	"strings"
)

// readOnlySpec says how a program known to only read can be made to write
// or run something else: the short option letters (also inside a group,
// as in sort -ruo out) and long options that do, whether any option at all
// is unsafe with arguments added at run time (xargs), and how many operands
// it takes before a further one names a file it writes (uniq IN OUT).
type readOnlySpec struct {
	short     string   // option letters that write or run a program
	long      []string // options (--output, -delete …) that do
	operands  int      // > 0: more operands than this write a file
	anyOption bool     // find's actions are words, not letter groups
}

// readOnlyPrograms run in plan mode without a rule: programs that only
// read and print, each with the options through which it would write a
// file or run another program (docs/permissions.md, "Plan mode"). Programs
// that read a repository's configuration and may run what it names (git:
// core.fsmonitor, diff drivers, pagers) are not here: a read-only rule of
// the user's may add them.
var readOnlyPrograms = map[string]readOnlySpec{
	"ls": {}, "cat": {}, "head": {}, "tail": {}, "wc": {}, "grep": {}, "egrep": {}, "fgrep": {}, "pwd": {},
	"echo": {}, "which": {}, "stat": {}, "du": {}, "df": {}, "diff": {}, "cmp": {}, "comm": {},
	"cut": {}, "tr": {}, "whoami": {}, "uname": {}, "true": {}, "false": {}, "basename": {}, "dirname": {},
	"realpath": {}, "readlink": {}, "sha256sum": {}, "sha1sum": {}, "md5sum": {}, "nproc": {}, "id": {},
	"jq": {}, "nl": {}, "od": {}, "hexdump": {}, "strings": {}, "column": {}, "cd": {}, "test": {}, "[": {},
	"sort":   {short: "o", long: []string{"--output", "--compress-program"}},
	"tree":   {short: "o"},
	"file":   {short: "C", long: []string{"--compile"}},
	"date":   {short: "s", long: []string{"--set"}},
	"rg":     {long: []string{"--pre", "--hostname-bin", "--search-zip"}, short: "z"},
	"uniq":   {operands: 1},
	"xxd":    {operands: 1, short: "r"},
	"find":   {anyOption: true, long: []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}},
	"printf": {},
}

// readOnlyWrappers run their command and nothing else; the command must
// be read-only on its own.
var readOnlyWrappers = map[string]bool{"timeout": true, "nice": true, "nohup": true, "stdbuf": true}

// planTools change nothing but the session's own record (its todo list,
// its plan) or read its configured skills: they run in plan mode.
var planTools = map[string]bool{"todo_write": true, "present_plan": true, "skill": true}

// decidePlan decides a call in plan mode (ModePlan) when plan mode has
// its say: the read-only tools and delegate (whose worker plans too) are
// left to the rules and defaults (decided false); the session's own
// tools run; bash runs when the line only reads (readOnly) and its
// process is confined to reading (Call.ConfinedReads; else it asks),
// unless a rule asks; a tool an allow rule marks read-only runs;
// everything else is refused, with a reason the model reads.
func decidePlan(rules []Rule, c Call, prog *program) (Decision, bool) {
	const refused = "the session is in plan mode, where only what reads runs: "
	switch {
	case readOnlyTools[c.Tool] || c.Tool == "delegate":
		return Decision{}, false
	case planTools[c.Tool]:
		return Decision{Allow, c.Tool + " runs in plan mode"}, true
	case c.Tool == "bash":
		ok, why := readOnly(rules, prog)
		if !ok {
			return Decision{Deny, refused + "this command may change things (" + why + "). Read with read_file, grep, glob and list_dir, and present your plan with present_plan"}, true
		}
		if d, found := decideBash(rules, prog); found && d.Action == Ask {
			return d, true
		}
		if !c.ConfinedReads {
			return Decision{Ask, "plan mode: the command only reads, but no sandbox confines it to the workspace here"}, true
		}
		return Decision{Allow, "plan mode: the command only reads"}, true
	}
	for _, r := range rules {
		if r.ReadOnly && r.Action == Allow && r.Tool == c.Tool {
			return Decision{Allow, "plan mode: workspace rule " + r.String()}, true
		}
	}
	return Decision{Deny, refused + c.Tool + " may change things. Present your plan with present_plan; the user switches to building"}, true
}

// ReadOnlyLine reports whether the bash line only reads, as plan mode
// needs (readOnly); why names what does not ("" when it only reads).
func ReadOnlyLine(rules []Rule, line string) (ok bool, why string) {
	defer func() {
		if e := recover(); e != nil {
			ok, why = false, "the line could not be analysed"
		}
	}()
	return readOnly(rules, parseBash(line, 0))
}

// readOnly reports whether every command p runs only reads: nothing in
// the line is beyond a rule (a redirection that writes, an assignment, a
// computed command name or word, arithmetic on variables …), and each
// simple command is a read-only program used without an option that
// writes or runs something (readOnlyPrograms), a read-only wrapper of
// such a command, or covered by an allow rule the user marked read-only.
func readOnly(rules []Rule, p *program) (bool, string) {
	if len(p.issues) > 0 {
		return false, p.issues[0]
	}
	if len(p.cmds) == 0 {
		return false, "nothing to run"
	}
	for _, cmd := range p.cmds {
		if ok, why := readOnlyCommand(rules, cmd); !ok {
			return false, why
		}
	}
	return true, ""
}

// readOnlyCommand is readOnly for one simple command.
func readOnlyCommand(rules []Rule, cmd *command) (bool, string) {
	for _, r := range rules {
		if r.ReadOnly && r.Action == Allow && r.Tool == "bash" && (r.Prefix != "" || r.Command != "") && r.matches(cmd) {
			if r.Command != "" || cmd.inner == nil {
				return true, ""
			}
			return readOnly(rules, cmd.inner) // a prefix rule vouches for the wrapper only
		}
	}
	if !cmd.name().exact || cmd.assigns {
		return false, cmd.String() + " has a word computed when it runs"
	}
	name := path.Base(cmd.name().val)
	if cmd.name().val != name && name != "[" {
		return false, cmd.String() + " runs a program by its path"
	}
	if readOnlyWrappers[name] {
		if cmd.inner == nil || cmd.unknown != "" {
			return false, cmd.String() + ": its command is not known"
		}
		return readOnly(rules, cmd.inner)
	}
	spec, known := readOnlyPrograms[name]
	if !known {
		return false, cmd.String() + " is not a command known to only read (a read-only rule may mark it)"
	}
	if spec.short == "" && len(spec.long) == 0 && spec.operands == 0 {
		return true, "" // reads whatever its arguments are (a glob, $X, xargs)
	}
	if cmd.moreArgs || !allExact(cmd.words) {
		return false, cmd.String() + " gets arguments computed when it runs (one may be an option that writes)"
	}
	operands := 0
	for _, w := range cmd.words[1:] {
		v := w.val
		switch {
		case spec.anyOption || strings.HasPrefix(v, "--"):
			for _, o := range spec.long {
				if v == o || strings.HasPrefix(v, o+"=") {
					return false, cmd.String() + ": " + o + " writes a file or runs a program"
				}
			}
		case len(v) > 1 && v[0] == '-':
			if i := strings.IndexAny(v[1:], spec.short); spec.short != "" && i >= 0 {
				return false, cmd.String() + ": -" + string(v[1+i]) + " writes a file or runs a program"
			}
		default:
			operands++
		}
	}
	if spec.operands > 0 && operands > spec.operands {
		return false, cmd.String() + ": a further operand names a file it writes"
	}
	return true, ""
}
