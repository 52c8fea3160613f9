//go:build unix

package mcp

import (
	"errors"
	"os/exec"
	"syscall"
	"time"

	"agenthub/app/tool"
)

// tree is a server's process group: the leader's pid is its id.
type tree struct{ pgid int }

// startTree starts cmd as the leader of a new process group (groupAttr).
func startTree(cmd *exec.Cmd) (tree, error) {
	cmd.SysProcAttr = groupAttr()
	if err := cmd.Start(); err != nil {
		return tree{}, err
	}
	return tree{pgid: cmd.Process.Pid}, nil
}

// id names the tree in the pid files.
func (t tree) id() int { return t.pgid }

// terminate asks the group to end (SIGTERM) and reports that a kill may
// follow after a grace.
func (t tree) terminate() bool {
	_ = syscall.Kill(-t.pgid, syscall.SIGTERM)
	return true
}

// kill ends the group now.
func (t tree) kill() { _ = syscall.Kill(-t.pgid, syscall.SIGKILL) }

// finish kills what is left of the group once the leader is reaped and
// reaps the members that are our children.
func (t tree) finish() {
	t.kill()
	reapGroup(t.pgid)
}

// reapGroup waits for the members of group pgid that are our children (the
// app is the child subreaper of its descendants once bash has run), for at
// most a second. Called only after the leader was reaped by exec.Cmd.Wait.
func reapGroup(pgid int) {
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil: // ECHILD: none of ours left in the group
			return
		case pid == 0: // some still running (killed: about to exit)
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// killMarked sends SIGKILL to every process carrying marker and reports
// how many there were.
func killMarked(marker string) int {
	pids := tool.MarkedProcesses(MarkerEnv, marker)
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}
