//go:build unix

package tool

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"syscall"
	"time"
)

// procGroup is a started command leading its own process group. One reaper
// goroutine (owned by the group, ending when the group is empty) waits for
// every child of ours in the group, so the shell and, thanks to the child
// subreaper, its orphaned descendants are reaped by us: once groupDone is
// closed, kill(pid, 0) fails with ESRCH for every member.
type procGroup struct {
	cmd       *exec.Cmd
	pgid      int
	shellDone chan struct{}      // the shell has exited and been reaped
	groupDone chan struct{}      // no child of ours is left in the group
	status    syscall.WaitStatus // the shell's status; valid after shellDone
	reaped    bool               // status is real (false if the shell vanished unseen)
}

// startGroup starts cmd as the leader of a new process group.
func startGroup(cmd *exec.Cmd) (*procGroup, error) {
	haveSubreaper := enableSubreaper()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	pg := &procGroup{
		cmd:       cmd,
		pgid:      cmd.Process.Pid,
		shellDone: make(chan struct{}),
		groupDone: make(chan struct{}),
	}
	if !haveSubreaper {
		slog.Debug("tool: no child subreaper; orphaned grandchildren are reaped by init")
	}
	go pg.reap()
	return pg, nil
}

func (pg *procGroup) reap() {
	defer close(pg.groupDone)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pg.pgid, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil { // ECHILD: none of our children is left in the group
			break
		}
		if pid == pg.pgid {
			pg.status, pg.reaped = ws, true
			close(pg.shellDone)
		}
	}
	if !pg.reaped {
		close(pg.shellDone)
	}
}

// signal sends sig to every process of the group; a vanished group is fine.
func (pg *procGroup) signal(sig syscall.Signal) {
	if err := syscall.Kill(-pg.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		slog.Warn("tool: signalling process group", "pgid", pg.pgid, "signal", sig, "err", err)
	}
}

// shutdown ends every process left in the group: SIGTERM (and SIGCONT, so
// stopped members see it), then SIGKILL if the group is not empty after
// grace. It returns once the group's members have been reaped.
func (pg *procGroup) shutdown(grace time.Duration) {
	pg.signal(syscall.SIGTERM)
	pg.signal(syscall.SIGCONT)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-pg.groupDone:
	case <-t.C:
		pg.signal(syscall.SIGKILL)
		<-pg.groupDone
	}
	// Members that were re-parented to someone else (no subreaper) are not
	// our children; make sure they are dead, bounded by grace.
	if syscall.Kill(-pg.pgid, 0) == nil {
		pg.signal(syscall.SIGKILL)
		deadline := time.Now().Add(grace)
		for syscall.Kill(-pg.pgid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if pg.cmd.Process != nil {
		_ = pg.cmd.Process.Release()
	}
}

// exitDescription returns the shell's exit code (128+signal when killed by a
// signal) and a human note for non-normal exits.
func (pg *procGroup) exitDescription() (code int, note string) {
	switch {
	case !pg.reaped:
		return -1, "exit status unknown"
	case pg.status.Exited():
		return pg.status.ExitStatus(), ""
	case pg.status.Signaled():
		sig := pg.status.Signal()
		return 128 + int(sig), "terminated by signal " + sig.String()
	}
	return -1, "exit status unknown"
}
