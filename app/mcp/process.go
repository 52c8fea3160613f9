package mcp

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"agenthub/app/sandbox"
)

// MarkerEnv marks every process of a stdio server (value: a random token
// per start, recorded in the server's pid file), so the next start can find
// and kill what a kill -9 of the app left behind.
const MarkerEnv = "AGENTHUB_MCP_SERVER"

// stderrTailBytes bounds the stderr kept per server.
const stderrTailBytes = 4 << 10

// tail keeps the last stderrTailBytes written to it. Safe for concurrent use.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - stderrTailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// process is a started stdio server: the leader of its own process group
// (Unix) or the first process of its job object (Windows). One goroutine
// waits for the leader; stop ends the tree and reaps what is ours, never
// any other pid.
type process struct {
	cmd    *exec.Cmd
	tree   tree
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *tail
	marker string
	pids   *pidFiles

	exited  chan struct{} // closed once the leader is reaped
	waitErr error         // the leader's exit; valid after exited
	once    sync.Once
}

// startProcess starts c's command with MarkerEnv set, in a new process
// group that receives SIGKILL when the app dies (Linux) or in a job object
// the kernel ends with the app (Windows), and records it in pids.
func startProcess(name string, c ServerConfig, pids *pidFiles) (*process, error) {
	marker := newMarker()
	cmd := exec.Command(c.Command, c.Args...)
	cmd.Dir = c.Cwd
	// An explicit environment, as bash gets: the configured env on top of
	// PATH, HOME, locale and the like — never the app's credentials.
	cmd.Env = append(sandbox.BaseEnv(os.Environ(), c.Env), MarkerEnv+"="+marker)
	if tmp := os.Getenv("TMPDIR"); tmp != "" && c.Env["TMPDIR"] == "" {
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	}
	p := &process{cmd: cmd, stderr: &tail{}, marker: marker, pids: pids, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	if p.tree, err = startTree(cmd); err != nil {
		return nil, fmt.Errorf("start %s: %w", c.Command, err)
	}
	if err := pids.add(name, p.tree.id(), marker); err != nil {
		p.stop(0)
		return nil, err
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func newMarker() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// exitText says how the leader ended ("" while it runs).
func (p *process) exitText() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	if p.waitErr == nil {
		return "exited with status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.ProcessState.String()
	}
	return p.waitErr.Error()
}

// stop ends the server: stdin closed, then up to grace for it to exit on
// its own, SIGTERM to the group, one more grace, SIGKILL (Windows: the
// job terminated at once); then the rest of the tree is killed and reaped
// and the pid file removed. Idempotent; it returns once the leader is
// reaped.
func (p *process) stop(grace time.Duration) {
	p.once.Do(func() {
		_ = p.stdin.Close()
		if !waitClosed(p.exited, grace) {
			if p.tree.terminate() && !waitClosed(p.exited, grace) {
				p.tree.kill()
			}
		}
		<-p.exited
		// The leader is reaped: its tree's other members die with it.
		p.tree.finish()
		killMarked(p.marker)
		p.pids.remove(p.tree.id())
	})
}

// waitClosed waits up to d for ch to close and reports whether it did.
func waitClosed(ch <-chan struct{}, d time.Duration) bool {
	if d <= 0 {
		select {
		case <-ch:
			return true
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}
