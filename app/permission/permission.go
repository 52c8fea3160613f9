// Package permission decides whether a tool call may run at once, must be
// approved by the user first, or is refused: the policy layer between the
// model's tool call and its execution (docs/permissions.md).
//
// Precedence, first match wins:
//  1. a workspace rule that denies the call;
//  2. the session's mode: auto-all allows everything, auto-edits allows
//     the file-editing tools (ask adds nothing);
//  3. the workspace's other rules (allow or ask; "always" answers are
//     stored as allow rules);
//  4. the tool's default: read-only tools allow, the rest ask.
//
// A new session's mode is --approval-mode (approval_mode in settings.json).
package permission

import (
	"fmt"
	"strings"
)

// Action is a decision about one tool call.
type Action string

// The decisions.
const (
	Allow Action = "allow" // run at once
	Ask   Action = "ask"   // run after the user approves
	Deny  Action = "deny"  // do not run; the model is told why
)

// Mode is a session's approval mode (--approval-mode, approval_mode).
type Mode string

// The modes.
const (
	ModeAsk       Mode = "ask"        // ask for every call the rules do not allow
	ModeAutoEdits Mode = "auto-edits" // file edits run without asking
	ModeAutoAll   Mode = "auto-all"   // everything runs without asking (shown as a warning)
)

// ParseMode validates a mode name; "" is ModeAsk.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeAsk:
		return ModeAsk, nil
	case ModeAutoEdits, ModeAutoAll:
		return Mode(s), nil
	}
	return "", fmt.Errorf("approval mode %q: want ask, auto-edits or auto-all", s)
}

// readOnlyTools run without asking unless a rule says otherwise.
var readOnlyTools = map[string]bool{"read_file": true, "list_dir": true, "glob": true, "grep": true}

// editTools are what auto-edits approves.
var editTools = map[string]bool{"write_file": true, "edit_file": true}

// Default returns a tool's decision when no rule or mode applies: allow
// for the read-only built-ins, ask for everything else (bash, the editing
// tools, delegate, MCP tools).
func Default(tool string) Action {
	if readOnlyTools[tool] {
		return Allow
	}
	return Ask
}

// Rule is one workspace rule. Tool is a tool name or "*" for every tool;
// Prefix, for bash only, limits the rule to commands that start with
// these words (see MatchesPrefix); empty means any command.
type Rule struct {
	Tool   string `json:"tool"`
	Prefix string `json:"prefix,omitempty"`
	Action Action `json:"action"`
}

// Check reports what makes r invalid.
func (r Rule) Check() error {
	if strings.TrimSpace(r.Tool) == "" {
		return fmt.Errorf("rule: tool is required")
	}
	switch r.Action {
	case Allow, Ask, Deny:
	default:
		return fmt.Errorf("rule for %s: action %q: want allow, ask or deny", r.Tool, r.Action)
	}
	if r.Prefix != "" && r.Tool != "bash" {
		return fmt.Errorf("rule for %s: a command prefix applies to bash only", r.Tool)
	}
	return nil
}

// Call is the tool call being decided. Command is bash's command line
// ("" for other tools).
type Call struct {
	Tool    string
	Command string
}

// Decision is an Action with the reason shown to the user (and, for a
// denial, to the model).
type Decision struct {
	Action Action
	Reason string
}

// Decide applies the precedence in the package doc to one call.
func Decide(rules []Rule, mode Mode, c Call) Decision {
	for _, r := range rules {
		if r.Action == Deny && r.denies(c) {
			return Decision{Deny, "denied by the workspace rule " + r.String()}
		}
	}
	switch {
	case mode == ModeAutoAll:
		return Decision{Allow, "the session auto-approves every tool"}
	case mode == ModeAutoEdits && editTools[c.Tool]:
		return Decision{Allow, "the session auto-approves file edits"}
	}
	if d, ok := decideByPrefixes(rules, c); ok {
		return d
	}
	if r, ok := bestRule(rules, c.Tool, ""); ok {
		return Decision{r.Action, "workspace rule " + r.String()}
	}
	if a := Default(c.Tool); a == Allow {
		return Decision{Allow, c.Tool + " is read-only"}
	}
	return Decision{Ask, c.Tool + " asks by default"}
}

func (r Rule) appliesToTool(tool string) bool { return r.Tool == "*" || r.Tool == tool }

func (r Rule) specificity() int {
	switch {
	case r.Prefix != "":
		return 2 + len(strings.Fields(r.Prefix))
	case r.Tool != "*":
		return 1
	}
	return 0
}

// bestRule returns the most specific allow or ask rule for tool that covers
// cmd ("" for a whole call: tool-wide rules only): a longer prefix over a
// shorter one over a tool-wide rule over "*"; among equals, ask over allow.
func bestRule(rules []Rule, tool, cmd string) (Rule, bool) {
	best, bestScore := Rule{}, -1
	for _, r := range rules {
		if r.Action == Deny || !r.appliesToTool(tool) {
			continue
		}
		if (cmd == "") != (r.Prefix == "") || r.Prefix != "" && !MatchesPrefix(cmd, r.Prefix) {
			continue
		}
		score := r.specificity()
		if score > bestScore || score == bestScore && r.Action == Ask {
			best, bestScore = r, score
		}
	}
	return best, bestScore >= 0
}

// decideByPrefixes decides a bash line by prefix rules when every simple
// command of it has one (an allow line needs all of them allowed; one ask
// makes it ask). ok is false when the line cannot be split safely or some
// command has no prefix rule: then the tool-wide rules and defaults decide.
func decideByPrefixes(rules []Rule, c Call) (Decision, bool) {
	if c.Tool != "bash" {
		return Decision{}, false
	}
	cmds, ok := SplitCommands(c.Command)
	if !ok || len(cmds) == 0 {
		return Decision{}, false
	}
	d := Decision{Action: Allow}
	var reasons []string
	for _, cmd := range cmds {
		r, found := bestRule(rules, c.Tool, cmd)
		if !found {
			return Decision{}, false
		}
		if r.Action == Ask {
			d.Action = Ask
		}
		reasons = append(reasons, r.String())
	}
	d.Reason = "workspace rules " + strings.Join(reasons, ", ")
	return d, true
}

// denies reports whether a deny rule covers any part of the call: for a
// prefix rule, any simple command that starts with the prefix (also inside
// a line that cannot be split safely — then by its words).
func (r Rule) denies(c Call) bool {
	if !r.appliesToTool(c.Tool) {
		return false
	}
	if r.Prefix == "" {
		return true
	}
	// Substitutions, subshells and groups hold commands too: split there
	// as well, so a denied command cannot hide inside them.
	line := strings.NewReplacer("$(", ";", "`", ";", "(", ";", ")", ";", "{", ";", "}", ";").Replace(c.Command)
	cmds, _ := SplitCommands(line)
	for _, cmd := range cmds {
		if MatchesPrefix(cmd, r.Prefix) {
			return true
		}
	}
	return false
}

// String renders the rule as the Settings list shows it.
func (r Rule) String() string {
	if r.Prefix != "" {
		return fmt.Sprintf("%s %q: %s", r.Tool, r.Prefix, r.Action)
	}
	return fmt.Sprintf("%s: %s", r.Tool, r.Action)
}

// AlwaysRule is the rule an "always" answer stores: for bash, an allow
// rule for the command's leading words (program, plus its subcommand when
// the second word is one: "go test", "git status", "ls"); for other
// tools, the whole tool. ok is false when the line has no single safe
// prefix (several different commands, substitutions): then "always"
// cannot be stored and the answer counts as once.
func AlwaysRule(c Call) (r Rule, ok bool) {
	if c.Tool != "bash" {
		return Rule{Tool: c.Tool, Action: Allow}, true
	}
	cmds, split := SplitCommands(c.Command)
	if !split || len(cmds) == 0 {
		return Rule{}, false
	}
	prefix := leadingWords(cmds[0])
	for _, cmd := range cmds[1:] {
		if !MatchesPrefix(cmd, prefix) {
			return Rule{}, false
		}
	}
	return Rule{Tool: "bash", Prefix: prefix, Action: Allow}, true
}

// leadingWords is a command's program, plus its second word when that is
// a subcommand (letters, digits, '-', '_' and not starting with '-').
func leadingWords(cmd string) string {
	w := strings.Fields(cmd)
	if len(w) >= 2 && !strings.Contains(w[0], "/") && isSubcommand(w[1]) {
		return w[0] + " " + w[1]
	}
	return w[0]
}

func isSubcommand(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// MatchesPrefix reports whether the simple command cmd starts with the
// words of prefix (whole words: "git status" matches "git status -s", not
// "git statusx").
func MatchesPrefix(cmd, prefix string) bool {
	cw, pw := strings.Fields(cmd), strings.Fields(prefix)
	if len(pw) == 0 || len(cw) < len(pw) {
		return false
	}
	for i := range pw {
		if cw[i] != pw[i] {
			return false
		}
	}
	return true
}
