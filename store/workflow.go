package store

import (
	"encoding/json"
	"time"
)

// Todo statuses.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoDone       = "done"
	TodoCancelled  = "cancelled"
)

// Who changed a session's todo list last (Session.TodosBy).
const (
	TodosByAgent = "agent"
	TodosByUser  = "user"
)

// Todo is one item of a session's todo list: an id unique in the list,
// its text and one of the Todo statuses.
type Todo struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Status string `json:"status"`
}

// Plan statuses.
const (
	PlanProposed = "proposed" // presented, waiting for the user
	PlanAccepted = "accepted" // "Build it": a turn builds it
)

// Plan is the plan a session's model presented in plan mode (the
// present_plan call ToolUseID). Once accepted, Mode is the approval mode
// the user chose to build it in, TurnID the turn that builds it and Edited
// says the user changed Text before accepting it.
type Plan struct {
	Text       string    `json:"text"`
	ToolUseID  string    `json:"tool_use_id"`
	Status     string    `json:"status"`
	CreatedAt  time.Time `json:"created_at"`
	Mode       string    `json:"mode,omitempty"`
	TurnID     string    `json:"turn_id,omitempty"`
	Edited     bool      `json:"edited,omitempty"`
	AcceptedAt time.Time `json:"accepted_at,omitzero"`
}

// SessionAgent is the sub-agent definition a worker session runs as: its
// name, the file it came from, the tools it is restricted to (empty: all
// the session's tools) and the model it asked for ("" the parent's).
type SessionAgent struct {
	Name  string   `json:"name"`
	Path  string   `json:"path"`
	Tools []string `json:"tools,omitempty"`
	Model string   `json:"model,omitempty"`
}

// TurnOptions shape one turn: the custom command that started it (its
// name and file), the tool calls made for the user before the model's
// first step (a command's shell lines, a delegation to the sub-agent the
// message addressed), the tools the turn is restricted to (empty: no
// restriction; entries as app/custom writes them) and the model it asked
// for ("" the session's).
type TurnOptions struct {
	Command      string      `json:"command,omitempty"`
	Path         string      `json:"path,omitempty"`
	Calls        []StartCall `json:"calls,omitempty"`
	AllowedTools []string    `json:"allowed_tools,omitempty"`
	Model        string      `json:"model,omitempty"`
}

// StartCall is a tool call made before the model's first step of a turn.
type StartCall struct {
	Tool  string          `json:"tool"`
	Input json.RawMessage `json:"input"`
}
