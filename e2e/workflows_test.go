package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/llm/llmtest"
)

// TestWorkflowsInBrowser: the repository's /review command through the
// composer's "/" completion, the todo list the model keeps (and the user
// ticks and adds to) as a pinned panel, plan mode with /plan, the plan card
// and "Build it", all of it again after a reload and after a restart of
// the binary on the same data dir, the trust question of a repository
// command with a shell line, and @agent-explorer with a skill loaded
// (workflows.e2e.mjs;
// its screenshots are docs/workflows-*.png).
func TestWorkflowsInBrowser(t *testing.T) {
	root, node, ctx := browserTest(t, 3*time.Minute)
	srv := llmtest.NewServer(t)
	usage := llmtest.AnthropicUsage{Input: 900, Output: 30}
	reply := func() *llmtest.AnthropicStream { return llmtest.NewAnthropicStream(model, usage) }
	srv.Enqueue(
		reply().Text("I will check the notes step by step.").
			ToolUse("toolu_todo", "todo_write", `{"todos":[{"id":"1","text":"Read notes.txt","status":"done"},`,
				`{"id":"2","text":"List the typos","status":"in_progress"},{"id":"3","text":"Suggest fixes","status":"pending"}]}`).
			Finish("tool_use", 30).Response(),
		reply().Text("One typo: **teh** should be **the**.").Finish("end_turn", 10).Response(),
		reply().Text("Here is my plan.").
			ToolUse("toolu_plan", "present_plan", `{"plan":"## Fix the typo\n\n1. Replace `, `**teh** with **the** in notes.txt\n2. Read the file again to check"}`).
			Finish("tool_use", 30).Response(),
		reply().Text("The plan is ready for you.").Finish("end_turn", 10).Response(),
		reply().ToolUse("toolu_fix", "edit_file", `{"path":"notes.txt","old":"teh","new":"the"}`).Finish("tool_use", 30).Response(),
		reply().Text("Fixed the typo.").Finish("end_turn", 10).Response(),
		// @agent-explorer: the worker's answer, then the main agent loads a skill and answers.
		reply().Text("notes.txt, at the top of the folder.").Finish("end_turn", 10).Response(),
		reply().ToolUse("toolu_skill", "skill", `{"name":"changelog"}`).Finish("tool_use", 20).Response(),
		reply().Text("The explorer found **notes.txt**; I will note the fix in the changelog style.").Finish("end_turn", 10).Response(),
	)
	bin := headlessBin(t, ctx, root)
	dataDir, workspace := apptest.Dirs(t)
	writeTree(t, workspace, map[string]string{
		"notes.txt": "teh notes\n",
		".claude/commands/review.md": "---\ndescription: Review a file for typos\nargument-hint: <what to look for>\n---\n" +
			"Review @notes.txt for $ARGUMENTS.\n",
		".agenthub/agents/explorer.md":      "---\nname: explorer\ndescription: Finds where things are\ntools: Read, Grep\n---\nAnswer with paths.\n",
		".claude/commands/deploy.md":        "---\ndescription: Deploy the notes\n---\nDeploy them. First: !`echo deployed`\n",
		".claude/skills/changelog/SKILL.md": "---\nname: changelog\ndescription: Writes changelog entries in the house style\n---\nCHANGELOG SKILL: one line per change, past tense.\n",
	})
	home := t.TempDir() // the user's own folders: empty
	env := []string{"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=test-key", "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}
	info, stop := launchHeadless(t, ctx, bin, dataDir, workspace, env, "--approval-mode", "ask")
	t.Cleanup(func() { stop() })
	restart := func() string {
		stop()
		var again dashboardInfo
		again, stop = launchHeadless(t, ctx, bin, dataDir, workspace, env, "--approval-mode", "ask")
		return again.URL
	}
	runScenarioWith(t, ctx, root, node, "workflows.e2e.mjs", info, nil, actions{"restart": restart})
	if b, err := os.ReadFile(filepath.Join(workspace, "notes.txt")); err != nil || string(b) != "the notes\n" {
		t.Errorf("notes.txt after Build it = %q (%v)", b, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 9 {
		t.Fatalf("the provider got %d requests, want 9", len(reqs))
	}
	worker := string(reqs[6].Body)
	if !strings.Contains(worker, "Answer with paths.") || !strings.Contains(worker, `"name":"read_file"`) || strings.Contains(worker, `"name":"write_file"`) {
		t.Errorf("the explorer's request is not the agent's (its prompt, read_file and grep only):\n%s", worker)
	}
	if strings.Contains(string(reqs[7].Body), "CHANGELOG SKILL") || !strings.Contains(string(reqs[8].Body), "CHANGELOG SKILL") {
		t.Error("the skill's body was sent before the model loaded it, or not after")
	}
}

// writeTree creates each file (and its folders) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
