package sandbox

import (
	"errors"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runStage1 is the supervisor (see the package doc): it sets up the
// namespaces' mounts or becomes a subreaper, starts stage 2 and
// supervises until nothing of the command is left.
func runStage1(args []string) int {
	p, argv, err := decodeHelperArgs(args)
	if err != nil {
		return failf("%v", err)
	}
	// Neither ptrace nor /proc/<pid>/environ for the command (same uid).
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if p.Namespaces {
		p.Mounted = setupMounts(p)
	} else if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return failf("child subreaper: %v", err)
	}
	enc, err := encodePolicy(p)
	if err != nil {
		return failf("%v", err)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	proc, err := os.StartProcess("/proc/self/exe", append([]string{os.Args[0], HelperArg, stage2Arg, enc, "--"}, argv...),
		&os.ProcAttr{Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
			Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return failf("start: %v", err)
	}
	grace := time.Duration(p.GraceMS) * time.Millisecond
	if grace <= 0 {
		grace = DefaultGrace * time.Millisecond
	}
	return supervise(proc.Pid, p.Namespaces, grace, sigs)
}

type reaped struct {
	pid int
	ws  syscall.WaitStatus
}

// supervise reaps every child until none is left (ECHILD: with the
// namespaces or as subreaper, no descendant of the command is left then)
// and returns the exit status of child (128+signal when it was killed).
// Once child has ended, or on SIGTERM/SIGINT/SIGHUP, every remaining
// descendant gets the signal (SIGTERM after a normal end) and SIGCONT,
// and SIGKILL after grace, repeated until they are gone.
func supervise(child int, namespaces bool, grace time.Duration, sigs <-chan os.Signal) int {
	exits := make(chan reaped, 16)
	go func() { // owned by supervise; ends at ECHILD, which ends supervise
		defer close(exits)
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, 0, nil)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			if err != nil {
				return
			}
			exits <- reaped{pid, ws}
		}
	}()
	var status *syscall.WaitStatus
	var killAt <-chan time.Time
	startKill := func(sig syscall.Signal) {
		signalAll(namespaces, sig)
		signalAll(namespaces, syscall.SIGCONT)
		if killAt == nil {
			killAt = time.After(grace)
		}
	}
	for {
		select {
		case r, ok := <-exits:
			if !ok {
				return exitCode(status)
			}
			if r.pid == child {
				ws := r.ws
				status = &ws
				startKill(syscall.SIGTERM)
			}
		case s := <-sigs:
			startKill(s.(syscall.Signal))
		case <-killAt:
			signalAll(namespaces, syscall.SIGKILL)
			killAt = time.After(20 * time.Millisecond)
		}
	}
}

// exitCode is the shell-style code of ws (126 when unknown).
func exitCode(ws *syscall.WaitStatus) int {
	switch {
	case ws == nil:
		return 126
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return 126
}

// signalAll sends sig to every process of the sandbox but this one: in
// the namespaces kill(-1) reaches exactly those; as subreaper, the
// descendants found in /proc.
func signalAll(namespaces bool, sig syscall.Signal) {
	if namespaces {
		_ = syscall.Kill(-1, sig)
		return
	}
	for _, pid := range Descendants(os.Getpid()) {
		_ = syscall.Kill(pid, sig)
	}
}

// Descendants returns the processes below root, by parent links in /proc
// (zombies included).
func Descendants(root int) []int {
	children := map[int][]int{}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	for _, e := range ents {
		pid, ppid, ok := procParent(e.Name())
		if ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
