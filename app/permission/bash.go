package permission

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds how deep command strings inside command strings (eval,
// bash -c, trap …) are parsed; deeper text is treated as unknown.
const maxDepth = 8

// word is one shell word after quote removal. exact is false when bash
// computes the word when it runs (a parameter expansion, a substitution,
// a glob, a brace expansion, a tilde): then val is not what runs.
type word struct {
	val   string
	exact bool
}

// command is one simple command bash may run, with the words it runs
// (after unwrapping command, builtin, exec and eval).
type command struct {
	words    []word
	assigns  bool     // VAR=… before it (or env VAR=… for a wrapped one)
	moreArgs bool     // runs with arguments not in words (xargs, find -exec … +)
	inner    *program // what a wrapper (env, timeout, bash -c …) runs; nil for the rest
	unknown  string   // why a wrapper's inner command cannot be known ("" when it can)
}

// name is the command's program word.
func (c *command) name() word { return c.words[0] }

// String renders the command's words as a shell line (for reasons).
func (c *command) String() string {
	var b strings.Builder
	for i, w := range c.words {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case !w.exact:
			b.WriteString("…")
		case i == 0 && strings.Contains(w.val, "="):
			b.WriteString(quoteWord(w.val)) // not an assignment
		default:
			b.WriteString(quoteArg(w.val))
		}
	}
	return b.String()
}

// program is what a bash line runs, read with the bash grammar: every
// simple command at any depth, and what no allow rule can vouch for.
type program struct {
	cmds   []*command
	issues []string // why no allow rule vouches for the line ("" none)
	unsure []string // why a deny rule may not see every command (a subset of the reasons in issues)
	writes []string // literal targets of redirections that write a file
}

func (p *program) issue(format string, args ...any) {
	p.issues = append(p.issues, fmt.Sprintf(format, args...))
}

// opaque records something that may run a command nobody can name.
func (p *program) opaque(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	p.issues = append(p.issues, s)
	p.unsure = append(p.unsure, s)
}

// parseBash reads line as bash does. A line the parser rejects is a
// program with one opaque issue and no commands.
func parseBash(line string, depth int) *program {
	p := &program{}
	if depth > maxDepth {
		p.opaque("command strings nest deeper than %d levels", maxDepth)
		return p
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		p.opaque("the command does not parse as bash (%v)", err)
		return p
	}
	p.walk(f, depth)
	return p
}

// merge adds q's commands and issues to p (eval, command strings run by
// the same shell).
func (p *program) merge(q *program) {
	p.cmds = append(p.cmds, q.cmds...)
	p.issues = append(p.issues, q.issues...)
	p.unsure = append(p.unsure, q.unsure...)
	p.writes = append(p.writes, q.writes...)
}

// walk visits every node of the tree: every simple command (lists,
// pipelines, groups, subshells, coproc, function bodies, conditions,
// loops, substitutions, here-documents) and every redirection.
func (p *program) walk(n syntax.Node, depth int) {
	syntax.Walk(n, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			p.call(n, depth)
		case *syntax.Redirect:
			p.redirect(n)
		case *syntax.DeclClause:
			p.issue("%s sets variables", n.Variant.Value)
		case *syntax.LetClause:
			p.issue("let evaluates arithmetic")
		case *syntax.TestDecl:
			p.issue("a test declaration is not bash")
		case *syntax.ArithmExp:
			p.arithm(n.X)
		case *syntax.ArithmCmd:
			p.arithm(n.X)
		case *syntax.CStyleLoop:
			for _, x := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
				if x != nil {
					p.arithm(x)
				}
			}
		case *syntax.ParamExp:
			p.param(n)
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, x := range []syntax.TestExpr{n.X, n.Y} {
					if w, ok := x.(*syntax.Word); !ok || !isNumber(w.Lit()) {
						p.issue("[[ %s ]] evaluates arithmetic", n.Op)
						break
					}
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				p.issue("[[ %s ]] evaluates a subscript", n.Op)
			}
		}
		return true
	})
}

// arithm flags arithmetic over anything but numbers: bash evaluates the
// value of a variable named there as arithmetic again, and an array
// subscript in it runs command substitutions (x='a[$(cmd)]'; $((x))).
func (p *program) arithm(x syntax.ArithmExpr) {
	ok := true
	syntax.Walk(x, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Word:
			if !isNumber(n.Lit()) {
				ok = false
			}
			return false
		case *syntax.BinaryArithm, *syntax.UnaryArithm, *syntax.ParenArithm, nil:
			return true
		}
		ok = false
		return false
	})
	if !ok {
		p.issue("arithmetic over variables can run commands")
	}
}

// param flags the parameter expansions that assign, evaluate arithmetic
// or expand prompt strings (${x:=v}, ${a[i]}, ${x:i}, ${x@P}).
func (p *program) param(e *syntax.ParamExp) {
	switch {
	case e.Index != nil && !isNumberExpr(e.Index),
		e.Slice != nil && (!isNumberExpr(e.Slice.Offset) || !isNumberExpr(e.Slice.Length)):
		p.issue("a subscript or slice evaluates arithmetic")
	case e.Exp != nil && (e.Exp.Op == syntax.AssignUnset || e.Exp.Op == syntax.AssignUnsetOrNull):
		p.issue("${%s…} assigns a variable", e.Param.Value)
	case e.Excl && e.Names == 0:
		p.issue("${!%s} expands a name held in a variable (a subscript in it runs commands)", e.Param.Value)
	case e.Exp != nil && e.Exp.Op == syntax.OtherParamOps:
		p.issue("${%s@…} transforms a value (prompt expansion can run commands)", e.Param.Value)
	case e.Flags != nil || e.NestedParam != nil || len(e.Modifiers) > 0 || e.Width || e.IsSet:
		p.issue("a parameter expansion bash does not have")
	}
}

func isNumberExpr(x syntax.ArithmExpr) bool {
	if x == nil {
		return true
	}
	w, ok := x.(*syntax.Word)
	return ok && isNumber(w.Lit())
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// redirect flags every redirection that may write a file: only /dev/null
// and duplicating or closing a descriptor by a plain number or "-" (2>&1,
// >&-) pass; here-documents and here-strings only feed input.
func (p *program) redirect(r *syntax.Redirect) {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		p.issue("{%s}> assigns a variable", strings.Trim(r.N.Value, "{}"))
		return
	}
	target := literal(r.Word)
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return
	case syntax.DplIn, syntax.DplOut:
		if target.exact && (target.val == "-" || isNumber(target.val)) {
			return
		}
		if r.Op == syntax.DplOut { // >&word with a non-number word writes the file word
			p.wrote(target)
		}
		p.issue("%s%s is not a descriptor", r.Op, shown(target))
		return
	case syntax.RdrIn:
		if target.exact && target.val == "/dev/null" {
			return
		}
		p.issue("<%s reads a file", shown(target))
		return
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
		if target.exact && target.val == "/dev/null" {
			return
		}
		p.wrote(target)
		p.issue("%s%s writes a file", r.Op, shown(target))
		return
	}
	p.issue("the redirection %s is not bash", r.Op)
}

func (p *program) wrote(target word) {
	if target.exact {
		p.writes = append(p.writes, target.val)
	}
}

func shown(w word) string {
	if !w.exact {
		return " (computed)"
	}
	return " " + quoteWord(w.val)
}

// call records a simple command: its words after quote removal, what it
// runs through command, builtin, exec and eval, and what a wrapper runs.
func (p *program) call(c *syntax.CallExpr, depth int) {
	if len(c.Args) == 0 {
		p.issue("the line sets variables")
		return
	}
	cmd := &command{assigns: len(c.Assigns) > 0}
	for _, w := range c.Args {
		cmd.words = append(cmd.words, literal(w))
	}
	p.add(cmd, depth)
	p.nameArgs(cmd)
}

// nameBuiltins take variable names; a subscript in one is evaluated as
// arithmetic, which runs command substitutions (read 'a[$(cmd)]').
var nameBuiltins = map[string]bool{"read": true, "mapfile": true, "readarray": true, "unset": true, "getopts": true}

// nameOptions are the options through which printf, test, [ and wait take
// a variable name.
var nameOptions = map[string]string{"printf": "-v", "test": "-v", "[": "-v", "wait": "-p"}

// nameArgs flags a builtin given a variable name that may carry a
// subscript (or any computed argument, which may expand to one).
func (p *program) nameArgs(cmd *command) {
	name := cmd.name()
	if !name.exact {
		return
	}
	opt, hasOpt := nameOptions[name.val]
	for _, w := range cmd.words[1:] {
		switch {
		case nameBuiltins[name.val] && (!w.exact || strings.ContainsRune(w.val, '[')),
			hasOpt && (w.val == opt || name.val != "wait" && w.val == "-R"):
			p.issue("%s takes a variable name here (a subscript in it runs commands)", name.val)
			return
		}
	}
}

// add records cmd, unwrapping the shell's own pass-through builtins.
func (p *program) add(cmd *command, depth int) {
	if cmd.assigns {
		p.issue("variable assignments before %s", cmd)
	}
	for {
		name := cmd.name()
		if !name.exact {
			p.opaque("the command name is computed (%s)", cmd)
			p.cmds = append(p.cmds, cmd)
			return
		}
		rest, ok, handled := builtinWrapper(name.val, cmd.words[1:])
		if !handled {
			break
		}
		if !ok {
			p.opaque("%s: options not understood", cmd)
			p.cmds = append(p.cmds, cmd)
			return
		}
		if name.val == "eval" {
			text, ok := joinExact(rest)
			if !ok {
				p.opaque("eval of computed text")
				return
			}
			p.merge(parseBash(text, depth+1))
			return
		}
		if len(rest) == 0 {
			return // exec with redirections only, command with no name
		}
		cmd = &command{words: rest, assigns: cmd.assigns}
	}
	cmd.inner, cmd.unknown = unwrap(cmd.words, depth)
	p.cmds = append(p.cmds, cmd)
}

// joinExact joins exact words with spaces, as eval does.
func joinExact(ws []word) (string, bool) {
	parts := make([]string, len(ws))
	for i, w := range ws {
		if !w.exact {
			return "", false
		}
		parts[i] = w.val
	}
	return strings.Join(parts, " "), true
}

// literal is a word's value after quote removal; exact is false when any
// part of it is computed when bash runs it.
func literal(w *syntax.Word) word {
	if w == nil {
		return word{}
	}
	var b strings.Builder
	exact := true
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			if !unquoted(&b, x.Value, i == 0) {
				exact = false
			}
		case *syntax.SglQuoted:
			if x.Dollar && strings.ContainsRune(x.Value, '\\') {
				exact = false // $'…' escapes: not decoded here, so not trusted
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				exact = false // $"…" is translated
			}
			for _, dp := range x.Parts {
				lit, ok := dp.(*syntax.Lit)
				if !ok {
					exact = false
					continue
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			exact = false
		}
	}
	return word{val: b.String(), exact: exact}
}

// unquoted writes an unquoted literal with its backslashes removed; it
// reports false when bash would expand it (a glob, braces, a leading tilde).
func unquoted(b *strings.Builder, s string, first bool) bool {
	exact := !(first && strings.HasPrefix(s, "~"))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			if i+1 == len(s) {
				break // a backslash at the end of the line stays
			}
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		case '*', '?', '[', '{', '}':
			exact = false
		}
		b.WriteByte(c)
	}
	return exact
}

// unescapeDouble removes the backslashes that escape inside double quotes.
func unescapeDouble(s string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// quoteArg renders an argument word: as it is when it holds only
// characters bash takes literally, else quoted.
func quoteArg(s string) string {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./:=@%+,-", c)) {
			return quoteWord(s)
		}
	}
	if s == "" {
		return "''"
	}
	return s
}

// quoteWord renders a word so bash reads it back as the same word.
func quoteWord(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return fmt.Sprintf("%q", s)
	}
	return q
}
