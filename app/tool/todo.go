package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"agenthub/ipc/errclass"
	"agenthub/store"
)

// Bounds of a todo list.
const (
	MaxTodos        = 100
	MaxTodoTextRune = 500
)

// TodoWriter stores a session's todo list for todo_write; the hub
// implements it (the list is a session record, todo.updated tells every
// client).
type TodoWriter interface {
	WriteTodos(ctx context.Context, env Env, todos []store.Todo) error
}

// todoWriteTool replaces the session's todo list.
type todoWriteTool struct {
	spec
	w TodoWriter
}

// TodoWrite is the todo_write tool over w.
func TodoWrite(w TodoWriter) Tool { return &todoWriteTool{spec: todoWriteSpec, w: w} }

var todoWriteSpec = spec{
	name: "todo_write",
	description: "Keep the task's todo list, which the user sees as a live panel: send the whole list each time " +
		"(it replaces the one before). Use it for work of several steps: add the steps, mark one in_progress as you start it " +
		"and done as soon as it is finished, cancelled when it no longer applies. The user may edit the list too; " +
		"the current list is always shown to you.",
	schema: `{
  "type": "object",
  "properties": {
    "todos": {
      "type": "array",
      "items": {
        "type": "object",
        "properties": {
          "id": {"type": "string", "description": "Unique in the list; keep an item's id when you update it."},
          "text": {"type": "string"},
          "status": {"type": "string", "enum": ["pending", "in_progress", "done", "cancelled"]}
        },
        "required": ["id", "text", "status"],
        "additionalProperties": false
      }
    }
  },
  "required": ["todos"],
  "additionalProperties": false
}`,
}

type todoWriteInput struct {
	Todos []store.Todo `json:"todos"`
}

// CheckTodos reports what makes a todo list invalid: more than MaxTodos
// items, an empty or repeated id, an empty or too long text, an unknown
// status.
func CheckTodos(todos []store.Todo) error {
	if len(todos) > MaxTodos {
		return fmt.Errorf("%d items: at most %d", len(todos), MaxTodos)
	}
	seen := map[string]bool{}
	for i, t := range todos {
		switch {
		case strings.TrimSpace(t.ID) == "" || len(t.ID) > 64:
			return fmt.Errorf("item %d: id must be 1–64 characters", i+1)
		case seen[t.ID]:
			return fmt.Errorf("item %d: the id %q is used twice", i+1, t.ID)
		case strings.TrimSpace(t.Text) == "" || len([]rune(t.Text)) > MaxTodoTextRune:
			return fmt.Errorf("item %q: text must be 1–%d characters", t.ID, MaxTodoTextRune)
		}
		switch t.Status {
		case store.TodoPending, store.TodoInProgress, store.TodoDone, store.TodoCancelled:
		default:
			return fmt.Errorf("item %q: status %q: want pending, in_progress, done or cancelled", t.ID, t.Status)
		}
		seen[t.ID] = true
	}
	return nil
}

// TodoMarkdown renders a todo list as a Markdown task list.
func TodoMarkdown(todos []store.Todo) string {
	var b strings.Builder
	for _, t := range todos {
		mark := " "
		switch t.Status {
		case store.TodoDone:
			mark = "x"
		case store.TodoInProgress:
			mark = "~"
		case store.TodoCancelled:
			mark = "-"
		}
		fmt.Fprintf(&b, "- [%s] %s (id %s, %s)\n", mark, oneLineText(t.Text), t.ID, t.Status)
	}
	return b.String()
}

// oneLineText is s with its line breaks made spaces.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }

func (*todoWriteTool) Describe(input json.RawMessage) (string, string) {
	var in todoWriteInput
	if err := json.Unmarshal(input, &in); err != nil {
		return invalidSummary("todo_write", input)
	}
	done := 0
	for _, t := range in.Todos {
		if t.Status == store.TodoDone {
			done++
		}
	}
	return fmt.Sprintf("Updating the todo list (%d of %d done)", done, len(in.Todos)), TodoMarkdown(in.Todos)
}

func (t *todoWriteTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	in, invalid, err := decodeRunInput[todoWriteInput]("todo_write", input)
	if err != nil {
		return invalid, err
	}
	if err := CheckTodos(in.Todos); err != nil {
		return Result{StatusText: "Todo list refused"}, errorf(errclass.ToolInvalidInput, "todo_write: %v", err)
	}
	if err := t.w.WriteTodos(ctx, env, in.Todos); err != nil {
		return Result{StatusText: "Todo list not saved"}, errorf(errclass.ToolExec, "todo_write: %v", err)
	}
	status, summary := t.Describe(input)
	out := "The todo list is saved; the user sees it.\n"
	if len(in.Todos) > 0 {
		out = "The todo list is saved; the user sees it:\n" + TodoMarkdown(in.Todos)
	}
	return Result{Output: out, OutputBytes: int64(len(out)), StatusText: strings.Replace(status, "Updating", "Updated", 1), Summary: summary}, nil
}
