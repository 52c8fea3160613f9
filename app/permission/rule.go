package permission

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Rule is one workspace rule. Tool is a tool name or "*" for every tool.
// For bash only, Prefix limits the rule to simple commands that start
// with these words, and Command to the one simple command with exactly
// these words (what "always" stores for interpreters and wrappers); both
// are read as bash reads them, so 'git' status is git status. Neither
// means any command. ReadOnly, on an allow rule, says what it covers only
// reads, so it also runs in plan mode: for bash it needs a prefix or a
// command; the file-writing tools cannot have it.
type Rule struct {
	Tool     string `json:"tool"`
	Prefix   string `json:"prefix,omitempty"`
	Command  string `json:"command,omitempty"`
	Action   Action `json:"action"`
	ReadOnly bool   `json:"read_only,omitempty"`
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
	if r.ReadOnly {
		switch {
		case r.Action != Allow:
			return fmt.Errorf("rule for %s: only an allow rule can be read-only", r.Tool)
		case r.Tool == "*" || editTools[r.Tool]:
			return fmt.Errorf("rule for %s: %s cannot be marked read-only", r.Tool, r.Tool)
		case r.Tool == "bash" && r.Prefix == "" && r.Command == "":
			return fmt.Errorf("rule for bash: a read-only rule names a command prefix or a command")
		}
	}
	if r.Prefix == "" && r.Command == "" {
		return nil
	}
	if r.Tool != "bash" {
		return fmt.Errorf("rule for %s: a command prefix or command applies to bash only", r.Tool)
	}
	if r.Prefix != "" && r.Command != "" {
		return fmt.Errorf("rule for bash: a prefix or a command, not both")
	}
	if _, err := r.words(); err != nil {
		return fmt.Errorf("rule %s: %w", r, err)
	}
	return nil
}

// words parses the rule's prefix or command: one simple command of fixed
// words (no expansions, operators or redirections).
func (r Rule) words() ([]string, error) {
	text := r.Prefix + r.Command
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return nil, fmt.Errorf("does not parse as bash: %w", err)
	}
	if len(f.Stmts) != 1 {
		return nil, errors.New("want one simple command")
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(st.Redirs) > 0 || st.Negated || st.Background || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return nil, errors.New("want one simple command: words only, no operators, redirections or assignments")
	}
	out := make([]string, len(call.Args))
	for i, w := range call.Args {
		lw := literal(w)
		if !lw.exact {
			return nil, fmt.Errorf("the word %q is computed by the shell (quote it)", text[w.Pos().Offset():w.End().Offset()])
		}
		out[i] = lw.val
	}
	return out, nil
}

// appliesToTool reports whether r names tool (or "*").
func (r Rule) appliesToTool(tool string) bool { return r.Tool == "*" || r.Tool == tool }

// specificity orders the rules that apply: an exact command over a longer
// prefix over a shorter one over a tool-wide rule over "*".
func (r Rule) specificity() int {
	switch {
	case r.Command != "":
		return 1 << 20
	case r.Prefix != "":
		w, _ := r.words()
		return 2 + len(w)
	case r.Tool != "*":
		return 1
	}
	return 0
}

// matches reports whether r's prefix or command covers cmd, word for word
// after quote removal; a computed word never matches.
func (r Rule) matches(cmd *command) bool {
	rw, err := r.words()
	if err != nil || len(cmd.words) < len(rw) || cmd.assigns {
		return false
	}
	if r.Command != "" && (len(cmd.words) != len(rw) || cmd.moreArgs || !allExact(cmd.words)) {
		return false
	}
	for i, w := range rw {
		if !cmd.words[i].exact || cmd.words[i].val != w {
			return false
		}
	}
	return r.Command != "" || !runsOption(cmd.words)
}

// programOptions are options through which a tool runs a program or
// rewrites its own configuration (go test -exec, git fetch --upload-pack,
// npm --script-shell): a prefix rule does not vouch for a command with one
// of them, nor, for these tools, for a computed argument (an unquoted $X
// may expand to one).
var programOptions = map[string][]string{
	"go":    {"-exec", "-toolexec", "--exec", "--toolexec"},
	"git":   {"-c", "--config", "--upload-pack", "--receive-pack", "--exec", "-O", "--open-files-in-pager", "--output", "--ext-diff", "-x", "--extcmd", "--tool"},
	"cargo": {"--config", "-Z"},
	"npm":   {"--script-shell", "--node-options", "--userconfig", "--globalconfig"},
	"pnpm":  {"--script-shell", "--node-options", "--userconfig"},
	"yarn":  {"--script-shell", "--node-options"},
}

// runsOption reports whether a command of a tool in programOptions has
// such an option or a computed argument.
func runsOption(ws []word) bool {
	opts := programOptions[ws[0].val]
	if opts == nil {
		return false
	}
	for _, w := range ws[1:] {
		if !w.exact {
			return true
		}
		for _, o := range opts {
			if w.val == o || strings.HasPrefix(w.val, o+"=") || len(o) == 2 && strings.HasPrefix(w.val, o) {
				return true
			}
		}
	}
	return false
}

// denies reports whether the deny rule r catches cmd: its words start with
// the rule's (the program also by its base name, so /bin/rm is rm). unsure
// is true when a computed word leaves it open.
func (r Rule) denies(cmd *command) (match, unsure bool) {
	rw, err := r.words()
	if err != nil {
		return false, false
	}
	if len(cmd.words) < len(rw) && !cmd.moreArgs || r.Command != "" && len(cmd.words) > len(rw) {
		return false, false
	}
	for i, w := range rw {
		if i >= len(cmd.words) {
			return false, true // xargs or find … + may add the rest
		}
		cw := cmd.words[i]
		switch {
		case !cw.exact:
			return false, true
		case cw.val == w, i == 0 && path.Base(cw.val) == w:
		default:
			return false, false
		}
	}
	return true, false
}

func allExact(ws []word) bool {
	for _, w := range ws {
		if !w.exact {
			return false
		}
	}
	return true
}

// String renders the rule as the Settings list shows it.
func (r Rule) String() string {
	if r.ReadOnly {
		r.ReadOnly = false
		return r.String() + " (read-only)"
	}
	switch {
	case r.Command != "":
		return fmt.Sprintf("%s command %q: %s", r.Tool, r.Command, r.Action)
	case r.Prefix != "":
		return fmt.Sprintf("%s %q: %s", r.Tool, r.Prefix, r.Action)
	}
	return fmt.Sprintf("%s: %s", r.Tool, r.Action)
}
