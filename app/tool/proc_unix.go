//go:build unix

package tool

import (
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// procGroup is a started command leading its own process group. One reaper
// goroutine (owned by the group, ending when the group is empty) waits for
// every child of ours in the group, so the shell and, thanks to the child
// subreaper, its orphaned descendants are reaped by us: once groupDone is
// closed, kill(pid, 0) fails with ESRCH for every member.
//
// Processes that leave the group (setsid, double fork) are found by the
// per-call marker in their environment (MarkerEnv=<token>, which children
// inherit): a scanner goroutine looks for them in /proc every scanInterval
// while the command runs (so ones that die early are known) and once more at
// shutdown, which kills and reaps them with the group. Only the pids found
// are waited on, never "any child". A process that clears its environment
// (env -i) is not found; it still dies if it stays in the group.
type procGroup struct {
	cmd       *exec.Cmd
	pgid      int
	shellDone chan struct{}      // the shell has exited and been reaped
	groupDone chan struct{}      // no child of ours is left in the group
	kick      chan struct{}      // cap 1: wake the reaper
	status    syscall.WaitStatus // the shell's status; valid after shellDone
	reaped    bool               // status is real (false if the shell vanished unseen)

	needle   []byte        // "MarkerEnv=token\x00"
	since    uint64        // the shell's start time (clock ticks); escapees start later
	stopScan chan struct{} // closed by shutdown
	scanDone chan struct{} // closed when the scanner has exited
	mu       sync.Mutex
	known    map[int]uint64 // marked processes seen: pid → start time
}

// scanInterval is how often the scanner looks for marked processes.
const scanInterval = 250 * time.Millisecond

// startGroup starts cmd as the leader of a new session (and so of a new
// process group): it has no controlling terminal, so nothing it starts can
// open /dev/tty or push input into the user's terminal. cmd.Env must carry
// MarkerEnv=marker.
func startGroup(cmd *exec.Cmd, marker string) (*procGroup, error) {
	haveSubreaper := enableSubreaper()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setpgid = true, false
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	pg := &procGroup{
		cmd:       cmd,
		pgid:      cmd.Process.Pid,
		shellDone: make(chan struct{}),
		groupDone: make(chan struct{}),
		kick:      make(chan struct{}, 1),
		needle:    []byte(MarkerEnv + "=" + marker + "\x00"),
		since:     startTicks(cmd.Process.Pid),
		stopScan:  make(chan struct{}),
		scanDone:  make(chan struct{}),
		known:     map[int]uint64{},
	}
	if !haveSubreaper {
		slog.Debug("tool: no child subreaper; orphaned grandchildren are reaped by init")
	}
	go pg.reap()
	go pg.scan()
	go watchExit(pg.pgid, pg.kickReaper) // ends when the shell exits
	return pg, nil
}

// scan records marked processes until shutdown stops it.
func (pg *procGroup) scan() {
	defer close(pg.scanDone)
	if pg.since == 0 {
		return // no /proc: nothing to find
	}
	t := time.NewTicker(scanInterval)
	defer t.Stop()
	for {
		select {
		case <-pg.stopScan:
			return
		case <-t.C:
			pg.record(scanMarked(pg.needle, pg.since))
		}
	}
}

func (pg *procGroup) record(found map[int]uint64) {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	for pid, start := range found {
		if pid != pg.pgid { // the shell's status belongs to the group reaper
			pg.known[pid] = start
		}
	}
}

// escapees returns the marked processes found so far.
func (pg *procGroup) escapees() map[int]uint64 {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	out := make(map[int]uint64, len(pg.known))
	for pid, start := range pg.known {
		out[pid] = start
	}
	return out
}

// signalEach sends sig to each live process of ps (pid reuse is checked
// against the recorded start time).
func signalEach(ps map[int]uint64, sig syscall.Signal) {
	for pid, start := range ps {
		if alive, _, _ := escapeeState(pid, start); alive {
			_ = syscall.Kill(pid, sig)
		}
	}
}

// settle reaps the exited processes of ps that are our children and
// removes every process that is gone; it reports whether none is left. A
// zombie whose parent is another process stays in ps: its parent reaps
// it, or — if its parent dies first, as the command's processes do — it
// is re-parented to us (the subreaper) and reaped here; dropping it when
// first seen left such zombies unreaped under load.
func settle(ps map[int]uint64) bool {
	for pid, start := range ps {
		alive, zombie, ours := escapeeState(pid, start)
		switch {
		case zombie && ours:
			reapPid(pid)
			delete(ps, pid)
		case !alive && !zombie:
			delete(ps, pid)
		}
	}
	return len(ps) == 0
}

// settleUntil polls settle every few ms until nothing is left or deadline.
func settleUntil(ps map[int]uint64, deadline time.Time) bool {
	for !settle(ps) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

// killWait bounds the wait for processes sent SIGKILL to be gone. SIGKILL
// cannot be caught: a killed process exits as soon as the kernel runs it
// again, which on a loaded machine may take far longer than the TERM
// grace (that bound was measured against a quiet machine, and a killed
// escapee then outlived the wait as a zombie). Only a process in
// uninterruptible sleep (a hung FUSE or NFS call) takes longer than this,
// and the wait must not wedge the call for it. The wait ends as soon as
// they are gone; nothing waits this long otherwise.
const killWait = 5 * time.Second

// reapPollMax bounds the reaper's polling interval: the most a command's
// end can be noticed late.
const reapPollMax = 20 * time.Millisecond

// reap collects every child of ours in the group until none is left. It
// polls with WNOHANG (1 ms, doubling to reapPollMax; kick resets it)
// instead of blocking in wait4(-pgid): a blocked wait4 is not woken when a
// child leaves the group (setsid) — it keeps waiting for that child's exit,
// which for an escaped daemon is never, and the group would never be done.
func (pg *procGroup) reap() {
	defer close(pg.groupDone)
	delay := time.Millisecond
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pg.pgid, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil: // ECHILD: none of our children is left in the group
			if !pg.reaped {
				close(pg.shellDone)
			}
			return
		case pid > 0:
			if pid == pg.pgid {
				pg.status, pg.reaped = ws, true
				close(pg.shellDone)
			}
			delay = time.Millisecond
			continue
		}
		t.Reset(delay)
		select {
		case <-t.C:
		case <-pg.kick:
			delay = time.Millisecond
			continue
		}
		delay = min(2*delay, reapPollMax)
	}
}

// kickReaper makes the reaper look again at once (after a signal).
func (pg *procGroup) kickReaper() {
	select {
	case pg.kick <- struct{}{}:
	default:
	}
}

// signal sends sig to every process of the group; a vanished group is fine.
func (pg *procGroup) signal(sig syscall.Signal) {
	if err := syscall.Kill(-pg.pgid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
		slog.Warn("tool: signalling process group", "pgid", pg.pgid, "signal", sig, "err", err)
	}
}

// shutdown ends every process the command started: the group and the
// marked processes that left it get SIGTERM (and SIGCONT, so stopped ones
// see it), then SIGKILL if any is left after grace. It returns once the
// group's members have been reaped and the escapees are dead and reaped
// (bounded by another grace).
func (pg *procGroup) shutdown(grace time.Duration) {
	close(pg.stopScan)
	<-pg.scanDone
	if pg.since != 0 {
		pg.record(scanMarked(pg.needle, pg.since))
	}
	esc := pg.escapees()
	pg.signal(syscall.SIGTERM)
	pg.signal(syscall.SIGCONT)
	signalEach(esc, syscall.SIGTERM)
	signalEach(esc, syscall.SIGCONT)
	pg.kickReaper()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-pg.groupDone:
	case <-t.C:
		pg.signal(syscall.SIGKILL)
		signalEach(esc, syscall.SIGKILL)
		pg.kickReaper()
		<-pg.groupDone
	}
	pg.endEscapees(grace)
	sweepOrphans()
	// Members that were re-parented to someone else (no subreaper) are not
	// our children; make sure they are dead, bounded by killWait.
	if syscall.Kill(-pg.pgid, 0) == nil {
		pg.signal(syscall.SIGKILL)
		deadline := time.Now().Add(killWait)
		for syscall.Kill(-pg.pgid, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if pg.cmd.Process != nil {
		_ = pg.cmd.Process.Release()
	}
}

// endEscapees ends the marked processes outside the group once the group
// is gone: a fresh scan (catching any that escaped after the first one,
// e.g. a setsid that forked just as the command was cancelled), SIGTERM,
// SIGKILL after grace, and reaping — repeated until a scan finds none alive
// (at most three passes).
func (pg *procGroup) endEscapees(grace time.Duration) {
	for range 3 {
		if pg.since != 0 {
			pg.record(scanMarked(pg.needle, pg.since))
		}
		left := pg.escapees()
		if settle(left) {
			return
		}
		signalEach(left, syscall.SIGTERM)
		signalEach(left, syscall.SIGCONT)
		if settleUntil(left, time.Now().Add(grace)) {
			continue
		}
		signalEach(left, syscall.SIGKILL)
		if !settleUntil(left, time.Now().Add(killWait)) {
			slog.Warn("tool: processes that left the group survived SIGKILL", "count", len(left))
			return
		}
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
