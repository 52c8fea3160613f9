package main

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
	"time"

	"agenthub/app/apptest"
)

// target is one system under measurement: Agent Hub's real binary or a
// floor. Each runs as its own process so its CPU and memory are its own.
type target interface {
	name() string
	pid() int
	// connect opens n reading clients ready for the next burst.
	connect(ctx context.Context, n int) ([]*client, error)
	// fire starts the next burst (the provider has it queued if needed).
	fire(ctx context.Context, b burst) error
	// release closes the clients of a finished run.
	release(cls []*client)
	stop()
}

// proc is a child process that prints one line naming where it listens.
type proc struct {
	cmd  *exec.Cmd
	line string
}

func startProc(ctx context.Context, want *regexp.Regexp, env []string, name string, args ...string) (*proc, []string, error) {
	return startProcIn(ctx, "", os.Stderr, want, env, name, args...)
}

// startProcIn is startProc in working directory dir ("" for the bench's),
// the process's stderr going to stderr.
func startProcIn(ctx context.Context, dir string, stderr io.Writer, want *regexp.Regexp, env []string, name string, args ...string) (*proc, []string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("start %s: %w", name, err)
	}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if m := want.FindStringSubmatch(sc.Text()); m != nil {
			go func() { _, _ = io.Copy(io.Discard, out) }()
			return &proc{cmd: cmd, line: sc.Text()}, m, nil
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, nil, fmt.Errorf("%s exited before saying where it listens", name)
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) stop() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// ---- the floors ----

type floorTarget struct {
	*proc
	role, addr string
	prov       *provider
}

var listening = regexp.MustCompile(`^listening (\S+)$`)

// startFloor starts the floor role; dataDir is the durable floor's log
// folder ("" for the others).
func startFloor(ctx context.Context, role, upstream, dataDir string, prov *provider) (*floorTarget, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p, m, err := startProc(ctx, listening, os.Environ(), self, "-role", role, "-upstream", upstream, "-floor-data", dataDir)
	if err != nil {
		return nil, err
	}
	return &floorTarget{proc: p, role: role, addr: m[1], prov: prov}, nil
}

func (f *floorTarget) name() string {
	switch f.role {
	case "push":
		return "floor (a): bare WebSocket push"
	case "durable":
		return "floor (c): SSE → commit (bbolt, fsync) → WebSocket"
	}
	return "floor (b): SSE → WebSocket relay"
}

func (f *floorTarget) connect(ctx context.Context, n int) ([]*client, error) {
	var cls []*client
	for range n {
		c, err := dial(ctx, "ws://"+f.addr+"/ws", "")
		if err != nil {
			return nil, err
		}
		cls = append(cls, c)
	}
	// Wait until the floor has registered every client.
	for {
		res, err := http.Get("http://" + f.addr + "/clients")
		if err != nil {
			return nil, err
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if string(b) == fmt.Sprint(n) {
			return cls, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (f *floorTarget) fire(ctx context.Context, b burst) error {
	if f.role != "push" {
		f.prov.enqueue(b)
	}
	res, err := http.Post(fmt.Sprintf("http://%s/go?n=%d&rate=%d", f.addr, b.n, b.rate), "text/plain", nil)
	if err != nil {
		return err
	}
	res.Body.Close()
	return nil
}

func (f *floorTarget) release(cls []*client) {
	closeAll(cls)
	if res, err := http.Get("http://" + f.addr + "/reset"); err == nil {
		res.Body.Close()
	}
}

// ---- Agent Hub ----

type hubTarget struct {
	*proc
	base, token string
	prov        *provider
	session     string
	dataDir     string
	sameSession bool // connect reuses the session (bench -only -same-session)
}

var dashboardLine = regexp.MustCompile(`^dashboard: (http://127\.0\.0\.1:\d+)/\?token=([0-9a-f]{64})$`)

func startHub(ctx context.Context, bin, upstream, root string, prov *provider) (*hubTarget, error) {
	data, ws := filepath.Join(root, "data"), filepath.Join(root, "ws")
	for _, d := range []string{data, ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	env := append(apptest.Env(), "ANTHROPIC_BASE_URL="+upstream, "ANTHROPIC_API_KEY=bench-key")
	if g := os.Getenv("BENCH_HUB_GOGC"); g != "" {
		env = append(env, "GOGC="+g) // the hub's GC setting alone, the harness's unchanged
	}
	p, m, err := startProc(ctx, dashboardLine, env, bin, "--headless", "--listen", "127.0.0.1:0",
		"--data-dir", data, "--workspace", ws, "--model", "anthropic:claude-sonnet-4-6")
	if err != nil {
		return nil, err
	}
	return &hubTarget{proc: p, base: m[1], token: m[2], prov: prov, dataDir: data}, nil
}

func (h *hubTarget) name() string { return "Agent Hub (real binary)" }

func (h *hubTarget) call(ctx context.Context, method, path string, body, out any) error {
	return callJSON(ctx, method, h.base+path, h.token, body, out)
}

// callJSON sends body (nil: none) as JSON to url and decodes a 2xx answer
// into out (nil: the answer is dropped); token, when set, goes as a bearer
// token. Another status is an error with the answer's body.
func callJSON(ctx context.Context, method, url, token string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// closeAll closes a run's clients.
func closeAll(cls []*client) {
	for _, c := range cls {
		c.close()
	}
}

// connect starts a fresh session (so no run pays for an earlier run's
// history) and attaches n dashboard clients to it.
func (h *hubTarget) connect(ctx context.Context, n int) ([]*client, error) {
	var s struct {
		ID string `json:"session_id"`
	}
	if h.sameSession && h.session != "" {
		s.ID = h.session
	} else if err := h.call(ctx, http.MethodPost, "/sessions", map[string]string{"title": "bench"}, &s); err != nil {
		return nil, err
	}
	h.session = s.ID
	var cls []*client
	for range n {
		var a struct {
			WSURL string `json:"ws_url"`
		}
		if err := h.call(ctx, http.MethodGet, "/sessions/"+s.ID, nil, &a); err != nil {
			return nil, err
		}
		c, err := dial(ctx, a.WSURL, h.token)
		if err != nil {
			return nil, err
		}
		if err := c.subscribe(ctx); err != nil {
			return nil, err
		}
		cls = append(cls, c)
	}
	return cls, nil
}

func (h *hubTarget) fire(ctx context.Context, b burst) error {
	h.prov.enqueue(b)
	return h.call(ctx, http.MethodPost, "/sessions/"+h.session+"/turns", map[string]string{"content": "bench"}, nil)
}

func (h *hubTarget) release(cls []*client) { closeAll(cls) }
