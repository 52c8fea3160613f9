package permission

import (
	"path"
	"slices"
	"strings"
)

// builtinWrapper strips bash's own pass-through builtins: command,
// builtin, exec (what follows runs as if named directly) and eval (its
// words are joined and parsed again). handled is false for other names;
// ok is false for options it does not know. command -v/-V only describe
// a name: they are left as the command itself.
func builtinWrapper(name string, args []word) (rest []word, ok, handled bool) {
	switch name {
	case "eval":
		if len(args) > 0 && args[0].exact && args[0].val == "--" {
			args = args[1:]
		}
		return args, true, true
	case "builtin":
		return args, true, true
	case "command":
		for i, a := range args {
			switch {
			case !a.exact:
				return nil, false, true
			case a.val == "--":
				return args[i+1:], true, true
			case a.val == "-p":
			case strings.HasPrefix(a.val, "-") && strings.ContainsAny(a.val, "vV"):
				return nil, false, false // describes, runs nothing
			case strings.HasPrefix(a.val, "-") && a.val != "-":
				return nil, false, true
			default:
				return args[i:], true, true
			}
		}
		return nil, true, true
	case "exec":
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case !a.exact:
				return nil, false, true
			case a.val == "--":
				return args[i+1:], true, true
			case a.val == "-a":
				i++ // the name
			case a.val == "-c" || a.val == "-l" || a.val == "-cl" || a.val == "-lc":
			case strings.HasPrefix(a.val, "-") && a.val != "-":
				return nil, false, true
			default:
				return args[i:], true, true
			}
		}
		return nil, true, true
	}
	return nil, false, false
}

// wrapperSpec is the option grammar of a program that runs another
// command: flags take no argument, withArg take one (also as -xVALUE or
// --long=VALUE), positional words come before the command (timeout's
// duration), assigns accepts NAME=VALUE words (env, sudo).
type wrapperSpec struct {
	flags     []string
	withArg   []string
	positions int
	assigns   bool
	moreArgs  bool // the command gets arguments from elsewhere (xargs)
	replace   []string
	optional  bool // no command is fine (env, nice print something)
}

// wrappers lists the programs whose command argument is analysed: an
// allow rule must name the wrapper and, on its own, what it runs.
var wrappers = map[string]wrapperSpec{
	"nohup":   {},
	"nice":    {withArg: []string{"-n", "--adjustment"}, optional: true},
	"timeout": {flags: []string{"--preserve-status", "--foreground", "-v", "--verbose"}, withArg: []string{"-s", "--signal", "-k", "--kill-after"}, positions: 1},
	"stdbuf":  {withArg: []string{"-i", "-o", "-e", "--input", "--output", "--error"}},
	"setsid":  {flags: []string{"-c", "-f", "-w", "--ctty", "--fork", "--wait"}},
	"env": {flags: []string{"-i", "-", "--ignore-environment", "-0", "--null", "-v", "--debug"},
		withArg: []string{"-u", "--unset", "-C", "--chdir"}, assigns: true, optional: true},
	"sudo": {flags: []string{"-A", "-b", "-E", "-H", "-n", "-P", "-S", "-k"},
		withArg: []string{"-u", "-g", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-h"}, assigns: true},
	"xargs": {flags: []string{"-0", "--null", "-o", "--open-tty", "-p", "--interactive", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit"},
		withArg: []string{"-a", "--arg-file", "-d", "--delimiter", "-E", "-L", "--max-lines", "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars"},
		replace: []string{"-I", "-i", "--replace"}, moreArgs: true, optional: true},
}

// shells run their -c string.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "rbash": true, "ash": true}

// unwrap returns what a wrapper runs: the inner command of env, timeout,
// nice…, the parsed -c string of a shell, find's -exec commands, trap's
// and alias's command text. It returns nil, "" for a plain command, and
// nil with a reason when the wrapper's command cannot be known.
func unwrap(words []word, depth int) (*program, string) {
	name := path.Base(words[0].val)
	args := words[1:]
	switch {
	case shells[name]:
		return shellString(args, depth)
	case name == "find":
		return findExec(args, depth)
	case name == "trap":
		return trapString(args, depth)
	case name == "alias":
		p := &program{}
		for _, a := range args {
			if k, v, ok := strings.Cut(a.val, "="); ok && k != "" {
				if !a.exact {
					return nil, "alias of computed text"
				}
				p.merge(parseBash(v, depth+1))
			}
		}
		return p, ""
	}
	spec, ok := wrappers[name]
	if !ok {
		return nil, ""
	}
	inner, why := spec.parse(args)
	if why != "" {
		return nil, name + ": " + why
	}
	if inner == nil {
		return &program{}, ""
	}
	p := &program{}
	p.add(inner, depth+1)
	return p, ""
}

// parse finds the command in a wrapper's arguments.
func (s wrapperSpec) parse(args []word) (*command, string) {
	assigns, positions, options := false, s.positions, true
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			return nil, "a computed argument"
		}
		v := a.val
		if options && strings.HasPrefix(v, "-") && (v != "-" || slices.Contains(s.flags, "-")) {
			switch {
			case v == "--":
				options = false
			case slices.Contains(s.flags, v):
			case hasOption(s.replace, v):
				return nil, v + " substitutes input into the command"
			case slices.Contains(s.withArg, v):
				i++
			case hasOption(s.withArg, v):
			case len(v) > 1 && isNumber(v[1:]) && slices.Contains(s.withArg, "--adjustment"): // nice -10
			default:
				return nil, "the option " + v + " is not understood"
			}
			continue
		}
		if s.assigns && isAssignment(v) {
			assigns = true
			continue
		}
		if positions > 0 {
			positions--
			continue
		}
		return &command{words: args[i:], assigns: assigns, moreArgs: s.moreArgs}, ""
	}
	if s.optional {
		return nil, ""
	}
	return nil, "no command"
}

// hasOption reports whether v is one of opts with its value attached
// (-n5, --signal=KILL).
func hasOption(opts []string, v string) bool {
	for _, o := range opts {
		if v == o || strings.HasPrefix(o, "--") && strings.HasPrefix(v, o+"=") || !strings.HasPrefix(o, "--") && strings.HasPrefix(v, o) && len(v) > len(o) {
			return true
		}
	}
	return false
}

func isAssignment(s string) bool {
	k, _, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return false
	}
	for i, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shellString parses a shell's -c string (options before it: -e, -u, -x,
// -l, -o NAME, --norc, --noprofile, --posix). A shell without -c runs a
// script file or its input, which no rule can see into.
func shellString(args []word, depth int) (*program, string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.exact {
			return nil, "a computed shell argument"
		}
		v := a.val
		switch {
		case v == "--norc" || v == "--noprofile" || v == "--posix":
		case v == "-o" || v == "+o":
			i++
		case len(v) > 1 && (v[0] == '-' || v[0] == '+') && strings.Trim(v[1:], "euxlvc") == "":
			if !strings.ContainsRune(v, 'c') {
				continue
			}
			if i+1 >= len(args) {
				return nil, "-c without a command"
			}
			if !args[i+1].exact {
				return nil, "-c with a computed command"
			}
			return parseBash(args[i+1].val, depth+1), ""
		default:
			return nil, "" // runs a script or its input
		}
	}
	return nil, ""
}

// findExec collects the commands find runs with -exec, -execdir, -ok and
// -okdir; {} in them is each file found.
func findExec(args []word, depth int) (*program, string) {
	var p *program
	for i := 0; i < len(args); i++ {
		switch args[i].val {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		c := &command{}
		for i++; i < len(args); i++ {
			w := args[i]
			if w.exact && (w.val == ";" || w.val == "+") {
				c.moreArgs = w.val == "+"
				break
			}
			if strings.Contains(w.val, "{}") {
				w.exact = false
			}
			c.words = append(c.words, w)
		}
		if len(c.words) == 0 {
			return nil, "find -exec without a command"
		}
		if p == nil {
			p = &program{}
		}
		p.add(c, depth+1)
	}
	return p, ""
}

// trapString parses trap's command text (trap [-lp] [ARG] SIGNAL…).
func trapString(args []word, depth int) (*program, string) {
	if len(args) > 0 && args[0].exact && args[0].val == "--" {
		args = args[1:]
	}
	if len(args) < 2 || args[0].exact && strings.HasPrefix(args[0].val, "-") {
		return &program{}, "" // lists or resets handlers
	}
	if !args[0].exact {
		return nil, "trap of computed text"
	}
	return parseBash(args[0].val, depth+1), ""
}
