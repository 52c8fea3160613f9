package custom

import (
	"fmt"
	"slices"
	"strings"

	"agenthub/app/permission"
)

// claudeTools maps Claude Code's tool names to Agent Hub's. A name with no
// counterpart here (WebFetch, WebSearch, NotebookEdit …) names no tool:
// as a restriction it only leaves that tool out.
var claudeTools = map[string]string{
	"bash": "bash", "read": "read_file", "write": "write_file", "edit": "edit_file", "multiedit": "edit_file",
	"glob": "glob", "grep": "grep", "ls": "list_dir", "task": "delegate", "agent": "delegate",
	"todowrite": "todo_write", "skill": "skill",
}

// ownTools are Agent Hub's tool names, accepted as they are.
var ownTools = []string{"bash", "read_file", "write_file", "edit_file", "list_dir", "glob", "grep", "delegate",
	"todo_write", "present_plan", "skill"}

// parseTools turns a front matter's tool list (allowed-tools, tools) into
// restriction entries (Restriction): Agent Hub tool names, "bash(PREFIX:*)"
// for a command prefix, "bash(COMMAND)" for one exact command, and MCP
// tools as server__tool (Claude's mcp__server__tool too). A pattern on a
// file tool (Read(src/**)) cannot be enforced: the entry is the whole
// tool, and the note says so. Unknown names are left out with a note.
func parseTools(items []string) (entries, notes []string) {
	for _, raw := range items {
		name, pattern, hasPattern := strings.Cut(raw, "(")
		name = strings.TrimSpace(name)
		pattern = strings.TrimSuffix(strings.TrimSpace(pattern), ")")
		tool := ""
		switch lower := strings.ToLower(name); {
		case slices.Contains(ownTools, name):
			tool = name
		case claudeTools[lower] != "":
			tool = claudeTools[lower]
		case strings.HasPrefix(name, "mcp__") && strings.Count(name, "__") >= 2:
			tool = strings.TrimPrefix(name, "mcp__")
		case strings.Contains(name, "__") && validName(strings.ReplaceAll(name, "__", "_")):
			tool = name
		default:
			notes = append(notes, fmt.Sprintf("the tool %q is not one Agent Hub has: left out", raw))
			continue
		}
		switch {
		case !hasPattern || pattern == "" || pattern == "*":
			entries = appendNew(entries, tool)
		case tool == "bash":
			e, err := bashEntry(pattern)
			if err != nil {
				notes = append(notes, fmt.Sprintf("%s: %v: left out", raw, err))
				continue
			}
			entries = appendNew(entries, e)
		default:
			entries = appendNew(entries, tool)
			notes = append(notes, fmt.Sprintf("%s: the pattern is not enforced; %s is allowed as a whole (still under the session's rules)", raw, tool))
		}
	}
	return entries, notes
}

// bashEntry is the restriction entry of a Bash(…) pattern: "git add:*" or
// "git add *" a prefix, anything else one exact command; both must be a
// valid bash rule (permission.Rule.Check).
func bashEntry(pattern string) (string, error) {
	r := permission.Rule{Tool: "bash", Action: permission.Allow}
	switch {
	case strings.HasSuffix(pattern, ":*"):
		r.Prefix = strings.TrimSpace(strings.TrimSuffix(pattern, ":*"))
	case strings.HasSuffix(pattern, " *"):
		r.Prefix = strings.TrimSpace(strings.TrimSuffix(pattern, " *"))
	default:
		r.Command = strings.TrimSpace(pattern)
	}
	if err := r.Check(); err != nil {
		return "", err
	}
	if r.Prefix != "" {
		return "bash(" + r.Prefix + ":*)", nil
	}
	return "bash(" + r.Command + ")", nil
}

func appendNew(ss []string, s string) []string {
	if slices.Contains(ss, s) {
		return ss
	}
	return append(ss, s)
}

// Restriction is a list of restriction entries (parseTools): the tools a
// turn or a sub-agent may use. Empty means no restriction. It only ever
// takes away: what it allows still runs under the session's rules and
// mode.
type Restriction []string

// Offers reports whether the restriction leaves tool to the model.
func (r Restriction) Offers(tool string) bool {
	if len(r) == 0 {
		return true
	}
	for _, e := range r {
		if e == tool || tool == "bash" && strings.HasPrefix(e, "bash(") {
			return true
		}
	}
	return false
}

// Allows reports whether the restriction lets a call of tool run (for
// bash, the command line: every simple command of it must be covered by
// the bash entries, as an allow rule covers it); why says what it does
// not allow.
func (r Restriction) Allows(tool, command string) (ok bool, why string) {
	if len(r) == 0 {
		return true, ""
	}
	if tool != "bash" {
		if slices.Contains(r, tool) {
			return true, ""
		}
		return false, tool + " is not among the tools allowed here (" + strings.Join(r, ", ") + ")"
	}
	if slices.Contains(r, "bash") {
		return true, ""
	}
	var rules []permission.Rule
	for _, e := range r {
		if !strings.HasPrefix(e, "bash(") {
			continue
		}
		p := strings.TrimSuffix(strings.TrimPrefix(e, "bash("), ")")
		rule := permission.Rule{Tool: "bash", Action: permission.Allow, Command: p}
		if strings.HasSuffix(p, ":*") {
			rule = permission.Rule{Tool: "bash", Action: permission.Allow, Prefix: strings.TrimSuffix(p, ":*")}
		}
		rules = append(rules, rule)
	}
	if len(rules) == 0 {
		return false, "bash is not among the tools allowed here (" + strings.Join(r, ", ") + ")"
	}
	if permission.Decide(rules, permission.ModeAsk, permission.Call{Tool: "bash", Command: command}).Action == permission.Allow {
		return true, ""
	}
	return false, "the command is not among the bash commands allowed here (" + strings.Join(r, ", ") + ")"
}

// Within returns the part of r that outer also allows (a sub-agent's
// tools inside a restricted turn); the result is never wider than either.
func (r Restriction) Within(outer Restriction) Restriction {
	switch {
	case len(outer) == 0:
		return r
	case len(r) == 0:
		return outer
	}
	var out Restriction
	for _, e := range r {
		tool, _, _ := strings.Cut(e, "(")
		switch {
		case slices.Contains(outer, e):
			out = append(out, e)
		case e == "bash":
			for _, o := range outer {
				if strings.HasPrefix(o, "bash(") {
					out = append(out, o)
				}
			}
		case tool == "bash" && slices.Contains(outer, "bash"):
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return Restriction{"(none)"}
	}
	return out
}

// Without returns r less the entries of out (an agent's disallowedTools):
// an empty r stands for Agent Hub's own tools (MCP tools are then left
// out, as a list cannot name "every tool but these"), and a bash entry in
// out takes bash away entirely (an allow-list cannot say "bash but not
// this command"). The result is never wider than r.
func (r Restriction) Without(out Restriction) Restriction {
	if len(out) == 0 {
		return r
	}
	base := r
	if len(base) == 0 {
		base = Restriction(ownTools)
	}
	noBash := slices.ContainsFunc(out, func(o string) bool { return o == "bash" || strings.HasPrefix(o, "bash(") })
	var res Restriction
	for _, e := range base {
		if slices.Contains(out, e) || noBash && (e == "bash" || strings.HasPrefix(e, "bash(")) {
			continue
		}
		res = append(res, e)
	}
	if len(res) == 0 {
		return Restriction{"(none)"}
	}
	return res
}

// claudeModes maps Claude Code's permissionMode values to Agent Hub's
// approval modes (a worker takes the narrower of it and its parent's).
var claudeModes = map[string]string{
	"plan": "plan", "default": "ask", "acceptEdits": "auto-edits", "bypassPermissions": "auto-all", "dontAsk": "auto-all",
	"ask": "ask", "auto-edits": "auto-edits", "auto-all": "auto-all",
}

// Model aliases Claude Code's files use.
var modelAliases = map[string]string{
	"sonnet": "anthropic:claude-sonnet-4-6",
	"opus":   "anthropic:claude-opus-4-6",
	"haiku":  "anthropic:claude-haiku-4-5",
}

// normalizeModel turns a front matter's model into "provider:model": an
// alias (sonnet, opus, haiku), provider/model (opencode), a bare Claude or
// OpenAI model name; "inherit" and "" are "" (the session's). ok is false
// for a value it cannot read.
func normalizeModel(m string) (string, bool) {
	m = strings.TrimSpace(m)
	switch lower := strings.ToLower(m); {
	case m == "", lower == "inherit", lower == "default":
		return "", true
	case modelAliases[lower] != "":
		return modelAliases[lower], true
	case strings.Contains(m, ":"):
		return m, validModelPart(m)
	case strings.Count(m, "/") == 1:
		p, n, _ := strings.Cut(m, "/")
		return p + ":" + n, validModelPart(n)
	case strings.HasPrefix(lower, "claude-"):
		return "anthropic:" + m, validModelPart(m)
	case strings.HasPrefix(lower, "gpt-"), strings.HasPrefix(lower, "o1"), strings.HasPrefix(lower, "o3"), strings.HasPrefix(lower, "o4"):
		return "openai:" + m, validModelPart(m)
	}
	return "", false
}

func validModelPart(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\n\"'`")
}
