package mcp

import (
	"log/slog"
	"os/exec"
	"time"

	"agenthub/app/jobobject"
)

// tree is a server's job object (app/jobobject): every process the server
// starts is in it, and the kernel ends them all when the app dies, so the
// pid files have nothing to sweep on Windows.
type tree struct {
	pid int
	job *jobobject.Job
}

// startTree starts cmd inside a new job, without a console window.
func startTree(cmd *exec.Cmd) (tree, error) {
	job, err := jobobject.Start(cmd)
	if err != nil {
		return tree{}, err
	}
	return tree{pid: cmd.Process.Pid, job: job}, nil
}

// id names the tree in the pid files: the first process's pid.
func (t tree) id() int { return t.pid }

// terminate ends the job at once (Windows has no SIGTERM for a console
// program); nothing is left for a kill.
func (t tree) terminate() bool {
	t.kill()
	return false
}

// kill terminates every process of the job.
func (t tree) kill() {
	if err := t.job.Terminate(); err != nil {
		slog.Warn("mcp: terminating the job", "err", err)
	}
}

// finish ends what is left once the leader has exited and closes the job,
// waiting (at most a second) for the job to be empty.
func (t tree) finish() {
	t.kill()
	t.job.WaitEmpty(time.Second)
	t.job.Close()
}

// killMarked finds nothing on Windows: the job objects end every server's
// tree with the app.
func killMarked(string) int { return 0 }
