package tool

import (
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"agenthub/app/sandbox/sandboxtest"
	"agenthub/ipc/errclass"
)

// waitForP is shell: wait until the escaped process wrote its pid to p, then print it.
const waitForP = `while [ ! -s p ]; do sleep 0.01; done; cat p`

// assertNoZombieChildren fails if any process is an unreaped child of ours.
func assertNoZombieChildren(t *testing.T) {
	t.Helper()
	names, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, n := range names {
		pid, err := strconv.Atoi(n.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.ppid == self && st.state == 'Z' {
			t.Errorf("zombie child %d left unreaped", pid)
			reapPid(pid)
		}
	}
}

// TestBashEscapedProcessesDie: processes that leave the process group
// (setsid, a double fork, setsid ignoring SIGTERM) or only ignore SIGHUP
// (nohup) do not outlive the command, whether it ends on its own or is
// cancelled, and none is left as a zombie under us — including one that
// escaped and exited by itself while the command ran.
func TestBashEscapedProcessesDie(t *testing.T) {
	cases := map[string]struct {
		cmd, arg string
		cancel   bool
	}{
		"setsid -f":        {`setsid -f sh -c 'echo $$ > p; exec sleep 100.1001'; ` + waitForP, "100.1001", false},
		"setsid &":         {`setsid sh -c 'echo $$ > p; exec sleep 100.1002' & ` + waitForP, "100.1002", false},
		"double fork":      {`( ( setsid sh -c 'echo $$ > p; exec sleep 100.1003' & ) & ); ` + waitForP, "100.1003", false},
		"nohup":            {`nohup sh -c 'echo $$ > p; exec sleep 100.1004' >/dev/null 2>&1 & ` + waitForP, "100.1004", false},
		"setsid, no TERM":  {`setsid sh -c 'trap "" TERM; echo $$ > p; sleep 100.1005; sleep 100.1005' & ` + waitForP, "100.1005", false},
		"cancelled setsid": {`setsid -f sh -c 'echo $$ > p; exec sleep 100.1006'; ` + waitForP + `; sleep 100`, "100.1006", true},
		"exited by itself": {`( setsid sh -c 'echo $$ > p; sleep 0.7' & ); ` + waitForP + `; sleep 1.5`, "", false},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pids, done, res := runAsync(t, ctx, c.cmd, 0, 1)
			if c.cancel {
				cancel()
			}
			err := <-done
			if c.cancel && errClass(err) != errclass.ToolCancelled {
				t.Fatalf("err %v", err)
			}
			if !c.cancel && err != nil {
				t.Fatalf("err %v, result %+v", err, *res)
			}
			assertGone(t, pids)
			if c.arg != "" {
				sandboxtest.AssertNoProcessWithArg(t, c.arg)
			}
			assertNoZombieChildren(t)
		})
	}
}

func TestReadProcStat(t *testing.T) {
	st, ok := readProcStat(os.Getpid())
	if !ok || st.ppid != os.Getppid() || st.start == 0 || st.pgrp != syscall.Getpgrp() {
		t.Fatalf("stat of self: %+v %v", st, ok)
	}
	if _, ok := readProcStat(1 << 30); ok {
		t.Fatal("stat of a pid that cannot exist")
	}
}

// TestBashGroupReaperNotWedgedBySetsid: a child that calls setsid just after
// the group's reaper began waiting used to wedge it for good — a blocked
// wait4(-pgid) is not woken when a child leaves the group, only when it
// exits — so the command never ended (it hung in 1 of 2 runs of this loop).
// The reaper now polls with WNOHANG.
func TestBashGroupReaperNotWedgedBySetsid(t *testing.T) {
	for i := range 8 {
		done := make(chan error, 1)
		go func() {
			_, err := newBash(t).Run(context.Background(), Env{Workspace: t.TempDir()},
				bashInputJSON(`setsid -f sleep 100.2001; ( ( setsid sleep 100.2002 & ) & ); echo started`, 0))
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run %d: %v", i, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("run %d: the command never ended (group reaper wedged)", i)
		}
	}
	sandboxtest.AssertNoProcessWithArg(t, "100.200")
	assertNoZombieChildren(t)
}
