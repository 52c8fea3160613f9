package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"agenthub/ipc/errclass"
	"agenthub/store"
)

// todoSink records what todo_write saves.
type todoSink struct{ saved [][]store.Todo }

func (s *todoSink) WriteTodos(_ context.Context, _ Env, todos []store.Todo) error {
	s.saved = append(s.saved, todos)
	return nil
}

// todo_write refuses a list the panel could not show — too many items, a
// missing or repeated id, an empty or too long text, an unknown status —
// with an error the model reads, and saves nothing; a valid list is saved
// and repeated to the model.
func TestTodoWriteRefusesBadLists(t *testing.T) {
	many := make([]store.Todo, MaxTodos+1)
	for i := range many {
		many[i] = store.Todo{ID: strings.Repeat("i", i%60+1) + string(rune('a'+i%26)), Text: "x", Status: store.TodoPending}
	}
	bad := map[string][]store.Todo{
		"at most 100":        many,
		"id must be":         {{ID: " ", Text: "x", Status: store.TodoPending}},
		"65 characters id":   {{ID: strings.Repeat("i", 65), Text: "x", Status: store.TodoPending}},
		"used twice":         {{ID: "1", Text: "a", Status: store.TodoDone}, {ID: "1", Text: "b", Status: store.TodoDone}},
		"empty text":         {{ID: "1", Text: "  ", Status: store.TodoPending}},
		"501 characters":     {{ID: "1", Text: strings.Repeat("é", MaxTodoTextRune+1), Status: store.TodoPending}},
		"status \"started\"": {{ID: "1", Text: "x", Status: "started"}},
	}
	sink := &todoSink{}
	tl := TodoWrite(sink)
	for name, todos := range bad {
		in, _ := json.Marshal(todoWriteInput{Todos: todos})
		_, err := tl.Run(context.Background(), Env{}, in)
		var te *Error
		if !errors.As(err, &te) || te.Class != errclass.ToolInvalidInput {
			t.Errorf("%s: %v, want an invalid-input error", name, err)
		}
	}
	if _, err := tl.Run(context.Background(), Env{}, json.RawMessage(`{"todos":"not a list"}`)); err == nil {
		t.Error("a malformed input was taken")
	}
	if len(sink.saved) != 0 {
		t.Fatalf("a refused list was saved: %v", sink.saved)
	}
	ok := []store.Todo{{ID: "1", Text: "Read\nthe code", Status: store.TodoDone}, {ID: "2", Text: strings.Repeat("é", MaxTodoTextRune), Status: store.TodoInProgress}}
	in, _ := json.Marshal(todoWriteInput{Todos: ok})
	res, err := tl.Run(context.Background(), Env{}, in)
	if err != nil || len(sink.saved) != 1 || !strings.Contains(res.Output, "- [x] Read the code (id 1, done)") || !strings.Contains(res.Output, "- [~] ") {
		t.Fatalf("a valid list: %+v %v (saved %d)", res, err, len(sink.saved))
	}
}
