package tool

import (
	"context"
	"encoding/json"
	"strings"

	"agenthub/ipc/errclass"
)

// MaxPlanBytes bounds a presented plan.
const MaxPlanBytes = 64 << 10

// Planner stores the plan the model presents in plan mode; the hub
// implements it (the plan is a session record, the window shows it as a
// card with "Build it").
type Planner interface {
	PresentPlan(ctx context.Context, env Env, plan string) error
}

// presentPlanTool ends planning with a plan for the user.
type presentPlanTool struct {
	spec
	p Planner
}

// PresentPlan is the present_plan tool over p.
func PresentPlan(p Planner) Tool { return &presentPlanTool{spec: presentPlanSpec, p: p} }

var presentPlanSpec = spec{
	name: "present_plan",
	description: "Present your plan to the user when you are done planning (plan mode). Write it in Markdown: " +
		"what you found, the steps you will take, the files you will change and how you will check the result. " +
		"The user reads it and either has it built or asks you to plan further. After calling it, stop and wait.",
	schema: `{
  "type": "object",
  "properties": {
    "plan": {"type": "string", "description": "The plan, in Markdown."}
  },
  "required": ["plan"],
  "additionalProperties": false
}`,
}

type presentPlanInput struct {
	Plan string `json:"plan"`
}

func (*presentPlanTool) Describe(input json.RawMessage) (string, string) {
	var in presentPlanInput
	if err := json.Unmarshal(input, &in); err != nil || strings.TrimSpace(in.Plan) == "" {
		return invalidSummary("present_plan", input)
	}
	return "Presenting the plan", in.Plan
}

func (t *presentPlanTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	in, invalid, err := decodeRunInput[presentPlanInput]("present_plan", input)
	if err != nil {
		return invalid, err
	}
	switch {
	case strings.TrimSpace(in.Plan) == "":
		return Result{StatusText: "Plan refused"}, errorf(errclass.ToolInvalidInput, "present_plan: the plan is empty")
	case len(in.Plan) > MaxPlanBytes:
		return Result{StatusText: "Plan refused"}, errorf(errclass.ToolInvalidInput, "present_plan: the plan is longer than %d KiB", MaxPlanBytes>>10)
	}
	if err := t.p.PresentPlan(ctx, env, in.Plan); err != nil {
		return Result{StatusText: "Plan not presented"}, errorf(errclass.ToolExec, "present_plan: %v", err)
	}
	out := "The plan is shown to the user, who will have it built or ask you to plan further. End your turn now with a one-line note; do not start the work.\n"
	return Result{Output: out, OutputBytes: int64(len(out)), StatusText: "Presented the plan", Summary: in.Plan}, nil
}
