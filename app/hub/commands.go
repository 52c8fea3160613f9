package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"agenthub/app/custom"
	"agenthub/app/permission"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/store"
)

var (
	_ ipc.TodoEditor    = (*Hub)(nil)
	_ ipc.PlanBuilder   = (*Hub)(nil)
	_ ipc.CommandRunner = (*Hub)(nil)
)

// SetTodos implements ipc.TodoEditor: the user's edit of the todo list
// (todo.updated, by user), which the model reads on its next step
// (todoNote).
func (h *Hub) SetTodos(ctx context.Context, sessionID string, todos []store.Todo) (store.Session, error) {
	if todos == nil {
		todos = []store.Todo{}
	}
	if err := tool.CheckTodos(todos); err != nil {
		return store.Session{}, fmt.Errorf("todos: %v: %w", err, ipc.ErrInvalidInput)
	}
	s, err := h.lookup(sessionID)
	if err != nil {
		return store.Session{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.rec
	next.Todos, next.TodosBy = todos, store.TodosByUser
	d := ipc.Draft{Type: ipc.TypeTodoUpdated, SessionID: sessionID, TurnID: next.CurrentTurnID, Actor: ipc.ActorUser,
		Payload: ipc.TodoUpdated{Todos: todos, By: store.TodosByUser}, Ops: []store.Op{store.PutSession(next)}}
	if _, err := h.bus.Commit(context.WithoutCancel(ctx), d); err != nil {
		return store.Session{}, fmt.Errorf("storing the todo list: %w", err)
	}
	s.rec = next
	return next, nil
}

// BuildPlan implements ipc.PlanBuilder ("Build it"): the session leaves
// plan mode for req.Mode, its proposed plan (edited, if req.Plan says so)
// is accepted, and a turn in the same session builds it, the plan in its
// message.
func (h *Hub) BuildPlan(ctx context.Context, sessionID string, req ipc.BuildPlanRequest) (ipc.SubmitResult, error) {
	mode, err := permission.ParseMode(req.Mode)
	if err != nil || req.Mode == "" || mode == permission.ModePlan {
		return ipc.SubmitResult{}, fmt.Errorf("mode %q: build in ask, auto-edits or auto-all: %w", req.Mode, ipc.ErrInvalidInput)
	}
	s, err := h.lookup(sessionID)
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	var text string
	var edited bool
	err = h.commitRecord(ctx, s, ipc.ActorUser, "", func(r *store.Session) error {
		if r.Plan == nil || r.Plan.Status != store.PlanProposed {
			return fmt.Errorf("session %s has no plan waiting to be built (the model presents one with present_plan in plan mode): %w", sessionID, ipc.ErrInvalidInput)
		}
		p := *r.Plan
		if req.Plan != nil && *req.Plan != p.Text {
			switch {
			case strings.TrimSpace(*req.Plan) == "":
				return fmt.Errorf("the edited plan is empty: %w", ipc.ErrInvalidInput)
			case len(*req.Plan) > tool.MaxPlanBytes:
				return fmt.Errorf("the edited plan is longer than %d KiB: %w", tool.MaxPlanBytes>>10, ipc.ErrInvalidInput)
			}
			p.Text, p.Edited = *req.Plan, true
		}
		p.Status, p.Mode, p.AcceptedAt = store.PlanAccepted, string(mode), time.Now().UTC()
		r.Plan, r.ApprovalMode = &p, string(mode)
		text, edited = p.Text, p.Edited
		return nil
	})
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	res, err := h.SubmitTurn(ctx, sessionID, buildMessage(text, edited))
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	err = h.commitRecord(ctx, s, ipc.ActorUser, "", func(r *store.Session) error {
		if r.Plan != nil && r.Plan.Status == store.PlanAccepted && r.Plan.TurnID == "" {
			p := *r.Plan
			p.TurnID = res.TurnID
			r.Plan = &p
		}
		return nil
	})
	if err != nil {
		h.log.Warn("hub: naming the turn that builds the plan", "session", sessionID, "err", err)
	}
	return res, nil
}

// buildMessage is the user message of "Build it".
func buildMessage(plan string, edited bool) string {
	who := "The user approved this plan"
	if edited {
		who = "The user edited and approved this plan"
	}
	return "Build it. " + who + "; implement it now, step by step, keeping the todo list current.\n\n<plan>\n" +
		strings.TrimSpace(plan) + "\n</plan>"
}

// ListCommands implements ipc.CommandRunner: the commands, skills and
// agents of a session's folder (or of folder, for a session about to be
// created there; "" the default one).
func (h *Hub) ListCommands(ctx context.Context, sessionID, folder string) (ipc.CommandList, error) {
	ws, err := h.commandFolder(sessionID, folder)
	if err != nil {
		return ipc.CommandList{}, err
	}
	set := h.definitions(ws)
	out := ipc.CommandList{Commands: []ipc.CommandInfo{}, Agents: []ipc.AgentInfo{}, Problems: []ipc.DefinitionProblem{}}
	for _, c := range set.Commands {
		out.Commands = append(out.Commands, ipc.CommandInfo{Name: c.Name, Kind: c.Kind, Description: c.Description,
			ArgumentHint: c.ArgumentHint, Source: c.Source, Path: c.Path, Shell: c.Shell, NeedsTrust: h.trust.NeedsTrust(c),
			AllowedTools: c.Tools, Model: c.Model})
	}
	for _, a := range set.Agents {
		out.Agents = append(out.Agents, ipc.AgentInfo{Name: a.Name, Description: a.Description, Source: a.Source, Path: a.Path,
			Tools: a.Tools, Model: a.Model})
	}
	for _, p := range set.Problems {
		out.Problems = append(out.Problems, ipc.DefinitionProblem(p))
	}
	return out, nil
}

// commandFolder is the folder whose definitions apply: the session's, or
// folder ("" the default workspace).
func (h *Hub) commandFolder(sessionID, folder string) (string, error) {
	if sessionID != "" {
		s, err := h.lookup(sessionID)
		if err != nil {
			return "", err
		}
		return s.record().WorkspacePath, nil
	}
	if folder == "" {
		folder = h.DefaultWorkspace()
	}
	return existingDir(folder)
}

// RunCommand implements ipc.CommandRunner: /name arguments becomes a turn
// of the session whose message is the expanded template (after the line
// the user typed), which first runs the command's shell lines as bash
// calls (approved as any bash call is), restricted to its allowed-tools
// and answered by its model. A repository's command with shell lines runs
// only once the user let it (req.Trust; remembered for the file as it
// is).
func (h *Hub) RunCommand(ctx context.Context, req ipc.RunCommandRequest) (ipc.SubmitResult, error) {
	s, err := h.lookup(req.SessionID)
	if err != nil {
		return ipc.SubmitResult{}, err
	}
	name := strings.TrimPrefix(strings.TrimSpace(req.Name), "/")
	c, ok := h.definitions(s.record().WorkspacePath).Command(name)
	if !ok {
		return ipc.SubmitResult{}, fmt.Errorf("there is no command /%s in this folder (listCommands lists them): %w", name, ipc.ErrInvalidInput)
	}
	if h.trust.NeedsTrust(c) {
		if !req.Trust {
			return ipc.SubmitResult{}, fmt.Errorf("/%s comes from the repository (%s) and runs shell commands (%s): "+
				"run it with trust once the user agreed: %w", name, c.Path, strings.Join(c.Shell, "; "), ipc.ErrInvalidInput)
		}
		if err := h.trust.Grant(c); err != nil {
			return ipc.SubmitResult{}, err
		}
	}
	typed := strings.TrimSpace("/" + name + " " + strings.TrimSpace(req.Arguments))
	opts := &store.TurnOptions{Command: "/" + name, Path: c.Path, AllowedTools: c.Tools, Model: c.Model}
	for _, line := range c.Shell {
		in, err := json.Marshal(map[string]string{"command": line})
		if err != nil {
			return ipc.SubmitResult{}, err
		}
		opts.Calls = append(opts.Calls, store.StartCall{Tool: "bash", Input: in})
	}
	return h.submit(ctx, req.SessionID, "", typed+"\n\n"+c.Expand(req.Arguments), nil, opts)
}

// agentRe finds @agent-NAME and @NAME in a message.
var agentRe = regexp.MustCompile(`(?:^|\s)@(agent-)?([A-Za-z0-9][A-Za-z0-9_.-]*)`)

// addressedAgent is the options of a plain message that addresses a named
// sub-agent of its folder — @agent-NAME, or @NAME when no file of the
// workspace has that name: the turn starts by delegating the message to
// it (the first one named). nil for a worker's message or none.
func (h *Hub) addressedAgent(rec store.Session, content string) *store.TurnOptions {
	if rec.Depth > 0 {
		return nil
	}
	var set *custom.Set
	for _, m := range agentRe.FindAllStringSubmatch(content, -1) {
		name := strings.TrimRight(m[2], ".,;:!?")
		if m[1] == "" {
			if _, err := os.Lstat(filepath.Join(rec.WorkspacePath, name)); !errors.Is(err, os.ErrNotExist) {
				continue // a file mention
			}
		}
		if set == nil {
			s := h.definitions(rec.WorkspacePath)
			set = &s
		}
		if _, ok := set.Agent(name); !ok {
			continue
		}
		in, err := json.Marshal(map[string]string{"task": content, "agent": name})
		if err != nil {
			return nil
		}
		return &store.TurnOptions{Calls: []store.StartCall{{Tool: "delegate", Input: in}}}
	}
	return nil
}

// turnOptionsOf is the options of the turn user message messageID started
// (nil for none): a retried turn keeps its command's.
func (h *Hub) turnOptionsOf(sessionID, messageID string) *store.TurnOptions {
	turns, err := h.db.Turns(sessionID)
	if err != nil {
		return nil
	}
	for _, t := range turns {
		if t.UserMessageID == messageID {
			return t.Options
		}
	}
	return nil
}
