package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"agenthub/ipc/errclass"
)

// SkillLoader reads a skill's instructions (SKILL.md's body) or one of
// the other files of its folder for the skill tool; the hub implements
// it (app/custom, only the user's own files inside the skill's folder).
type SkillLoader interface {
	LoadSkill(ctx context.Context, env Env, name, file string) (string, error)
}

// skillTool loads a skill when the model decides to use it.
type skillTool struct {
	spec
	l SkillLoader
}

// Skill is the skill tool over l, offering the skills named.
func Skill(l SkillLoader, names []string) Tool {
	t := &skillTool{spec: skillSpec, l: l}
	enum, _ := json.Marshal(names)
	t.spec.schema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "enum": ` + string(enum) + `, "description": "The skill, as listed in the system prompt."},
    "file": {"type": "string", "description": "Another file of the skill's folder that its instructions name (omit for the instructions)."}
  },
  "required": ["name"],
  "additionalProperties": false
}`
	return t
}

var skillSpec = spec{
	name: "skill",
	description: "Load a skill's instructions when the task matches its description (the skills are listed in the system prompt): " +
		"they are not in your context until you load them. Follow them once loaded; load a file they name with file.",
}

type skillInput struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
}

func (*skillTool) Describe(input json.RawMessage) (string, string) {
	var in skillInput
	if err := json.Unmarshal(input, &in); err != nil || strings.TrimSpace(in.Name) == "" {
		return invalidSummary("skill", input)
	}
	if in.File != "" {
		return fmt.Sprintf("Loading %s of the skill %s", in.File, in.Name), ""
	}
	return "Loading the skill " + in.Name, ""
}

func (t *skillTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	in, invalid, err := decodeRunInput[skillInput]("skill", input)
	if err != nil {
		return invalid, err
	}
	status, _ := t.Describe(input)
	text, err := t.l.LoadSkill(ctx, env, in.Name, in.File)
	if err != nil {
		return Result{StatusText: "Skill not loaded"}, errorf(errclass.ToolExec, "skill: %v", err)
	}
	return Result{Output: text, OutputBytes: int64(len(text)), StatusText: strings.Replace(status, "Loading", "Loaded", 1)}, nil
}
