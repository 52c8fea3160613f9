package permission_test

import (
	"testing"

	"agenthub/app/permission"
)

// Row 6: "always" is narrow. Interpreters, wrappers, find and git with
// global options get the exact command; the stored rule then does not
// vouch for python3 -c … or git -c alias.x='!touch F' x.
func TestAlwaysIsNarrow(t *testing.T) {
	for cmd, want := range map[string]string{
		"python3 build.py":              `bash command "python3 build.py": allow`,
		"git -C . status":               `bash command "git -C . status": allow`,
		"find . -name x":                `bash command "find . -name x": allow`,
		"git status -s":                 `bash "git status": allow`,
		"npm run test -- --watch":       `bash "npm run test": allow`,
		"go test ./...":                 `bash "go test": allow`,
		"cargo build --release":         `bash "cargo build": allow`,
		"ls -la":                        `bash "ls": allow`,
		"git":                           `bash command "git": allow`,
		"git config core.pager x":       `bash command "git config core.pager x": allow`,
		"make test":                     `bash command "make test": allow`,
		"npx prettier -w .":             `bash command "npx prettier -w .": allow`,
		"env -i ls":                     `bash command "env -i ls": allow`,
		"timeout 60 go test ./...":      `bash command "timeout 60 go test ./...": allow`,
		"bash -c 'ls; rm x'":            `bash command "bash -c 'ls; rm x'": allow`,
		"python3 -c 'print(\"hi\")'":    `bash command "python3 -c 'print(\"hi\")'": allow`,
		"'git' status":                  `bash "git status": allow`,
		"npm ci && npm ci --force":      `bash "npm ci": allow`,
		"./build.sh fast":               `bash command "./build.sh fast": allow`,
		"go test && rm -rf x":           "",
		"command git status":            `bash "git status": allow`,
		"go test ./... && go vet ./...": "", // two different commands
		"go test > out":                 "", // a write
		"X=1 go test":                   "",
		"python3 $SCRIPT":               "",
		"xargs rm":                      `bash command "xargs rm": allow`,
		"find . -exec rm {} +":          "", // {} is computed
		"echo $(date)":                  "",
		"git -c x=y status":             `bash command "git -c x=y status": allow`,
		"go test -exec evil ./...":      `bash command "go test -exec evil ./...": allow`,
	} {
		r, ok := permission.AlwaysRule(permission.Call{Tool: "bash", Command: cmd})
		got := ""
		if ok {
			got = r.String()
		}
		if got != want {
			t.Errorf("%q: %q, want %q", cmd, got, want)
		}
	}
	if r, ok := permission.AlwaysRule(permission.Call{Tool: "write_file"}); !ok || r.String() != "write_file: allow" {
		t.Errorf("write_file: %v %v", r, ok)
	}
	stored := []permission.Rule{}
	for _, cmd := range []string{"python3 build.py", "git -C . status", "find . -name x"} {
		r, ok := permission.AlwaysRule(permission.Call{Tool: "bash", Command: cmd})
		if !ok {
			t.Fatalf("%q: no rule", cmd)
		}
		stored = append(stored, r)
	}
	decideAll(t, stored, permission.ModeAsk, map[string]permission.Action{
		"python3 build.py":                    permission.Allow,
		"python3  'build.py'":                 permission.Allow,
		"python3 build.py --x":                permission.Ask,
		"python3 -c 'import os'":              permission.Ask,
		"git -C . status":                     permission.Allow,
		"git -c alias.x='!touch F' x":         permission.Ask,
		"git -C . status; git -C / status":    permission.Ask,
		"find . -name x":                      permission.Allow,
		"find . -name x -delete":              permission.Ask,
		"find . -name x -exec touch F {} \\;": permission.Ask,
	})
}

// The exact command of a wrapper covers what it runs (the user saw all
// of it); a prefix rule for the wrapper does not.
func TestExactCommandCoversItsWrappedCommand(t *testing.T) {
	rules := []permission.Rule{{Tool: "bash", Command: "bash -c 'touch P'", Action: permission.Allow}, {Tool: "bash", Prefix: "timeout", Action: permission.Allow}}
	decideAll(t, rules, permission.ModeAsk, map[string]permission.Action{
		"bash -c 'touch P'":           permission.Allow,
		"bash -c 'touch Q'":           permission.Ask,
		"timeout 1 touch P":           permission.Ask,
		"timeout 1 bash -c 'touch P'": permission.Allow,
	})
}

// Covers is the check on a rule edited in the prompt: valid, the call's
// tool, an allow, and it must allow the call on its own.
func TestCovers(t *testing.T) {
	call := permission.Call{Tool: "bash", Command: "git status -s"}
	for r, want := range map[permission.Rule]bool{
		{Tool: "bash", Prefix: "git status", Action: permission.Allow}:     true,
		{Tool: "bash", Prefix: "git", Action: permission.Allow}:            true,
		{Tool: "bash", Command: "git status -s", Action: permission.Allow}: true,
		{Tool: "bash", Command: "git status", Action: permission.Allow}:    false,
		{Tool: "bash", Prefix: "git push", Action: permission.Allow}:       false,
		{Tool: "bash", Prefix: "git status", Action: permission.Deny}:      false,
		{Tool: "*", Action: permission.Allow}:                              false,
		{Tool: "bash", Prefix: "git $X", Action: permission.Allow}:         false,
		{Tool: "write_file", Action: permission.Allow}:                     false,
	} {
		if got := permission.Covers(r, call); got != want {
			t.Errorf("%v: %v, want %v", r, got, want)
		}
	}
}
