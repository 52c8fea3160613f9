package tool

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"

	sbx "agenthub/app/sandbox"
)

// sweepOrphans kills and reaps what a sandboxed command left behind that
// ended up as our child: a process re-parented to the app (its child
// subreaper) because the sandbox's supervisor died first (killed after
// the grace, or — on kernels without Landlock signal scoping — by the
// command). Such a process is told apart from the app's own children by
// no_new_privs, which the sandbox sets, which nothing can unset, and which
// the app does not have; its whole tree is killed, then it is reaped by
// its pid (never "any child", so exec.Cmd's statuses stay theirs), until
// none is left (bounded by killWait). It does nothing when the app itself
// runs with no_new_privs.
func sweepOrphans() {
	self := os.Getpid()
	if noNewPrivs(self) {
		return
	}
	deadline := time.Now().Add(killWait)
	for {
		var found []int
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if st, ok := readProcStat(pid); ok && st.ppid == self && noNewPrivs(pid) {
				found = append(found, pid)
			}
		}
		if len(found) == 0 {
			return
		}
		for _, pid := range found {
			for _, d := range sbx.Descendants(pid) {
				_ = syscall.Kill(d, syscall.SIGKILL)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
			reapPid(pid)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// noNewPrivs reads the no_new_privs flag of pid (zombies keep theirs).
func noNewPrivs(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	_, after, ok := bytes.Cut(b, []byte("\nNoNewPrivs:"))
	return ok && len(bytes.TrimSpace(after)) > 0 && bytes.TrimSpace(after)[0] == '1'
}
