package rpc

import (
	"context"
	"encoding/json"

	"agenthub/ipc"
	"agenthub/store"
)

// Methods of plan mode, the todo list and custom commands
// (docs/workflows.md).
const (
	// MethodSetTodos replaces a session's todo list: {session_id, todos} →
	// the session.
	MethodSetTodos = "setTodos"
	// MethodBuildPlan builds the session's presented plan: {session_id,
	// mode, plan?} → {turn_id, queued}.
	MethodBuildPlan = "buildPlan"
	// MethodListCommands lists the custom commands, skills and agents:
	// {session_id} or {workspace_path} → ipc.CommandList.
	MethodListCommands = "listCommands"
	// MethodRunCommand runs /name arguments: {session_id, name,
	// arguments?, trust?} → {turn_id, queued}.
	MethodRunCommand = "runCommand"
)

// registerWorkflows registers the methods above on d.
func (h hubMethods) registerWorkflows(d *Dispatcher) {
	d.Register(MethodSetTodos, h.setTodos)
	d.Register(MethodBuildPlan, h.buildPlan)
	d.Register(MethodListCommands, h.listCommands)
	d.Register(MethodRunCommand, h.runCommand)
}

// unsupported is the error of a method the hub does not implement.
func unsupported(what string) error {
	return Errorf(CodeInvalidParams, "this hub has no %s", what)
}

func (h hubMethods) setTodos(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, e, err := decodeFor[struct {
		sessionParams
		Todos []store.Todo `json:"todos"`
	}, ipc.TodoEditor](h, raw, unsupported("todo lists"))
	if err != nil {
		return nil, err
	}
	return e.SetTodos(ctx, id, p.Todos)
}

func (h hubMethods) buildPlan(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, b, err := decodeFor[struct {
		sessionParams
		ipc.BuildPlanRequest
	}, ipc.PlanBuilder](h, raw, unsupported("plan mode"))
	if err != nil {
		return nil, err
	}
	return b.BuildPlan(ctx, id, p.BuildPlanRequest)
}

func (h hubMethods) listCommands(ctx context.Context, raw json.RawMessage) (any, error) {
	r, ok := h.hub.(ipc.CommandRunner)
	if !ok {
		return ipc.CommandList{Commands: []ipc.CommandInfo{}, Agents: []ipc.AgentInfo{}, Problems: []ipc.DefinitionProblem{}}, nil
	}
	var folder struct {
		WorkspacePath *string `json:"workspace_path"`
	}
	if err := DecodeParams(raw, &folder); err == nil && folder.WorkspacePath != nil {
		return r.ListCommands(ctx, "", *folder.WorkspacePath)
	}
	_, id, err := decodeSession[sessionParams](raw)
	if err != nil {
		return nil, err
	}
	return r.ListCommands(ctx, id, "")
}

func (h hubMethods) runCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, err := decodeSession[struct {
		sessionParams
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Trust     bool   `json:"trust"`
	}](raw)
	if err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, Errorf(CodeInvalidParams, "name is required")
	}
	r, ok := h.hub.(ipc.CommandRunner)
	if !ok {
		return nil, unsupported("custom commands")
	}
	return r.RunCommand(ctx, ipc.RunCommandRequest{SessionID: id, Name: p.Name, Arguments: p.Arguments, Trust: p.Trust})
}
