package hub_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agenthub/app/apptest"
	"agenthub/app/llm"
	"agenthub/app/llm/llmtest"
	"agenthub/ipc"
	"agenthub/store"
)

// call is a scripted tool call block.
func call(id, name, input string) llmtest.Block {
	return llmtest.Block{ToolID: id, ToolName: name, ToolInput: []string{input}}
}

// toolNames are the tools a request offered, in order.
func toolNames(r llm.Request) []string {
	var out []string
	for _, t := range r.Tools {
		out = append(out, t.Name)
	}
	return out
}

// requestText is every text block of a request's messages.
func requestText(r llm.Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString(store.TextOf(m.Content))
		b.WriteString("\n")
	}
	return b.String()
}

// endOfTurn collects the session's events up to its turn's end.
func endOfTurn(w *watcher, sid string) []ev {
	start := len(w.got)
	w.turnEnd(sid)
	return w.got[start:]
}

// byCall maps the payload of each event of type typ in es to its call.
func byCall[T any](t *testing.T, es []ev, typ string, id func(T) string) map[string]T {
	out := map[string]T{}
	for _, e := range es {
		if e.Type == typ {
			var p T
			e.decode(t, &p)
			out[id(p)] = p
		}
	}
	return out
}

// failures maps each tool.failed of es to its call.
func failures(t *testing.T, es []ev) map[string]ipc.ToolFailed {
	return byCall(t, es, ipc.TypeToolFailed, func(f ipc.ToolFailed) string { return f.ToolUseID })
}

// completions maps each tool.completed of es to its call.
func completions(t *testing.T, es []ev) map[string]ipc.ToolCompleted {
	return byCall(t, es, ipc.TypeToolCompleted, func(c ipc.ToolCompleted) string { return c.ToolUseID })
}

// Plan mode: the model's edit, its write and a bash line that writes are
// refused with a reason it reads (the session's mode is auto-all
// otherwise: every one of them would have run), a line that only reads
// runs, and present_plan stores the plan with the session.
func TestPlanModeRefusesEditsAndWritingBash(t *testing.T) {
	h := newHarness(t, sandboxed(t))
	if err := os.WriteFile(filepath.Join(h.ws, "notes.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := h.session()
	h.setMode(s.ID, "plan")
	w := h.watch(s.ID, false)
	script := h.scripted(
		llmtest.Reply{Blocks: []llmtest.Block{
			call("tu_edit", "edit_file", `{"path":"notes.txt","old":"alpha","new":"BETA"}`),
			call("tu_write", "write_file", `{"path":"new.txt","content":"x"}`),
			call("tu_touch", "bash", `{"command":"touch made.txt"}`),
			call("tu_sneak", "bash", `{"command":"cat notes.txt > copy.txt"}`),
			call("tu_cat", "bash", `{"command":"cat notes.txt | wc -l"}`),
		}},
		llmtest.ToolReply("tu_plan", "present_plan", `{"plan":"1. Change alpha to BETA in notes.txt\n2. Check it"}`),
		llmtest.TextReply("The plan is ready."),
	)
	h.submit(s.ID, "Change alpha to BETA")
	es := endOfTurn(w, s.ID)
	failed := failures(t, es)
	for _, id := range []string{"tu_edit", "tu_write", "tu_touch", "tu_sneak"} {
		f, ok := failed[id]
		if !ok || f.ErrorClass != ipc.ToolErrDenied || !strings.Contains(f.Message, "plan mode") {
			t.Errorf("%s: %+v (ran: %v), want denied in plan mode", id, f, !ok)
		}
	}
	done := completions(t, es)
	if c := done["tu_cat"]; strings.TrimSpace(c.Output) != "1" {
		t.Errorf("the reading line: %+v", c)
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "notes.txt")); string(b) != "alpha\n" {
		t.Errorf("notes.txt = %q", b)
	}
	for _, f := range []string{"new.txt", "made.txt", "copy.txt"} {
		if fileExists(h.ws, f) {
			t.Errorf("%s was made in plan mode", f)
		}
	}
	rec, _ := h.hub.GetSession(context.Background(), s.ID)
	if rec.Plan == nil || rec.Plan.Status != store.PlanProposed || rec.Plan.ToolUseID != "tu_plan" ||
		rec.Plan.Text != "1. Change alpha to BETA in notes.txt\n2. Check it" {
		t.Fatalf("the session's plan: %+v", rec.Plan)
	}
	first := script.Requests()[0]
	if !strings.Contains(first.System, "plan mode") || !slices.Contains(toolNames(first), "present_plan") {
		t.Errorf("the first request does not say plan mode or offer present_plan: tools %v", toolNames(first))
	}
}

// "Build it" continues the same session: the session leaves plan mode for
// the mode chosen, the plan (as the user edited it) is the message of the
// next turn, whose model sees the planning turn too, and the accepted
// plan stays with the session after a restart.
func TestBuildItContinuesTheSameSession(t *testing.T) {
	h := newHarness(t)
	s := h.session()
	ctx := context.Background()
	h.setMode(s.ID, "plan")
	w := h.watch(s.ID, false)
	script := h.scripted(
		llmtest.ToolReply("tu_plan", "present_plan", `{"plan":"Write hello.txt"}`),
		llmtest.TextReply("Planned."),
		llmtest.ToolReply("tu_build", "write_file", `{"path":"hello.txt","content":"hello\n"}`),
		llmtest.TextReply("Built."),
	)
	h.submit(s.ID, "Plan a greeting file")
	endOfTurn(w, s.ID)
	if _, err := h.hub.BuildPlan(ctx, s.ID, ipc.BuildPlanRequest{Mode: "plan"}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Errorf("building in plan mode: %v", err)
	}
	edited := "Write hello.txt with one line: hello"
	res, err := h.hub.BuildPlan(ctx, s.ID, ipc.BuildPlanRequest{Mode: "auto-edits", Plan: &edited})
	if err != nil {
		t.Fatal(err)
	}
	es := endOfTurn(w, s.ID)
	if es[len(es)-1].TurnID == nil || *es[len(es)-1].TurnID != res.TurnID {
		t.Fatalf("the build turn is not the one that ended")
	}
	if c := completions(t, es)["tu_build"]; c.ToolUseID == "" || !fileExists(h.ws, "hello.txt") {
		t.Fatalf("the build turn's write did not run: %v", types(es))
	}
	reqs := script.Requests()
	build := requestText(reqs[2])
	if !strings.Contains(build, "Plan a greeting file") || !strings.Contains(build, "<plan>\n"+edited+"\n</plan>") ||
		!strings.Contains(build, "edited and approved") {
		t.Errorf("the build request lacks the planning turn or the edited plan:\n%s", build)
	}
	if strings.Contains(reqs[2].System, "plan mode") || slices.Contains(toolNames(reqs[2]), "present_plan") {
		t.Error("the build turn still runs in plan mode")
	}
	check := func(rec store.Session) {
		t.Helper()
		p := rec.Plan
		if rec.ApprovalMode != "auto-edits" || p == nil || p.Status != store.PlanAccepted || p.Mode != "auto-edits" ||
			!p.Edited || p.Text != edited || p.TurnID != res.TurnID || p.ToolUseID != "tu_plan" {
			t.Fatalf("session after Build it: mode %s, plan %+v", rec.ApprovalMode, p)
		}
	}
	rec, _ := h.hub.GetSession(ctx, s.ID)
	check(rec)
	if _, err := h.hub.BuildPlan(ctx, s.ID, ipc.BuildPlanRequest{Mode: "ask"}); !errors.Is(err, ipc.ErrInvalidInput) {
		t.Errorf("building the same plan twice: %v", err)
	}
	h.close()
	h.open()
	rec, _ = h.hub.GetSession(ctx, s.ID)
	check(rec)
}

// Plan mode's kernel guard reaches bash through the hub: a line the
// policy lets run (here a read-only rule the user wrote for a program that
// writes after all) still cannot change the workspace or read outside it,
// since the hub runs plan-mode bash with the workspace read-only
// (tool.Env.ReadOnly). The same call out of plan mode writes.
func TestPlanModeBashCannotWriteThroughAWrongRule(t *testing.T) {
	h := newHarness(t, sandboxed(t))
	ctx := context.Background()
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := h.session()
	rules := []ipc.PermissionRule{{Tool: "bash", Prefix: "touch", Action: "allow", ReadOnly: true}}
	if _, err := h.hub.SetPermissionRules(ctx, s.WorkspacePath, rules); err != nil {
		t.Fatal(err)
	}
	h.setMode(s.ID, "plan")
	w := h.watch(s.ID, false)
	h.scripted(
		llmtest.Reply{Blocks: []llmtest.Block{
			call("tu_touch", "bash", `{"command":"touch made.txt"}`),
			call("tu_cat", "bash", `{"command":"cat `+secret+`"}`),
		}},
		llmtest.TextReply("Done."),
		llmtest.ToolReply("tu_touch2", "bash", `{"command":"touch made.txt"}`),
		llmtest.TextReply("Done."),
	)
	h.submit(s.ID, "Look around")
	es := endOfTurn(w, s.ID)
	if fileExists(h.ws, "made.txt") {
		t.Fatal("plan-mode bash wrote the workspace")
	}
	for id, c := range completions(t, es) {
		if strings.Contains(c.Output, "s3cret") {
			t.Fatalf("%s: plan-mode bash read outside the workspace: %q", id, c.Output)
		}
	}
	if _, ran := failures(t, es)["tu_touch"]; !ran && completions(t, es)["tu_touch"].ToolUseID == "" {
		t.Fatalf("the touch line did not run at all (the rule should let it): %v", types(es))
	}
	h.setMode(s.ID, "auto-all")
	h.submit(s.ID, "Now make it")
	endOfTurn(w, s.ID)
	if !fileExists(h.ws, "made.txt") {
		t.Fatal("out of plan mode the same line did not write")
	}
}

// A worker started in plan mode plans too: the user approves the
// delegation, and the worker's edit and writing bash line are refused as
// its parent's would be (the session is auto-all underneath).
func TestPlanModeWorkerPlansToo(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	s := h.session()
	h.setMode(s.ID, "plan")
	w := h.watch(s.ID, true)
	h.scripted(
		llmtest.ToolReply("tu_del", "delegate", `{"task":"Make the change"}`),
		llmtest.Reply{Blocks: []llmtest.Block{
			call("tu_w", "write_file", `{"path":"made.txt","content":"x"}`),
			call("tu_b", "bash", `{"command":"touch touched.txt"}`),
		}},
		llmtest.TextReply("I could not change anything."),
		llmtest.TextReply("The worker only planned."),
	)
	h.submit(s.ID, "Change it")
	req := w.approvalRequest()
	if req.ToolName != "delegate" {
		t.Fatalf("asked for %+v", req)
	}
	if err := h.hub.ApproveTool(ctx, ipc.ApproveToolRequest{SessionID: s.ID, ToolUseID: req.ToolUseID, Decision: ipc.DecisionOnce}); err != nil {
		t.Fatal(err)
	}
	es := endOfTurn(w, s.ID)
	refused := 0
	for _, f := range failures(t, es) {
		if (f.ToolName == "write_file" || f.ToolName == "bash") && f.ErrorClass == ipc.ToolErrDenied && strings.Contains(f.Message, "plan mode") {
			refused++
		}
	}
	if refused != 2 || fileExists(h.ws, "made.txt") || fileExists(h.ws, "touched.txt") {
		t.Fatalf("the worker's calls: %d refused in plan mode; made %v, touched %v; %v", refused, fileExists(h.ws, "made.txt"), fileExists(h.ws, "touched.txt"), types(es))
	}
}

// A named agent's permissionMode only narrows: "plan" makes its worker
// plan inside an auto-all session, and "bypassPermissions" inside a
// plan-mode session leaves the worker planning.
func TestAgentPermissionModeOnlyNarrows(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	apptest.WriteFile(t, filepath.Join(h.ws, ".claude/agents/planner.md"), "---\nname: planner\ndescription: Plans\npermissionMode: plan\n---\nPlan.\n")
	apptest.WriteFile(t, filepath.Join(h.ws, ".claude/agents/yolo.md"), "---\nname: yolo\ndescription: Does anything\npermissionMode: bypassPermissions\n---\nDo it.\n")
	s := h.session()
	w := h.watch(s.ID, true)
	h.scripted(
		llmtest.ToolReply("tu_d1", "delegate", `{"task":"write a","agent":"planner"}`),
		llmtest.ToolReply("tu_w1", "write_file", `{"path":"a.txt","content":"x"}`),
		llmtest.TextReply("could not"),
		llmtest.TextReply("The planner only planned."),
		llmtest.ToolReply("tu_d2", "delegate", `{"task":"write b","agent":"yolo"}`),
		llmtest.ToolReply("tu_w2", "write_file", `{"path":"b.txt","content":"x"}`),
		llmtest.TextReply("could not either"),
		llmtest.TextReply("Still planning."),
	)
	// workerModes are the approval modes of the workers es started.
	workerModes := func(es []ev) []string {
		var out []string
		for _, e := range es {
			if e.Type == ipc.TypeDelegateStarted {
				var ds ipc.DelegateStarted
				e.decode(t, &ds)
				rec, _ := h.hub.GetSession(ctx, ds.WorkerSessionID)
				out = append(out, rec.ApprovalMode)
			}
		}
		return out
	}
	h.submit(s.ID, "Write a")
	es := endOfTurn(w, s.ID)
	if got := workerModes(es); !slices.Equal(got, []string{"plan"}) || fileExists(h.ws, "a.txt") {
		t.Fatalf("the planner's worker: modes %v, a.txt written %v", got, fileExists(h.ws, "a.txt"))
	}
	h.setMode(s.ID, "plan")
	h.submit(s.ID, "Write b")
	req := w.approvalRequest()
	if err := h.hub.ApproveTool(ctx, ipc.ApproveToolRequest{SessionID: s.ID, ToolUseID: req.ToolUseID, Decision: ipc.DecisionOnce}); err != nil {
		t.Fatal(err)
	}
	es = endOfTurn(w, s.ID)
	if got := workerModes(es); !slices.Equal(got, []string{"plan"}) || fileExists(h.ws, "b.txt") {
		t.Fatalf("the bypassing agent's worker in plan mode: modes %v, b.txt written %v", got, fileExists(h.ws, "b.txt"))
	}
}
