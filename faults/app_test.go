// Package faults attacks the real headless binary from outside, as a user's
// bad day would: kill -9 mid-stream, reconnect storms, clients that stop
// reading, provider failures, hostile tools (FIFOs, setsid, huge output),
// connection floods and a soak. A short version runs inside `go test ./...`
// (and so `make test`); `make faults` runs the long one (AGENTHUB_FAULTS=long)
// and writes the figures to AGENTHUB_FAULTS_REPORT (docs/reliability.md
// quotes them). Nothing here sleeps to synchronise: every wait is on an
// event, bounded by a guard that only a bug would reach.
package faults

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/mcp/mcptest"
)

// guard bounds a wait that only a bug makes long.
const guard = 30 * time.Second

const model = "claude-sonnet-4-6"

// long reports whether the long fault run was asked for (make faults).
func long() bool { return os.Getenv("AGENTHUB_FAULTS") == "long" }

// scale picks the short or the long figure.
func scale[T any](short, lng T) T {
	if long() {
		return lng
	}
	return short
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// TestMain removes the binary a plain `go test` built.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the MCP test (mcp_test.go) runs this binary as a stdio server
	code := m.Run()
	if err := rep.write(); err != nil {
		fmt.Fprintln(os.Stderr, "faults: writing the report:", err)
		code = 1
	}
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// binary returns the headless binary: AGENTHUB_HEADLESS_BIN (make test
// builds it once), else one built here for the whole package.
func binary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("AGENTHUB_HEADLESS_BIN"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "agenthub-faults-")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "agenthub")
		cmd := exec.Command("go", "build", "-o", builtBin, "..")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

var dashboardLine = regexp.MustCompile(`^dashboard: (http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]{64})$`)

// dirs is one instance's data dir and workspace, kept across restarts.
type dirs struct{ data, workspace string }

func newDirs(t *testing.T) dirs {
	t.Helper()
	root := t.TempDir()
	d := dirs{filepath.Join(root, "data"), filepath.Join(root, "ws")}
	for _, p := range []string{d.data, d.workspace} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// instance is the running binary.
type instance struct {
	t      *testing.T
	cmd    *exec.Cmd
	base   string
	token  string
	stderr *apptest.Buffer
	exited chan struct{}
	err    error
	ready  time.Duration // start → dashboard line
}

// start runs the binary headless on d with the fake provider at llmURL and
// extra flags; it returns once the dashboard line is printed.
func start(t *testing.T, d dirs, llmURL string, flags ...string) *instance {
	t.Helper()
	// Tool calls run without asking unless a test asks for approvals
	// (approval_test.go passes --approval-mode ask; the last flag wins).
	args := append([]string{"--headless", "--listen", "127.0.0.1:0", "--data-dir", d.data, "--workspace", d.workspace,
		"--model", "anthropic:" + model, "--approval-mode", "auto-all"}, flags...)
	in := &instance{t: t, stderr: &apptest.Buffer{}, exited: make(chan struct{})}
	in.cmd = exec.Command(binary(t), args...)
	in.cmd.Env = append(apptest.Env(), "ANTHROPIC_BASE_URL="+llmURL, "ANTHROPIC_API_KEY=fault-key")
	in.cmd.Stderr = in.stderr
	stdout, err := in.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if err := in.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 4)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	go func() {
		in.err = in.cmd.Wait()
		close(in.exited)
	}()
	t.Cleanup(func() {
		if t.Failed() && in.cmd.Process != nil {
			// SIGQUIT: the Go runtime prints every goroutine's stack, then exits.
			_ = in.cmd.Process.Signal(syscall.SIGQUIT)
			select {
			case <-in.exited:
			case <-time.After(5 * time.Second):
			}
		}
		in.kill9()
		if t.Failed() {
			full := in.stderr.String()
			// The whole log (with the SIGQUIT goroutine dump) goes to a
			// file; the test log gets its tail.
			if f, err := os.CreateTemp("", "agenthub-faults-"+t.Name()+"-*.stderr"); err == nil {
				_, _ = f.WriteString(full)
				_ = f.Close()
				t.Logf("agenthub stderr, whole: %s", f.Name())
			}
			t.Logf("agenthub stderr (tail):\n%s", tail(full, 30000))
		}
	})
	select {
	case line, ok := <-lines:
		m := dashboardLine.FindStringSubmatch(line)
		if !ok || m == nil {
			t.Fatalf("no dashboard line (got %q); stderr:\n%s", line, in.stderr.String())
		}
		in.base, in.token, in.ready = m[1], m[2], time.Since(began)
	case <-time.After(guard):
		t.Fatalf("no dashboard line within %s; stderr:\n%s", guard, in.stderr.String())
	}
	return in
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// kill9 kills the process without warning and waits for it.
func (in *instance) kill9() {
	if in.cmd.Process != nil {
		_ = in.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-in.exited
}

// terminate sends SIGTERM and returns how long the process took to exit.
func (in *instance) terminate() time.Duration {
	in.t.Helper()
	began := time.Now()
	_ = in.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-in.exited:
		return time.Since(began)
	case <-time.After(guard):
		in.t.Fatalf("SIGTERM: still running after %s", guard)
	}
	return 0
}

// call makes an authenticated JSON request and decodes a 2xx answer into out.
func (in *instance) call(method, path string, body, out any) int {
	in.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, in.base+path, rd)
	if err != nil {
		in.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+in.token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		in.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if out != nil && res.StatusCode/100 == 2 {
		if err := json.Unmarshal(b, out); err != nil {
			in.t.Fatalf("%s %s: decode %s: %v", method, path, b, err)
		}
	}
	return res.StatusCode
}

// session creates a session and returns its id.
func (in *instance) session() string {
	in.t.Helper()
	var s struct {
		ID string `json:"session_id"`
	}
	if c := in.call(http.MethodPost, "/sessions", map[string]string{"title": "faults"}, &s); c != http.StatusCreated {
		in.t.Fatalf("create session: %d", c)
	}
	return s.ID
}

// submit starts a turn and returns its id.
func (in *instance) submit(sid, content string) string {
	in.t.Helper()
	var r struct {
		TurnID string `json:"turn_id"`
	}
	if c := in.call(http.MethodPost, "/sessions/"+sid+"/turns", map[string]string{"content": content}, &r); c != http.StatusAccepted {
		in.t.Fatalf("submit: %d", c)
	}
	return r.TurnID
}

// rss returns the process's resident set size in bytes (0 if unknown).
func (in *instance) rss() int64 { return in.status("VmRSS:") }

// rssAnon returns the anonymous part of the resident set (heap, stacks —
// without the file pages of the mmap'd database, which the kernel can
// drop at will).
func (in *instance) rssAnon() int64 { return in.status("RssAnon:") }

// status reads one kB figure of /proc/PID/status, in bytes.
func (in *instance) status(field string) int64 {
	return apptest.ProcKB(in.cmd.Process.Pid, "status", field)
}

// fileSize returns the size of path (0 if missing).
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
