// Package permission decides whether a tool call may run at once, must be
// approved by the user first, or is refused: the policy layer between the
// model's tool call and its execution (docs/permissions.md).
//
// Precedence, first match wins:
//  1. a workspace rule that denies the call;
//  2. a write into a protected path (a .git directory, the app's own data
//     dir) asks, and so does a bash line a deny rule cannot see through;
//  3. the session's mode: plan allows only what reads (readonly.go) and
//     refuses the rest, auto-all allows everything, auto-edits allows the
//     file-editing tools (ask adds nothing);
//  4. the workspace's other rules (allow or ask; "always" answers are
//     stored as allow rules);
//  5. the tool's default: read-only tools allow, the rest ask.
//
// Bash command lines are read with the bash grammar (mvdan.cc/sh): a rule
// applies to each simple command anywhere in the syntax tree.
//
// A new session's mode is --approval-mode (approval_mode in settings.json).
package permission

import (
	"fmt"
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
	// ModePlan runs only what reads (the read-only tools, bash lines that
	// only read, the session's own tools) and refuses the rest: the model
	// explores and presents a plan (present_plan) for the user to build.
	ModePlan Mode = "plan"
)

// modeRank orders the modes by how much runs without the user: plan
// (only what reads) before ask, auto-edits and auto-all.
var modeRank = map[Mode]int{ModePlan: 0, ModeAsk: 1, ModeAutoEdits: 2, ModeAutoAll: 3}

// Narrowest returns whichever of a and b lets less run without the user
// (a sub-agent's own mode inside its parent's: never wider than either).
func Narrowest(a, b Mode) Mode {
	if modeRank[b] < modeRank[a] {
		return b
	}
	return a
}

// ParseMode validates a mode name; "" is ModeAsk.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeAsk:
		return ModeAsk, nil
	case ModeAutoEdits, ModeAutoAll, ModePlan:
		return Mode(s), nil
	}
	return "", fmt.Errorf("approval mode %q: want ask, auto-edits, auto-all or plan", s)
}

// readOnlyTools run without asking unless a rule says otherwise.
var readOnlyTools = map[string]bool{"read_file": true, "list_dir": true, "glob": true, "grep": true}

// editTools are what auto-edits approves.
var editTools = map[string]bool{"write_file": true, "edit_file": true}

// WritesFiles reports whether tool writes the file named by its "path"
// input (write_file, edit_file): the hub puts that path in Call.Writes.
func WritesFiles(tool string) bool { return editTools[tool] }

// Default returns a tool's decision when no rule or mode applies: allow
// for the read-only built-ins and the session's own tools (todo_write,
// present_plan, skill), ask for everything else (bash, the editing
// tools, delegate, MCP tools).
func Default(tool string) Action {
	if readOnlyTools[tool] || planTools[tool] {
		return Allow
	}
	return Ask
}
