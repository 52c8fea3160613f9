package permission

import (
	"fmt"
	"slices"
	"strings"
)

// Call is the tool call being decided. Command is bash's command line
// ("" for other tools); Writes are the files a file-writing tool writes
// (its path input, see WritesFiles); Protected says which of those, and
// of a bash line's redirection targets, never run without asking.
// ConfinedReads says a bash call runs in a sandbox that keeps the
// workspace read-only and its reads inside it (plan mode needs it to let
// a read-only line run without asking).
type Call struct {
	Tool          string
	Command       string
	Writes        []string
	Protected     Protected
	ConfinedReads bool
}

// Decision is an Action with the reason shown to the user (and, for a
// denial, to the model).
type Decision struct {
	Action Action
	Reason string
}

// Decide applies the precedence in the package doc to one call. A fault
// in the analysis asks (it never allows).
func Decide(rules []Rule, mode Mode, c Call) (d Decision) {
	defer func() {
		if e := recover(); e != nil {
			d = Decision{Ask, fmt.Sprintf("%s asks: the call could not be analysed (%v)", c.Tool, e)}
		}
	}()
	var prog *program
	if c.Tool == "bash" {
		prog = parseBash(c.Command, 0)
	}
	var blind Rule // a deny rule the line may hide a command from
	for _, r := range rules {
		if r.Action != Deny || !r.appliesToTool(c.Tool) {
			continue
		}
		if r.Prefix == "" && r.Command == "" {
			return Decision{Deny, "denied by the workspace rule " + r.String()}
		}
		if prog == nil {
			continue
		}
		match, unsure := prog.denied(r)
		if match {
			return Decision{Deny, "denied by the workspace rule " + r.String()}
		}
		if unsure && blind.Tool == "" {
			blind = r
		}
	}
	for _, w := range c.Writes {
		if c.Protected.InAppDir(w) {
			return Decision{Deny, "writes " + w + ", inside Agent Hub's data folder (its settings, rules and keys): no tool writes there"}
		}
	}
	if mode == ModePlan {
		if d, decided := decidePlan(rules, c, prog); decided {
			return d
		}
	}
	if p := c.protectedWrite(prog); p != "" {
		return Decision{Ask, "writes " + p + ", a protected path (a .git directory or the app's own data): never approved without asking"}
	}
	if blind.Tool != "" {
		why := prog.firstUnsure()
		if why == "" {
			why = "a command gets more arguments when it runs (xargs, find … +)"
		}
		return Decision{Ask, "the line may run a command the rule " + blind.String() + " refuses, hidden from it: " + why}
	}
	switch {
	case mode == ModeAutoAll:
		return Decision{Allow, "the session auto-approves every tool"}
	case mode == ModeAutoEdits && editTools[c.Tool]:
		return Decision{Allow, "the session auto-approves file edits"}
	}
	if prog != nil {
		if d, ok := decideBash(rules, prog); ok {
			return d
		}
	}
	if r, ok := bestRule(rules, c.Tool, nil); ok {
		return Decision{r.Action, "workspace rule " + r.String()}
	}
	if a := Default(c.Tool); a == Allow {
		return Decision{Allow, c.Tool + " is read-only"}
	}
	reason := c.Tool + " asks by default"
	if prog != nil && len(prog.issues) > 0 {
		reason += " (" + prog.issues[0] + ")"
	}
	return Decision{Ask, reason}
}

// bestRule returns the most specific allow or ask rule for tool that covers
// cmd (nil for a whole call: tool-wide rules only); among equals, ask over
// allow.
func bestRule(rules []Rule, tool string, cmd *command) (Rule, bool) {
	best, bestScore := Rule{}, -1
	for _, r := range rules {
		if r.Action == Deny || !r.appliesToTool(tool) {
			continue
		}
		specific := r.Prefix != "" || r.Command != ""
		if (cmd == nil) == specific || specific && !r.matches(cmd) {
			continue
		}
		score := r.specificity()
		if score > bestScore || score == bestScore && r.Action == Ask {
			best, bestScore = r, score
		}
	}
	return best, bestScore >= 0
}

// decideBash decides a bash line by its command rules when every simple
// command of it has one and nothing in it is beyond a rule (a write, a
// computed name, an assignment…): an allow needs all of them allowed
// (what a wrapper runs too, unless an exact command rule names the
// wrapper's whole command); one ask makes it ask. ok is false otherwise:
// then the tool-wide rules and defaults decide.
func decideBash(rules []Rule, p *program) (Decision, bool) {
	if len(p.issues) > 0 || len(p.cmds) == 0 {
		return Decision{}, false
	}
	d := Decision{Action: Allow}
	var reasons []string
	for _, cmd := range p.cmds {
		r, found := bestRule(rules, "bash", cmd)
		if !found {
			return Decision{}, false
		}
		if r.Action == Ask {
			d.Action = Ask
		}
		reasons = append(reasons, r.String())
		if r.Command != "" || r.Action == Ask {
			continue // an exact command was shown whole, wrapped command included
		}
		if cmd.unknown != "" {
			return Decision{}, false
		}
		if cmd.inner != nil {
			in, ok := decideBash(rules, cmd.inner)
			if !ok {
				return Decision{}, false
			}
			if in.Action == Ask {
				d.Action = Ask
			}
			reasons = append(reasons, strings.TrimPrefix(in.Reason, "workspace rules "))
		}
	}
	d.Reason = "workspace rules " + strings.Join(dedupe(reasons), ", ")
	return d, true
}

func dedupe(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// denied reports whether the deny rule r catches a simple command anywhere
// in p, wrapped commands included; unsure when p may run a command r
// cannot see (a computed name, text that does not parse, a wrapper whose
// command is unknown).
func (p *program) denied(r Rule) (match, unsure bool) {
	unsure = len(p.unsure) > 0
	for _, cmd := range p.cmds {
		m, u := r.denies(cmd)
		if m {
			return true, false
		}
		unsure = unsure || u || cmd.unknown != ""
		if cmd.inner != nil {
			m, u := cmd.inner.denied(r)
			if m {
				return true, false
			}
			unsure = unsure || u
		}
	}
	return false, unsure
}

// firstUnsure says why a deny rule may miss a command of p ("" when
// nothing in p is unsure).
func (p *program) firstUnsure() string {
	if len(p.unsure) > 0 {
		return p.unsure[0]
	}
	for _, cmd := range p.cmds {
		if cmd.unknown != "" {
			return cmd.unknown
		}
		if cmd.inner != nil {
			if s := cmd.inner.firstUnsure(); s != "" {
				return s
			}
		}
		if !allExact(cmd.words) {
			return "a computed word in " + cmd.String()
		}
	}
	return ""
}

// protectedWrite returns the first file the call writes inside a
// protected path ("" for none): a file tool's target, or a bash
// redirection's literal target at any depth.
func (c Call) protectedWrite(p *program) string {
	for _, w := range c.Writes {
		if c.Protected.Covers(w) {
			return w
		}
	}
	if p != nil {
		return p.protectedWrite(c.Protected)
	}
	return ""
}

func (p *program) protectedWrite(pr Protected) string {
	for _, w := range p.writes {
		if pr.Covers(w) {
			return w
		}
	}
	for _, cmd := range p.cmds {
		if cmd.inner != nil {
			if w := cmd.inner.protectedWrite(pr); w != "" {
				return w
			}
		}
	}
	return ""
}
