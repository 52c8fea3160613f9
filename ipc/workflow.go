package ipc

import (
	"context"

	"agenthub/store"
)

// TodoEditor is optionally implemented by a HubAPI: the user's edit of a
// session's todo list (RPC setTodos). SetTodos replaces the list (checked:
// ids unique, statuses known, bounded; ErrInvalidInput otherwise), commits
// todo.updated (by "user") and returns the record; the model sees the list
// on its next step.
type TodoEditor interface {
	SetTodos(ctx context.Context, sessionID string, todos []store.Todo) (store.Session, error)
}

// BuildPlanRequest is the body of RPC buildPlan: the approval mode to
// build in (ask, auto-edits or auto-all) and, when the user edited it,
// the plan's new text.
type BuildPlanRequest struct {
	Mode string  `json:"mode"`
	Plan *string `json:"plan,omitempty"`
}

// PlanBuilder is optionally implemented by a HubAPI: "Build it" on a
// presented plan. BuildPlan switches the session to req.Mode, marks its
// proposed plan accepted (with the edited text) and submits a turn that
// builds it, with the plan in its message, in the same session. A session
// without a proposed plan, or a mode that is not a building one, is
// ErrInvalidInput.
type PlanBuilder interface {
	BuildPlan(ctx context.Context, sessionID string, req BuildPlanRequest) (SubmitResult, error)
}

// CommandInfo describes a custom command or skill the composer offers as
// /Name: Kind is "command" or "skill", Source "project" or "user", Path
// its file; Shell the commands of its !`…` lines (run as bash calls
// first); NeedsTrust says running it needs the user's say first (a
// repository's command with shell lines not let run as it is now);
// AllowedTools and Model are what its front matter restricts the turn to.
type CommandInfo struct {
	Name         string   `json:"name"`
	Kind         string   `json:"kind"`
	Description  string   `json:"description"`
	ArgumentHint string   `json:"argument_hint,omitempty"`
	Source       string   `json:"source"`
	Path         string   `json:"path"`
	Shell        []string `json:"shell,omitempty"`
	NeedsTrust   bool     `json:"needs_trust,omitempty"`
	AllowedTools []string `json:"allowed_tools,omitempty"`
	Model        string   `json:"model,omitempty"`
}

// AgentInfo describes a named sub-agent: delegate's agent choices and the
// composer's @agent-Name.
type AgentInfo struct {
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Source      string   `json:"source"`
	Path        string   `json:"path"`
	Tools       []string `json:"tools,omitempty"`
	Model       string   `json:"model,omitempty"`
}

// DefinitionProblem is a definition file left out (or read with a note).
type DefinitionProblem struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// CommandList is the answer of RPC listCommands.
type CommandList struct {
	Commands []CommandInfo       `json:"commands"`
	Agents   []AgentInfo         `json:"agents"`
	Problems []DefinitionProblem `json:"problems"`
}

// RunCommandRequest is the body of RPC runCommand: /Name Arguments in
// SessionID; Trust lets a repository command's shell lines run (and is
// remembered for the file as it is).
type RunCommandRequest struct {
	SessionID string `json:"session_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments,omitempty"`
	Trust     bool   `json:"trust,omitempty"`
}

// CommandRunner is optionally implemented by a HubAPI: custom commands,
// skills and agents (docs/workflows.md). ListCommands lists what a
// session's folder (or, with sessionID "", folder) offers. RunCommand
// expands /Name and submits it as a turn restricted as the command says;
// an unknown name, or a command that needs trust without Trust, is
// ErrInvalidInput.
type CommandRunner interface {
	ListCommands(ctx context.Context, sessionID, folder string) (CommandList, error)
	RunCommand(ctx context.Context, req RunCommandRequest) (SubmitResult, error)
}
