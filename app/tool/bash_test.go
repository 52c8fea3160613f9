//go:build unix

package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"agenthub/ipc/errclass"
)

var testOpts = Options{KillGrace: 200 * time.Millisecond}

func newBash(t testing.TB) Tool {
	tl, _ := Lookup(BuiltinsWithOptions(nil, testOpts), "bash")
	return tl
}

func assertGone(t *testing.T, pids []int) {
	t.Helper()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			state, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			t.Errorf("pid %d still exists after Run returned (kill: %v; stat %q)", pid, err, state)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func TestBashExitCodes(t *testing.T) {
	ws := t.TempDir()
	out := t.TempDir()
	env := Env{Workspace: ws, OutputDir: out, ToolUseID: "toolu_01"}
	res, err := newBash(t).Run(context.Background(), env, bashInputJSON("echo hello; echo oops >&2; pwd", 0))
	real, _ := filepath.EvalSymlinks(ws)
	if err != nil || res.IsError || res.Output != "hello\noops\n"+real+"\n" {
		t.Fatalf("res %+v err %v", res, err)
	}
	if res.StatusText != "Ran: echo hello; echo oops >&2; pwd" || !strings.Contains(res.Summary, "**Exit code:** 0") ||
		res.OutputPath != filepath.Join(out, "toolu_01.log") || res.OutputBytes != int64(len(res.Output)) {
		t.Errorf("layers %+v", res)
	}
	res, err = newBash(t).Run(context.Background(), env, bashInputJSON("echo failing; exit 3", 0))
	if err != nil || !res.IsError || !strings.HasSuffix(res.Output, "failing\n[exit code 3]\n") ||
		res.StatusText != "Failed (exit 3): echo failing; exit 3" || !strings.Contains(res.Summary, "**Exit code:** 3") {
		t.Errorf("exit 3: %+v %v", res, err)
	}
	res, err = newBash(t).Run(context.Background(), env, bashInputJSON("kill -KILL $$", 0))
	if err != nil || !res.IsError || !strings.Contains(res.Output, "[exit code 137: terminated by signal killed]") {
		t.Errorf("signalled: %+v %v", res, err)
	}
	res, err = newBash(t).Run(context.Background(), Env{Workspace: ws}, bashInputJSON("true", 0))
	if err != nil || res.Output != "(no output)\n" || res.OutputPath != "" {
		t.Errorf("no output: %+v %v", res, err)
	}
	for _, in := range []string{`{"command":""}`, `{"command":"x","timeout_ms":0}`, `{"command":"x","timeout_ms":600001}`, `{"cmd":"x"}`} {
		if _, err := newBash(t).Run(context.Background(), env, json.RawMessage(in)); errClass(err) != errclass.ToolInvalidInput {
			t.Errorf("%s: %v", in, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newBash(t).Run(ctx, env, bashInputJSON("touch should-not-exist", 0)); errClass(err) != errclass.ToolCancelled {
		t.Errorf("pre-cancelled: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "should-not-exist")); !os.IsNotExist(err) {
		t.Error("a pre-cancelled command ran")
	}
	if _, err := newBash(t).Run(context.Background(), Env{Workspace: filepath.Join(ws, "missing")}, bashInputJSON("true", 0)); errClass(err) != errclass.ToolExec {
		t.Errorf("missing workspace: %v", err)
	}
}

// runAsync starts a bash call whose command prints PIDs, and returns once
// they are printed.
func runAsync(t *testing.T, ctx context.Context, cmd string, timeoutMS int64, npids int) (pids []int, done chan error, res *Result) {
	t.Helper()
	return runAsyncWith(t, newBash(t), ctx, cmd, timeoutMS, npids)
}

func TestBashCancelKillsGroup(t *testing.T) {
	cases := map[string]struct {
		cmd   string
		npids int
	}{
		"sleep child":           {`echo $$; sleep 100 & echo $!; wait`, 2},
		"ignores SIGTERM":       {`trap '' TERM; echo $$; sleep 100 & echo $!; wait; wait; sleep 100`, 2},
		"background grandchild": {`bash -c 'sleep 100 & echo $!; sleep 100' & echo $! $$; wait`, 3},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pids, done, res := runAsync(t, ctx, c.cmd, 0, c.npids)
			cancel()
			err := <-done
			if errClass(err) != errclass.ToolCancelled {
				t.Fatalf("err %v", err)
			}
			if !strings.HasPrefix(res.StatusText, "Cancelled: ") || !strings.Contains(res.Output, "cancelled") {
				t.Errorf("result %+v", *res)
			}
			assertGone(t, pids)
		})
	}
}

func TestBashTimeout(t *testing.T) {
	pids, done, res := runAsync(t, context.Background(), `trap '' TERM; echo $$; sleep 100 & echo $!; wait; sleep 100`, 300, 2)
	err := <-done
	if errClass(err) != errclass.ToolTimeout || !strings.HasPrefix(res.StatusText, "Timed out: ") {
		t.Fatalf("err %v res %+v", err, *res)
	}
	assertGone(t, pids)
}

func TestBashBackgroundDoesNotOutliveCommand(t *testing.T) {
	pids, done, res := runAsync(t, context.Background(), `sleep 100 & echo $!; (trap '' TERM; sleep 100) & echo $!`, 0, 2)
	if err := <-done; err != nil || res.IsError {
		t.Fatalf("err %v res %+v", err, *res)
	}
	assertGone(t, pids)
}

func TestBashStreamingOrderAndCompleteness(t *testing.T) {
	// Mixed stdout/stderr, multi-byte characters, pauses so the time-based
	// flush fires, and more than FlushBytes so the size-based one does too.
	cmd := `for i in $(seq 1 2000); do echo "line $i é漢字🙂"; if [ $((i % 500)) = 0 ]; then echo "err $i" >&2; sleep 0.1; fi; done; printf 'no newline at end ✓'`
	rec := newRecorder(0)
	out := t.TempDir()
	env := Env{Workspace: t.TempDir(), OutputDir: out, ToolUseID: "stream", Output: rec.output}
	res, err := newBash(t).Run(context.Background(), env, bashInputJSON(cmd, 0))
	if err != nil || res.IsError {
		t.Fatalf("err %v res %+v", err, res)
	}
	full, _ := os.ReadFile(filepath.Join(out, "stream.log"))
	if rec.String() != string(full) {
		t.Fatalf("streamed %d bytes != file %d bytes", len(rec.String()), len(full))
	}
	if int64(len(full)) != res.OutputBytes || !strings.HasSuffix(string(full), "no newline at end ✓") {
		t.Errorf("file %d bytes, OutputBytes %d", len(full), res.OutputBytes)
	}
	if !strings.Contains(string(full), "line 500 é漢字🙂\nerr 500\nline 501") {
		t.Error("stderr not merged in order")
	}
	if rec.badUTF8 {
		t.Error("an Output call split a UTF-8 sequence")
	}
	if rec.calls < 2 {
		t.Errorf("output arrived in %d call(s); expected throttled streaming", rec.calls)
	}
	if !res.Truncated || !strings.Contains(res.Output, "bytes omitted; full output at "+filepath.Join(out, "stream.log")) {
		t.Errorf("long output not capped: %d bytes", len(res.Output))
	}
}

func TestBash35kLines(t *testing.T) {
	out := t.TempDir()
	rec := newRecorder(0)
	env := Env{Workspace: t.TempDir(), OutputDir: out, ToolUseID: "big", Output: rec.output}
	res, err := newBash(t).Run(context.Background(), env, bashInputJSON(`seq -f 'output line %g of the long command' 1 35000`, 0))
	if err != nil || res.IsError {
		t.Fatalf("err %v", err)
	}
	full, _ := os.ReadFile(filepath.Join(out, "big.log"))
	if n := strings.Count(string(full), "\n"); n != 35000 || int64(len(full)) != res.OutputBytes {
		t.Fatalf("file has %d lines / %d bytes (OutputBytes %d)", n, len(full), res.OutputBytes)
	}
	if rec.String() != string(full) {
		t.Error("streamed output differs from the file")
	}
	if !res.Truncated || len(res.Output) > DefaultHeadBytes+DefaultTailBytes+256 {
		t.Errorf("model output %d bytes, truncated %v", len(res.Output), res.Truncated)
	}
	omitted := res.OutputBytes - DefaultHeadBytes - DefaultTailBytes
	marker := fmt.Sprintf("[… %d bytes omitted; full output at %s …]", omitted, filepath.Join(out, "big.log"))
	if !strings.Contains(res.Output, marker) {
		t.Errorf("marker %q missing", marker)
	}
	if !strings.HasPrefix(res.Output, "output line 1 of") || !strings.HasSuffix(res.Output, "output line 35000 of the long command\n") {
		t.Error("head or tail missing")
	}
	if !strings.Contains(res.Summary, "35000 lines") || !strings.Contains(res.Summary, "Last 30 lines") {
		t.Errorf("summary %q", res.Summary)
	}
}

func TestToolsConcurrent(t *testing.T) {
	ws := t.TempDir()
	out := t.TempDir()
	write(t, filepath.Join(ws, "shared.txt"), "alpha\nbeta\n")
	tools := BuiltinsWithOptions(nil, testOpts)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := 0; i < 8; i++ {
		calls := []struct{ tool, input string }{
			{"bash", fmt.Sprintf(`{"command":"seq 1 3000; echo done %d"}`, i)},
			{"write_file", fmt.Sprintf(`{"path":"dir%d/f.txt","content":"n %d\n"}`, i%3, i)},
			{"read_file", `{"path":"shared.txt"}`},
			{"grep", `{"pattern":"beta"}`},
			{"glob", `{"pattern":"**/*.txt"}`},
			{"list_dir", `{"path":"."}`},
		}
		for j, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tl, _ := Lookup(tools, c.tool)
				var mu sync.Mutex
				var streamed strings.Builder
				env := Env{Workspace: ws, OutputDir: out, ToolUseID: fmt.Sprintf("c%d_%d", i, j),
					Output: func(_, s string) { mu.Lock(); streamed.WriteString(s); mu.Unlock() }}
				res, err := tl.Run(context.Background(), env, json.RawMessage(c.input))
				if err != nil || res.IsError {
					errs <- fmt.Errorf("%s: %v %+v", c.tool, err, res)
					return
				}
				if c.tool == "bash" && !strings.HasSuffix(streamed.String(), fmt.Sprintf("3000\ndone %d\n", i)) {
					errs <- fmt.Errorf("bash %d: streamed tail %q", i, streamed.String()[max(0, streamed.Len()-20):])
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkBashOutput35kLines measures a bash call producing 35,000 lines
// (~1.3 MB) with live streaming and the full output written to disk.
func BenchmarkBashOutput35kLines(b *testing.B) {
	ws, out := b.TempDir(), b.TempDir()
	tl := newBash(b)
	input := bashInputJSON(`seq -f 'output line %g of the long command' 1 35000`, 0)
	var bytes int64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		calls := 0
		env := Env{Workspace: ws, OutputDir: out, ToolUseID: "bench", Output: func(string, string) { calls++ }}
		res, err := tl.Run(context.Background(), env, input)
		if err != nil || !res.Truncated {
			b.Fatalf("err %v truncated %v", err, res.Truncated)
		}
		bytes = res.OutputBytes
	}
	b.SetBytes(bytes)
}

// BenchmarkCapture35kLines isolates the capture path (no process): 35,000
// lines written in 4 KiB chunks, streamed, capped, and logged to disk.
func BenchmarkCapture35kLines(b *testing.B) {
	var data []byte
	for i := 1; i <= 35000; i++ {
		data = fmt.Appendf(data, "output line %d of the long command\n", i)
	}
	dir := b.TempDir()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := newCapture(Options{}.withDefaults(), dir, "cap", "stdout", func(string, string) {})
		if err != nil {
			b.Fatal(err)
		}
		for off := 0; off < len(data); off += 4096 {
			c.Write(data[off:min(off+4096, len(data))])
		}
		c.finish()
		if _, trunc := c.modelText(); !trunc {
			b.Fatal("not truncated")
		}
	}
}

func TestBashLeaksNoDescriptors(t *testing.T) {
	count := func() int {
		entries, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd")
		}
		return len(entries)
	}
	env := Env{Workspace: t.TempDir(), OutputDir: t.TempDir(), ToolUseID: "fd", Output: func(string, string) {}}
	// Warm up once (the subreaper, runtime pollers).
	if _, err := newBash(t).Run(context.Background(), env, bashInputJSON("echo warm", 0)); err != nil {
		t.Fatal(err)
	}
	before := count()
	for i := 0; i < 20; i++ {
		if _, err := newBash(t).Run(context.Background(), env, bashInputJSON("echo hi; sleep 100 &", 0)); err != nil {
			t.Fatal(err)
		}
	}
	if after := count(); after > before {
		t.Errorf("open descriptors grew from %d to %d", before, after)
	}
}
