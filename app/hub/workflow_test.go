package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agenthub/app/apptest"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

// The todo list: the model's todo_write and the user's edit are each a
// todo.updated and the session's record; the model reads the user's edit
// on its very next step; the list is the session's after a restart.
func TestTodoListAcrossEditsAndRestart(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	ctx := context.Background()
	w := h.watch(s.ID, false)
	gate := llmtest.NewGate()
	script := h.scripted(
		llmtest.ToolReply("tu_todo", "todo_write", `{"todos":[{"id":"1","text":"Read the code","status":"in_progress"},{"id":"2","text":"Fix the bug","status":"pending"}]}`),
		llmtest.Reply{Blocks: []llmtest.Block{call("tu_look", "list_dir", `{"path":"."}`)}, Stall: gate},
		llmtest.TextReply("Done."),
	)
	h.submit(s.ID, "Fix the bug")
	var byAgent ipc.TodoUpdated
	w.untilType(ipc.TypeTodoUpdated).decode(t, &byAgent)
	if byAgent.By != store.TodosByAgent || byAgent.ToolUseID != "tu_todo" || len(byAgent.Todos) != 2 {
		t.Fatalf("the model's todo.updated: %+v", byAgent)
	}
	w.untilType(ipc.TypeToolUseStart) // the second step stalls after its call starts
	if _, err := h.hub.SetTodos(ctx, s.ID, []store.Todo{{ID: "1", Text: "x", Status: "started"}}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Errorf("an unknown status: %v", err)
	}
	if _, err := h.hub.SetTodos(ctx, s.ID, []store.Todo{{ID: "1", Text: "a", Status: "done"}, {ID: "1", Text: "b", Status: "done"}}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Errorf("a repeated id: %v", err)
	}
	mine := []store.Todo{{ID: "1", Text: "Read the code", Status: store.TodoDone}, {ID: "2", Text: "Fix the bug", Status: store.TodoInProgress},
		{ID: "u1", Text: "Add a regression test", Status: store.TodoPending}}
	if _, err := h.hub.SetTodos(ctx, s.ID, mine); err != nil {
		t.Fatal(err)
	}
	e := w.untilType(ipc.TypeTodoUpdated)
	var byUser ipc.TodoUpdated
	e.decode(t, &byUser)
	if byUser.By != store.TodosByUser || e.Actor != ipc.ActorUser || !slices.Equal(byUser.Todos, mine) {
		t.Fatalf("the user's todo.updated: %+v (%s)", byUser, e.Actor)
	}
	gate.Release()
	w.turnEnd(s.ID)
	reqs := script.Requests()
	if strings.Contains(requestText(reqs[1]), "Add a regression test") {
		t.Fatal("the step before the edit already had it")
	}
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if note := store.TextOf(last.Content); last.Role != store.RoleUser || !strings.Contains(note, "The user edited your todo list") ||
		!strings.Contains(note, "[x] Read the code") || !strings.Contains(note, "Add a regression test") {
		t.Fatalf("the step after the edit ends with %s %q", last.Role, store.TextOf(last.Content))
	}
	h.close()
	h.open()
	rec, _ := h.hub.GetSession(ctx, s.ID)
	if !slices.Equal(rec.Todos, mine) || rec.TodosBy != store.TodosByUser {
		t.Fatalf("after a restart: %+v by %q", rec.Todos, rec.TodosBy)
	}
	sub, err := h.bus.Subscribe(ctx, ipc.SubscribeRequest{SessionID: s.ID, Snapshot: true, Name: "snap"})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	f := <-sub.Frames()
	for !strings.Contains(string(f.Data), `"type":"snapshot"`) {
		f = <-sub.Frames()
	}
	if !strings.Contains(string(f.Data), `"text":"Add a regression test"`) {
		t.Fatalf("the snapshot lacks the todo list: %s", f.Data)
	}
}

// A skill is offered by name and description; its body reaches the model
// only once the model loads it with the skill tool.
func TestSkillLoadedOnlyWhenUsed(t *testing.T) {
	h := newHarness(t)
	apptest.WriteFile(t, filepath.Join(h.ws, ".claude/skills/release-notes/SKILL.md"), "---\nname: release-notes\ndescription: Writes release notes in the house style\n---\n"+
		"SKILL BODY: group the changes under Added, Changed and Fixed.\n")
	apptest.WriteFile(t, filepath.Join(h.ws, ".claude/skills/release-notes/example.md"), "EXAMPLE FILE\n")
	s := h.session()
	w := h.watch(s.ID, false)
	script := h.scripted(
		llmtest.ToolReply("tu_skill", "skill", `{"name":"release-notes"}`),
		llmtest.ToolReply("tu_file", "skill", `{"name":"release-notes","file":"example.md"}`),
		llmtest.TextReply("Here are the notes."),
	)
	h.submit(s.ID, "Write the release notes")
	w.turnEnd(s.ID)
	reqs := script.Requests()
	first := reqs[0]
	if !strings.Contains(first.System, "- release-notes: Writes release notes in the house style") || !slices.Contains(toolNames(first), "skill") {
		t.Fatalf("the skill is not offered: tools %v\n%s", toolNames(first), first.System)
	}
	if strings.Contains(first.System+requestText(first), "SKILL BODY") {
		t.Fatal("the skill's body is in the request before the model loaded it")
	}
	if !strings.Contains(requestText(reqs[1]), "SKILL BODY: group the changes") || !strings.Contains(requestText(reqs[1]), "example.md") {
		t.Fatalf("the request after loading lacks the body:\n%s", requestText(reqs[1]))
	}
	if !strings.Contains(requestText(reqs[2]), "EXAMPLE FILE") {
		t.Fatal("the skill's file was not loaded")
	}
}

// A named sub-agent runs as a worker with its instructions and only its
// tools: the session is auto-all, yet the worker's write is refused, and
// its requests offer read_file and grep alone.
func TestSubAgentRestrictedToItsTools(t *testing.T) {
	h := newHarness(t)
	apptest.WriteFile(t, filepath.Join(h.ws, ".claude/agents/explorer.md"), "---\nname: explorer\ndescription: Finds where things are\ntools: Read, Grep\n---\nEXPLORER PROMPT: answer with paths.\n")
	s := h.session()
	w := h.watch(s.ID, true)
	script := h.scripted(
		llmtest.ToolReply("tu_del", "delegate", `{"task":"Find main","agent":"explorer"}`),
		llmtest.ToolReply("tu_pwn", "write_file", `{"path":"pwned.txt","content":"x"}`),
		llmtest.TextReply("main is in main.go"),
		llmtest.TextReply("Found it."),
	)
	h.submit(s.ID, "Where is main?")
	es := endOfTurn(w, s.ID)
	reqs := script.Requests()
	var del struct {
		Properties struct {
			Agent struct {
				Enum []string `json:"enum"`
			} `json:"agent"`
		} `json:"properties"`
	}
	for _, tl := range reqs[0].Tools {
		if tl.Name == "delegate" {
			if err := json.Unmarshal(tl.InputSchema, &del); err != nil || !strings.Contains(tl.Description, "- explorer: Finds where things are") {
				t.Fatalf("delegate: %v %s", err, tl.Description)
			}
		}
	}
	if !slices.Equal(del.Properties.Agent.Enum, []string{"explorer"}) {
		t.Fatalf("delegate's agent choices %v", del.Properties.Agent.Enum)
	}
	if got := toolNames(reqs[1]); !slices.Equal(got, []string{"read_file", "grep"}) {
		t.Fatalf("the worker was offered %v", got)
	}
	if !strings.Contains(reqs[1].System, "EXPLORER PROMPT") {
		t.Fatal("the worker's system prompt lacks the agent's instructions")
	}
	var f ipc.ToolFailed // a worker's calls get minted ids
	for _, x := range failures(t, es) {
		if x.ToolName == "write_file" {
			f = x
		}
	}
	if f.ErrorClass != ipc.ToolErrDenied || !strings.Contains(f.Message, "not among the tools allowed") || fileExists(h.ws, "pwned.txt") {
		t.Fatalf("the worker's write: %+v, file made %v", f, fileExists(h.ws, "pwned.txt"))
	}
	var worker store.Session
	for _, e := range es {
		if e.Type == ipc.TypeDelegateStarted {
			var ds ipc.DelegateStarted
			e.decode(t, &ds)
			worker, _ = h.hub.GetSession(context.Background(), ds.WorkerSessionID)
		}
	}
	if worker.Agent == nil || worker.Agent.Name != "explorer" || !slices.Equal(worker.Agent.Tools, []string{"read_file", "grep"}) {
		t.Fatalf("the worker's record: %+v", worker.Agent)
	}
}

// @agent-NAME in a message starts the turn by delegating it to that agent.
func TestAddressingASubAgent(t *testing.T) {
	h := newHarness(t)
	apptest.WriteFile(t, filepath.Join(h.ws, ".agenthub/agents/reviewer.md"), "---\nname: reviewer\ndescription: Reviews changes\n---\nREVIEWER PROMPT\n")
	s := h.session()
	w := h.watch(s.ID, true)
	script := h.scripted(llmtest.TextReply("Looks good."), llmtest.TextReply("The reviewer says it looks good."))
	h.submit(s.ID, "@agent-reviewer check my change")
	e := w.untilType(ipc.TypeToolCalled)
	var tc ipc.ToolCalled
	e.decode(t, &tc)
	if tc.ToolName != "delegate" || !strings.Contains(string(tc.Input), `"agent":"reviewer"`) || e.SessionID != s.ID {
		t.Fatalf("first call: %+v", tc)
	}
	w.turnEnd(s.ID)
	reqs := script.Requests()
	if !strings.Contains(reqs[0].System, "REVIEWER PROMPT") || !strings.Contains(requestText(reqs[0]), "@agent-reviewer check my change") {
		t.Fatalf("the reviewer's request:\n%s", reqs[0].System)
	}
	if !strings.Contains(requestText(reqs[1]), "Looks good.") {
		t.Fatal("the parent's model did not get the reviewer's answer")
	}
}
