package tool

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"time"

	"agenthub/app/jobobject"
)

// procGroup is a started command and everything it starts, held in a
// Windows Job Object (app/jobobject): no process of the tree can leave
// the job, Terminate ends them all, and closing the job — at shutdown, or
// by the kernel when the app dies — ends whatever is left. It is the
// counterpart of the Unix process group plus marker scan (proc_unix.go):
// there is no escaping by setsid or a double fork here. Windows has no
// SIGTERM for console programs, so a cancel, a timeout or the end of the
// command terminates the tree at once.
type procGroup struct {
	cmd       *exec.Cmd
	job       *jobobject.Job
	shellDone chan struct{} // the shell has exited
	waitErr   error         // the shell's exit; valid after shellDone
	killed    bool          // shutdown terminated the job before the shell ended
}

// startGroup starts cmd inside a new job object, without a console window
// of its own.
func startGroup(cmd *exec.Cmd, marker string) (*procGroup, error) {
	job, err := jobobject.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	pg := &procGroup{cmd: cmd, job: job, shellDone: make(chan struct{})}
	go func() {
		pg.waitErr = cmd.Wait()
		close(pg.shellDone)
	}()
	return pg, nil
}

// shutdown ends every process of the job and returns once the job is
// empty (bounded by grace, twice) and the shell has been waited for.
func (pg *procGroup) shutdown(grace time.Duration) {
	select {
	case <-pg.shellDone:
	default:
		pg.killed = true
	}
	if err := pg.job.Terminate(); err != nil {
		slog.Warn("tool: terminating the job", "err", err)
	}
	if !pg.job.WaitEmpty(2 * grace) {
		slog.Warn("tool: processes of the job survived its termination")
	}
	pg.job.Close()
	<-pg.shellDone
}

// exitDescription returns the shell's exit code and a note when shutdown
// ended it.
func (pg *procGroup) exitDescription() (code int, note string) {
	var ee *exec.ExitError
	switch {
	case pg.waitErr == nil:
		return 0, ""
	case errors.As(pg.waitErr, &ee):
		if pg.killed {
			return ee.ExitCode(), "terminated with its job"
		}
		return ee.ExitCode(), ""
	}
	return -1, "exit status unknown"
}

// MarkedProcesses finds nothing on Windows: a process's environment is
// not readable from outside, and the job objects end every tree with the
// app, so nothing is left for a later start to find.
func MarkedProcesses(name, value string) []int { return nil }
