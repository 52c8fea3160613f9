package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"agenthub/ipc/errclass"
)

// delegateContextPreview bounds the context shown in the call summary.
const delegateContextPreview = 500

// delegateTool hands a task to a sub-agent through the hub's Delegator.
type delegateTool struct {
	spec
	d    Delegator
	opts Options
}

var delegateSpec = spec{
	name: "delegate",
	description: "Delegate a self-contained task to a sub-agent that has the same tools and workspace but none of " +
		"this conversation: put everything it needs in task and context. Returns the sub-agent's final answer.",
	schema: `{
  "type": "object",
  "properties": {
    "task": {"type": "string", "description": "What the sub-agent must do, stated completely."},
    "context": {"type": "string", "description": "Background the sub-agent needs: files, findings, constraints."}
  },
  "required": ["task"],
  "additionalProperties": false
}`,
}

type delegateInput struct {
	Task    string `json:"task"`
	Context string `json:"context,omitempty"`
	Agent   string `json:"agent,omitempty"`
}

// AgentChoice is a named sub-agent delegate offers: its name and what
// it is for (the model picks by it).
type AgentChoice struct {
	Name, Description string
}

// DelegateWithAgents is the delegate tool offering the named sub-agents
// as the choices of its agent input (none: the plain delegate of
// Builtins).
func DelegateWithAgents(d Delegator, opts Options, agents []AgentChoice) Tool {
	t := &delegateTool{spec: delegateSpec, d: d, opts: opts.withDefaults()}
	if len(agents) == 0 {
		return t
	}
	var desc strings.Builder
	desc.WriteString(delegateSpec.description)
	desc.WriteString("\n\nNamed sub-agents (set agent to run one: it has its own instructions, and may have fewer tools or another model):")
	names := make([]string, 0, len(agents))
	for _, a := range agents {
		fmt.Fprintf(&desc, "\n- %s: %s", a.Name, a.Description)
		names = append(names, a.Name)
	}
	enum, _ := json.Marshal(names)
	t.spec.description = desc.String()
	t.spec.schema = `{
  "type": "object",
  "properties": {
    "task": {"type": "string", "description": "What the sub-agent must do, stated completely."},
    "context": {"type": "string", "description": "Background the sub-agent needs: files, findings, constraints."},
    "agent": {"type": "string", "enum": ` + string(enum) + `, "description": "The named sub-agent to run the task (omit for a general one)."}
  },
  "required": ["task"],
  "additionalProperties": false
}`
	return t
}

func (*delegateTool) Describe(input json.RawMessage) (string, string) {
	var in delegateInput
	if err := json.Unmarshal(input, &in); err != nil || strings.TrimSpace(in.Task) == "" {
		return invalidSummary("delegate", input)
	}
	var b strings.Builder
	if in.Agent != "" {
		b.WriteString("**Sub-agent `" + in.Agent + "`** in the same workspace\n\n**Task:**\n\n")
	} else {
		b.WriteString("**Sub-agent** with the same tools and workspace\n\n**Task:**\n\n")
	}
	b.WriteString(codeBlock("", in.Task))
	b.WriteString("\n**Context provided:**\n\n")
	if strings.TrimSpace(in.Context) == "" {
		b.WriteString("_none_\n")
	} else {
		preview := truncRunes(in.Context, delegateContextPreview)
		b.WriteString(codeBlock("", preview))
	}
	who := "sub-agent"
	if in.Agent != "" {
		who = "sub-agent " + in.Agent
	}
	return "Starting " + who + ": " + firstLine(in.Task, statusMaxRunes), b.String()
}

func (t *delegateTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	in, invalid, err := decodeRunInput[delegateInput]("delegate", input)
	if err != nil {
		return invalid, err
	}
	failed := Result{StatusText: "Sub-agent failed"}
	if strings.TrimSpace(in.Task) == "" {
		return failed, errorf(errclass.ToolInvalidInput, "delegate: task is required")
	}
	if t.d == nil {
		return failed, errorf(errclass.ToolExec, "delegate: delegation is not available in this session")
	}
	if err := checkCtx(ctx, "delegate"); err != nil {
		failed.StatusText = "Sub-agent cancelled"
		return failed, err
	}
	result, err := t.d.Delegate(ctx, env, DelegateRequest(in))
	if err != nil {
		e := AsError(err)
		if cerr := ctx.Err(); cerr != nil {
			e = AsError(cerr)
			e.Message = "delegate: sub-agent stopped: " + err.Error()
		}
		if e.Class == errclass.ToolCancelled {
			failed.StatusText = "Sub-agent cancelled"
		}
		failed.Summary = "**Sub-agent failed:** " + e.Message + "\n"
		return failed, e
	}
	res := Result{Output: result, OutputBytes: int64(len(result)), StatusText: "Sub-agent completed"}
	if len(result) > t.opts.HeadBytes+t.opts.TailBytes {
		capt, cerr := newCapture(t.opts, env.OutputDir, logName(env.ToolUseID), "worker", nil)
		if cerr != nil {
			return failed, errorf(errclass.ToolExec, "delegate: %v", cerr)
		}
		_, _ = capt.Write([]byte(result))
		capt.finish()
		res.Output, res.Truncated = capt.modelText()
		if capt.ioErr == nil {
			res.OutputPath = capt.path
		}
	}
	if strings.TrimSpace(result) == "" {
		res.Output = "(the sub-agent returned no text)\n"
	}
	excerpt, cut := excerptHead(result, 200, 16<<10)
	res.Summary = "**Sub-agent result:**\n\n" + excerpt + "\n"
	if cut {
		res.Summary += fmt.Sprintf("\n_(result shortened; %d bytes in full)_\n", len(result))
	}
	return res, nil
}
