package permission_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/app/permission"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"
)

// fuzzRules are what FuzzAllow decides with: prefix rules, an exact
// command, a wrapper rule and a deny rule.
var fuzzRules = []permission.Rule{
	{Tool: "bash", Prefix: "git status", Action: permission.Allow, ReadOnly: true},
	{Tool: "bash", Prefix: "go test", Action: permission.Allow},
	{Tool: "bash", Prefix: "ls", Action: permission.Allow},
	{Tool: "bash", Prefix: "timeout", Action: permission.Allow},
	{Tool: "bash", Command: "python3 build.py", Action: permission.Allow},
	{Tool: "bash", Prefix: "rm", Action: permission.Deny},
}

// named reports whether an allow rule of fuzzRules names argv: its words
// start with a prefix rule's, or equal an exact command's. The rules'
// words are plain, so splitting them on spaces is enough here.
func named(argv []string) bool {
	for _, r := range fuzzRules {
		if r.Action != permission.Allow {
			continue
		}
		rw := strings.Fields(r.Prefix + r.Command)
		if len(argv) >= len(rw) && slices.Equal(argv[:len(rw)], rw) && (r.Prefix != "" || len(argv) == len(rw)) {
			return true
		}
	}
	return false
}

// readsOnly is the plan-mode oracle: argv, as the interpreter would start
// it (after every expansion), is a program that only reads, without an
// argument through which it writes or runs something, or git status (the
// read-only rule of fuzzRules).
func readsOnly(argv []string) bool {
	if len(argv) == 0 {
		return true
	}
	name, args := argv[0], argv[1:]
	switch name { // the wrappers run their command: it must only read
	case "nohup":
		return readsOnly(args)
	case "timeout", "nice", "stdbuf":
		for len(args) > 0 && strings.HasPrefix(args[0], "-") {
			if slices.Contains([]string{"-n", "-s", "-k", "-i", "-o", "-e", "--signal", "--kill-after", "--adjustment"}, args[0]) {
				args = args[1:]
			}
			args = args[1:]
		}
		if name == "timeout" && len(args) > 0 {
			args = args[1:] // the duration
		}
		return len(args) > 0 && readsOnly(args)
	}
	if len(argv) >= 2 && name == "git" && argv[1] == "status" {
		for _, a := range args {
			if strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "--output") || strings.HasPrefix(a, "--config") {
				return false
			}
		}
		return true
	}
	has := func(short string, long ...string) bool {
		for _, a := range args {
			if strings.HasPrefix(a, "--") {
				for _, l := range long {
					if a == l || strings.HasPrefix(a, l+"=") {
						return true
					}
				}
			} else if strings.HasPrefix(a, "-") && short != "" && strings.ContainsAny(a[1:], short) {
				return true
			}
		}
		return false
	}
	operands := 0
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			operands++
		}
	}
	switch name {
	case "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "pwd", "echo", "which", "stat", "du", "df",
		"diff", "cmp", "comm", "cut", "tr", "whoami", "uname", "true", "false", "basename", "dirname", "realpath",
		"readlink", "sha256sum", "sha1sum", "md5sum", "nproc", "id", "jq", "nl", "od", "hexdump", "strings", "column",
		"cd", "test", "[", "printf":
		return true
	case "sort":
		return !has("o", "--output", "--compress-program")
	case "tree":
		return !has("o")
	case "file":
		return !has("C", "--compile")
	case "date":
		return !has("s", "--set")
	case "rg":
		return !has("z", "--pre", "--hostname-bin", "--search-zip")
	case "uniq":
		return operands <= 1
	case "xxd":
		return operands <= 1 && !has("r")
	case "find":
		for _, a := range args {
			switch a {
			case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
				return false
			}
		}
		return true
	}
	return false
}

// trace is what the oracle saw a program do.
type trace struct {
	mu     sync.Mutex
	argv   [][]string
	writes []string
}

// run executes line in mvdan.cc/sh's interpreter with nothing real
// behind it: every command it would start is recorded and succeeds
// without running, every file opened for writing is recorded and
// refused, reads get /dev/null only. It stops after a short timeout.
func (tr *trace) run(line string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	exec := func(next interp.ExecHandlerFunc) interp.ExecHandlerFunc {
		return func(ctx context.Context, args []string) error {
			tr.mu.Lock()
			tr.argv = append(tr.argv, slices.Clone(args))
			tr.mu.Unlock()
			return nil
		}
	}
	open := func(ctx context.Context, name string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
		if name == "/dev/null" {
			return devNull{}, nil
		}
		if flag&(os.O_WRONLY|os.O_RDWR|os.O_CREATE|os.O_APPEND|os.O_TRUNC) != 0 {
			tr.mu.Lock()
			tr.writes = append(tr.writes, name)
			tr.mu.Unlock()
			return nil, errors.New("refused by the oracle")
		}
		return nil, os.ErrNotExist
	}
	r, err := interp.New(interp.ExecHandlers(exec), interp.OpenHandler(open),
		interp.StdIO(strings.NewReader(""), io.Discard, io.Discard),
		interp.Env(expand.ListEnviron("PATH=/usr/bin:/bin", "HOME=/nonexistent")))
	if err != nil {
		return
	}
	_ = r.Run(ctx, f)
}

type devNull struct{}

func (devNull) Read([]byte) (int, error)    { return 0, io.EOF }
func (devNull) Write(b []byte) (int, error) { return len(b), nil }
func (devNull) Close() error                { return nil }

// FuzzAllow checks the matcher against an independent oracle, the
// mvdan.cc/sh interpreter: when the rules allow a line, every command the
// interpreter would start is one an allow rule names and no file is
// written; when auto-all lets a line through, it starts no rm (the deny
// rule); when plan mode lets a line run, every command it would start
// only reads (readsOnly) and no file is written. The seeds are the attack
// strings of issue 32 and every case of this package's tests.
func FuzzAllow(f *testing.F) {
	for _, m := range []map[string]permission.Action{rowOne, allowCases, denyCases, prefixCases} {
		for line := range m {
			f.Add(line)
		}
	}
	for _, line := range planSeeds {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 400 {
			return
		}
		allowed := permission.Decide(fuzzRules, permission.ModeAsk, permission.Call{Tool: "bash", Command: line}).Action == permission.Allow
		passes := permission.Decide(fuzzRules, permission.ModeAutoAll, permission.Call{Tool: "bash", Command: line}).Action == permission.Allow
		plans := permission.Decide(fuzzRules, permission.ModePlan, permission.Call{Tool: "bash", Command: line, ConfinedReads: true}).Action == permission.Allow
		if !allowed && !passes && !plans {
			return
		}
		var tr trace
		tr.run(line)
		tr.mu.Lock()
		defer tr.mu.Unlock()
		for _, argv := range tr.argv {
			if allowed && !named(argv) {
				t.Fatalf("allowed %q, but it runs %q, which no allow rule names", line, argv)
			}
			if plans && !readsOnly(argv) {
				t.Fatalf("plan mode lets %q run, but it runs %q, which may write", line, argv)
			}
			if passes && len(argv) > 0 && path.Base(argv[0]) == "rm" {
				t.Fatalf("auto-all let %q through, but it runs %q, which the rule rm denies", line, argv)
			}
		}
		if (allowed || plans) && len(tr.writes) > 0 {
			t.Fatalf("allowed %q, but it writes %q", line, tr.writes)
		}
	})
}
