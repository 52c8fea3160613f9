package hub

import (
	"context"
	"fmt"
	"strings"
	"time"

	"agenthub/app/custom"
	"agenthub/app/permission"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/store"
)

// workflow is what custom definitions and plan mode add to one turn
// (docs/workflows.md): the definitions of the session's folder, loaded as
// the turn starts; the tools the turn is restricted to (a custom
// command's allowed-tools, a named sub-agent's tools — never more than a
// delegating turn's own); and, for a named sub-agent's worker, its name
// and instructions.
type workflow struct {
	defs        custom.Set
	restrict    custom.Restriction
	agentName   string
	agentPrompt string
}

// customDirs are the user's folders of commands, skills and agents.
func (h *Hub) customDirs() []custom.UserDir {
	if h.cfg.CustomDirs != nil {
		return h.cfg.CustomDirs()
	}
	return custom.UserDirs()
}

// definitions loads the custom commands, skills and agents of workspace.
func (h *Hub) definitions(workspace string) custom.Set {
	return custom.Load(workspace, h.customDirs(), h.protected())
}

// mode is a session record's approval mode.
func (h *Hub) mode(rec store.Session) permission.Mode {
	if rec.ApprovalMode == "" {
		return h.defaultApprovalMode()
	}
	m, _ := permission.ParseMode(rec.ApprovalMode)
	return m
}

// startWorkflow loads the definitions of r's turn and merges the turn's
// own restriction (its command's allowed-tools) into what a delegation
// may already have set.
func (h *Hub) startWorkflow(r *run, rec store.Session) {
	r.wf.defs = h.definitions(rec.WorkspacePath)
	if o := r.turn.Options; o != nil && len(o.AllowedTools) > 0 {
		r.wf.restrict = custom.Restriction(o.AllowedTools).Within(r.wf.restrict)
	}
}

// turnTools are the tools of r's turn: the built-ins (delegate offering
// the named sub-agents), todo_write, present_plan and, when the folder has
// skills, skill.
func (h *Hub) turnTools(r *run, s *session, d *delegator) []tool.Tool {
	var agents []tool.AgentChoice
	for _, a := range r.wf.defs.Agents {
		agents = append(agents, tool.AgentChoice{Name: a.Name, Description: a.Description})
	}
	st := sessionTools{h: h, s: s, r: r}
	var tools []tool.Tool
	for _, t := range tool.BuiltinsWithOptions(d, h.cfg.ToolOptions) {
		if t.Name() == "delegate" {
			t = tool.DelegateWithAgents(d, h.cfg.ToolOptions, agents)
		}
		tools = append(tools, t)
	}
	tools = append(tools, tool.TodoWrite(st), tool.PresentPlan(st))
	if skills := r.wf.defs.Skills(); len(skills) > 0 {
		names := make([]string, len(skills))
		for i, c := range skills {
			names[i] = c.Name
		}
		tools = append(tools, tool.Skill(st, names))
	}
	return tools
}

// offered says which tools r's turn describes to the model now:
// present_plan only while the session is in plan mode, and only what the
// turn's restriction leaves.
func (h *Hub) offered(r *run, s *session) func(string) bool {
	return func(name string) bool {
		if name == "present_plan" && h.mode(s.record()) != permission.ModePlan {
			return false
		}
		return r.wf.restrict.Offers(name)
	}
}

// offeredTools filters tools by offered (the system prompt's list).
func offeredTools(tools []tool.Tool, offered func(string) bool) []tool.Tool {
	var out []tool.Tool
	for _, t := range tools {
		if offered(t.Name()) {
			out = append(out, t)
		}
	}
	return out
}

// workflowPrompt is what plan mode, the skills and a named sub-agent add
// to the system prompt.
func (h *Hub) workflowPrompt(rec store.Session, r *run) string {
	var b strings.Builder
	if h.mode(rec) == permission.ModePlan {
		b.WriteString("\n\nThe session is in plan mode: only what reads runs — read_file, list_dir, glob, grep, bash commands " +
			"that only read (ls, cat, grep, find …), todo_write, skill, and delegate (its sub-agent plans too); edits and other " +
			"commands are refused. Explore what you need, then call present_plan with your plan in Markdown and stop: " +
			"the user has it built or asks you to plan further.")
	}
	if skills := r.wf.defs.Skills(); len(skills) > 0 && r.wf.restrict.Offers("skill") {
		b.WriteString("\n\nSkills — instructions for particular tasks, not in your context until you load one with the skill tool " +
			"when a task matches its description:\n")
		for _, c := range skills {
			fmt.Fprintf(&b, "- %s: %s\n", c.Name, c.Description)
		}
	}
	if r.wf.agentName != "" {
		fmt.Fprintf(&b, "\n\nYou run as the sub-agent %q. Its instructions:\n\n%s", r.wf.agentName, r.wf.agentPrompt)
	}
	return b.String()
}

// todoNote is what the model reads after the user changed its todo list
// (the last change was the user's): the list as it is now, as a note at
// the end of the request, so the model sees the edit on its next step
// (nil when the model made the last change: its todo_write result says).
func todoNote(rec store.Session) *store.Message {
	if rec.TodosBy != store.TodosByUser {
		return nil
	}
	text := "[The user cleared your todo list.]"
	if len(rec.Todos) > 0 {
		text = "[The user edited your todo list; it is now:\n" + tool.TodoMarkdown(rec.Todos) + "Keep to it, and keep it current with todo_write.]"
	}
	return &store.Message{SessionID: rec.ID, Role: store.RoleUser, Status: store.StatusComplete,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: text}}}
}

// sessionTools implements the session's own tools for one turn: the
// plan (present_plan), the todo list (todo_write) and skills (skill).
type sessionTools struct {
	h *Hub
	s *session
	r *run
}

var (
	_ tool.Planner     = sessionTools{}
	_ tool.TodoWriter  = sessionTools{}
	_ tool.SkillLoader = sessionTools{}
)

// PresentPlan stores plan as the session's proposed plan (session.updated).
func (st sessionTools) PresentPlan(ctx context.Context, env tool.Env, plan string) error {
	return st.h.commitRecord(ctx, st.s, ipc.ActorAgent, st.r.turn.ID, func(r *store.Session) error {
		r.Plan = &store.Plan{Text: plan, ToolUseID: env.ToolUseID, Status: store.PlanProposed, CreatedAt: time.Now().UTC()}
		return nil
	})
}

// WriteTodos stores the model's todo list (todo.updated, by agent).
func (st sessionTools) WriteTodos(ctx context.Context, env tool.Env, todos []store.Todo) error {
	if todos == nil {
		todos = []store.Todo{}
	}
	rec := &recorder{h: st.h, s: st.s}
	rec.Commit(ipc.Draft{
		Type: ipc.TypeTodoUpdated, SessionID: st.s.record().ID, TurnID: st.r.turn.ID, Actor: ipc.ActorAgent,
		Payload: ipc.TodoUpdated{Todos: todos, By: store.TodosByAgent, ToolUseID: env.ToolUseID},
	}, func(s *store.Session) { s.Todos, s.TodosBy = todos, store.TodosByAgent })
	return nil
}

// LoadSkill reads a skill of the turn's folder: its instructions with the
// list of its other files, or one of those files.
func (st sessionTools) LoadSkill(ctx context.Context, env tool.Env, name, file string) (string, error) {
	c, ok := st.r.wf.defs.Command(name)
	if !ok || c.Kind != custom.KindSkill {
		return "", fmt.Errorf("there is no skill %q", name)
	}
	if file != "" {
		return custom.ReadSkillFile(c, file, st.h.protected())
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<skill name=%q path=%q>\n%s\n</skill>\n", c.Name, c.Path, strings.TrimSpace(c.Body))
	if files := custom.SkillFiles(c, st.h.protected()); len(files) > 0 {
		b.WriteString("Other files of the skill (load one with the skill tool's file): " + strings.Join(files, ", ") + "\n")
	}
	return b.String(), nil
}

// commitRecord applies change to the session's record and commits
// session.updated (by actor, in turnID when set); a change that fails
// leaves the record as it was.
func (h *Hub) commitRecord(ctx context.Context, s *session, actor, turnID string, change func(*store.Session) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.rec
	if err := change(&next); err != nil {
		return err
	}
	d := h.sessionDraft(next, actor)
	d.TurnID = turnID
	if _, err := h.bus.Commit(context.WithoutCancel(ctx), d); err != nil {
		return fmt.Errorf("updating session %s: %w", next.ID, err)
	}
	s.rec = next
	return nil
}
