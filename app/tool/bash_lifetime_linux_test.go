package tool

import (
	"context"
	"syscall"
	"testing"
	"time"

	sbx "agenthub/app/sandbox"
	"agenthub/app/sandbox/sandboxtest"
	"agenthub/ipc/errclass"
)

// sandboxModes are the sandboxed bash tools this machine can run: with
// namespaces (where the kernel allows) and Landlock only.
func sandboxModes(t *testing.T) map[string]Tool {
	t.Helper()
	out := map[string]Tool{"landlock-only": sandboxedBashWith(t, &Sandbox{Fallback: true})}
	if sbx.Probe().Namespaces {
		out["namespaces"] = sandboxedBashWith(t, &Sandbox{})
	}
	return out
}

// Row 11 of the attacks, sandboxed: whatever the command leaves behind —
// in its group, after setsid with a cleared environment (which the marker
// scan cannot find), ignoring SIGTERM — dies when the call ends, is
// cancelled or times out, and no zombie is left. With the namespaces the
// supervisor is PID 1 (its exit kills the rest); without, it is the
// subreaper of the call's processes.
func TestSandboxedBashNothingOutlivesTheCall(t *testing.T) {
	cases := map[string]struct {
		cmd, arg string
		cancel   bool
		timeout  int64
	}{
		"env -i setsid":   {`env -i setsid sh -c 'echo 1 > p; exec sleep 100.3101' & ` + waitForP, "100.3101", false, 0},
		"setsid, no TERM": {`env -i setsid sh -c 'trap "" TERM; echo 1 > p; sleep 100.3102; sleep 1' & ` + waitForP, "100.3102", false, 0},
		"cancelled":       {`echo 1; sleep 100.3103 & env -i setsid sleep 100.3103 & wait`, "100.3103", true, 0},
		"timed out":       {`trap '' TERM; echo 1; env -i setsid sleep 100.3104 & sleep 100.3104`, "100.3104", false, 300},
	}
	for mode, bash := range sandboxModes(t) {
		for name, c := range cases {
			t.Run(mode+"/"+name, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				timeout := c.timeout
				if timeout > 0 {
					// The timeout counts from the call's start, the sandbox's
					// set-up included: it must leave the command time to print
					// its line however loaded the machine is, so it is the
					// case's 300 ms plus ten times a sandboxed `echo` timed now
					// (300 ms alone ran out before the echo at load 16).
					timeout += 10 * sandboxedEchoMS(t, bash)
				}
				_, done, _ := runAsyncWith(t, bash, ctx, c.cmd, timeout, 1)
				if c.cancel {
					cancel()
				}
				err := <-done
				switch {
				case c.cancel && errClass(err) != errclass.ToolCancelled,
					c.timeout > 0 && errClass(err) != errclass.ToolTimeout,
					!c.cancel && c.timeout == 0 && err != nil:
					t.Fatalf("err %v", err)
				}
				sandboxtest.AssertNoProcessWithArg(t, c.arg)
				assertNoZombieChildren(t)
			})
		}
	}
}

// Row 11, the app's own net: when the sandbox's supervisor dies before
// the command (killed after the grace, or by the command on kernels
// without Landlock signal scoping), what the command left is re-parented
// to the app; the app kills and reaps it at the end of the call — found by
// the no_new_privs flag the sandbox set, even with a cleared environment.
func TestSandboxOrphansOfADeadSupervisorAreSwept(t *testing.T) {
	bash := sandboxedBashWith(t, &Sandbox{Fallback: true})
	pids, done, _ := runAsyncWith(t, bash, context.Background(),
		`echo $PPID; env -i setsid sh -c 'echo $$; exec sleep 100.3201' & sleep 100.3202`, 0, 2)
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil { // the supervisor (stage 1)
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("err %v", err)
	}
	assertGone(t, pids[1:])
	sandboxtest.AssertNoProcessWithArg(t, "100.320")
	assertNoZombieChildren(t)
}

// sandboxedEchoMS is how long one `echo 1` through bash takes now, in
// milliseconds (at least 1): the sandbox's set-up, the shell's start and
// its end, on this machine under its current load.
func sandboxedEchoMS(t *testing.T, bash Tool) int64 {
	t.Helper()
	start := time.Now()
	_, done, _ := runAsyncWith(t, bash, context.Background(), "echo 1", 0, 1)
	if err := <-done; err != nil {
		t.Fatalf("a sandboxed echo: %v", err)
	}
	return time.Since(start).Milliseconds() + 1
}
