package faults

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/confine/confinetest"
	"agenthub/app/llm/llmtest"
)

// toolCalls is a reply calling the tools (id, name, input JSON).
func toolCalls(llm *llmtest.Server, calls ...[3]string) {
	s := llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 50, Output: 1})
	for _, c := range calls {
		s.ToolUse(c[0], c[1], c[2])
	}
	llm.Enqueue(s.Finish("tool_use", 10).Response())
}

// toolTurn is toolCalls followed by the final text the model gives once
// it has the results.
func toolTurn(llm *llmtest.Server, calls ...[3]string) {
	toolCalls(llm, calls...)
	llm.Enqueue(llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 60, Output: 1}).Text("done").Finish("end_turn", 1).Response())
}

// toolEnds returns tool.completed/tool.failed payloads by tool_use_id.
func toolEnds(evs []event) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range evs {
		if e.Type == "tool.completed" || e.Type == "tool.failed" {
			var p map[string]any
			_ = json.Unmarshal(e.Payload, &p)
			p["event"] = e.Type
			out[p["tool_use_id"].(string)] = p
		}
	}
	return out
}

// processesWith lists live processes whose command line contains arg.
func processesWith(arg string) []string {
	var out []string
	names, _ := os.ReadDir("/proc")
	for _, n := range names {
		b, err := os.ReadFile("/proc/" + n.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), arg) {
			out = append(out, n.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// TestHostileTools: a FIFO in the workspace, processes that escape with
// setsid or a double fork, and a 200 MB output. Nothing wedges (the turns
// end and the next one runs), nothing escapes (no process outlives its
// command or cancel), nothing grows without bound (the log and the output
// file stay within --tool-output-log and --tool-output-max), and SIGTERM
// ends the app in seconds while a command runs.
func TestHostileTools(t *testing.T) {
	d := newDirs(t)
	confinetest.MakeFIFO(t, filepath.Join(d.workspace, "ff"))
	if err := os.WriteFile(filepath.Join(d.workspace, "note.txt"), []byte("needle\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	llm := llmtest.NewServer(t)
	in := start(t, d, llm.URL, "--tool-output-log", "1MiB", "--tool-output-max", "8MiB")
	sid := in.session()
	cl, _ := in.attach(sid, "")

	// 1. The FIFO: every file tool returns; the turn ends.
	toolTurn(llm, [3]string{"t_read", "read_file", `{"path":"ff"}`}, [3]string{"t_edit", "edit_file", `{"path":"ff","old":"a","new":"b"}`},
		[3]string{"t_grep", "grep", `{"pattern":"needle"}`})
	in.submit(sid, "fifo")
	ends := toolEnds(cl.until("the FIFO turn's end", turnEnded))
	if ends["t_read"]["event"] != "tool.failed" || ends["t_edit"]["event"] != "tool.failed" || ends["t_grep"]["event"] != "tool.completed" {
		t.Fatalf("FIFO tool results: %v", ends)
	}

	// 2. Escaping processes: setsid -f, and a double fork + setsid, both
	// still running when the command ends.
	const mark = "1234.5678"
	toolTurn(llm, [3]string{"t_setsid", "bash", fmt.Sprintf(`{"command":"setsid -f sleep %s; ( ( setsid sleep %s1 & ) & ); echo started"}`, mark, mark)})
	in.submit(sid, "escape")
	cl.until("the escape turn's end", turnEnded)
	if ps := processesWith(mark); len(ps) > 0 {
		t.Fatalf("processes outlived their command: %v", ps)
	}

	// 3. Cancel while an escaped process and the command run.
	toolCalls(llm, [3]string{"t_cancel", "bash", fmt.Sprintf(`{"command":"setsid -f sleep %s2; sleep 1000"}`, mark)})
	in.submit(sid, "cancel me")
	cl.until("the command to start", func(e event) bool { return e.Type == "tool.called" })
	if c := in.call(http.MethodPost, "/sessions/"+sid+"/cancel", map[string]string{}, nil); c/100 != 2 {
		t.Fatalf("cancel: %d", c)
	}
	began := time.Now()
	cl.until("the cancelled turn's end", turnEnded)
	cancelTook := time.Since(began)
	if ps := processesWith(mark); len(ps) > 0 {
		t.Fatalf("processes outlived the cancel: %v", ps)
	}

	// 4. 200 MB of output: bounded in the log and on disk.
	dbPath := filepath.Join(d.data, "agenthub.db")
	before := fileSize(dbPath)
	toolTurn(llm, [3]string{"t_huge", "bash", `{"command":"head -c 200000000 /dev/zero | tr '\\0' 'x'"}`})
	in.submit(sid, "huge")
	evs := cl.until("the huge turn's end", turnEnded)
	if p := toolEnds(evs)["t_huge"]; p["event"] != "tool.completed" {
		t.Fatalf("the huge command: %v", p)
	}
	streamed := 0
	for _, e := range evs {
		if e.Type == "tool.output_delta" {
			var p struct{ Text string }
			_ = json.Unmarshal(e.Payload, &p)
			streamed += len(p.Text)
		}
	}
	growth := fileSize(dbPath) - before
	out := filepath.Join(d.data, "tool-output", sid, "t_huge.log")
	onDisk := fileSize(out)
	if streamed > 1<<20+64<<10 || onDisk > 8<<20+1<<10 || growth > 16<<20 {
		t.Fatalf("200 MB output: %d bytes streamed (cap 1 MiB + tail), %d on disk (cap 8 MiB), database grew %d", streamed, onDisk, growth)
	}

	// 5. SIGTERM while a command runs.
	toolCalls(llm, [3]string{"t_long", "bash", `{"command":"sleep 1000"}`})
	in.submit(sid, "long")
	cl.until("the long command to start", func(e event) bool { return e.Type == "tool.called" })
	exit := in.terminate()
	if exit > 10*time.Second {
		t.Fatalf("SIGTERM took %s", exit)
	}
	rep.add("FIFO in the workspace (read_file, edit_file, grep)", "refused/skipped at once; the turn ended and the next ones ran")
	rep.add("setsid -f, double fork + setsid, cancel with an escaped process", fmt.Sprintf("0 processes left after the command's end and after cancel (cancel → turn end %s)", cancelTook.Round(time.Millisecond)))
	rep.add("200 MB bash output, --tool-output-log 1MiB --tool-output-max 8MiB",
		fmt.Sprintf("%s streamed into the log, %s output file, database grew %s", mb(int64(streamed)), mb(onDisk), mb(growth)))
	rep.add("SIGTERM while a command runs", fmt.Sprintf("exited in %s", exit.Round(time.Millisecond)))
}
