package jobobject

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// The test binary doubles as the processes of the tree (TestMain): real
// processes, each started by the one above it.
const roleEnv = "JOBOBJECT_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "":
		os.Exit(m.Run())
	case "sleeper": // waits to be killed
		time.Sleep(time.Hour)
		os.Exit(0)
	case "parent": // starts a detached sleeper, prints both pids, waits
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), roleEnv+"=sleeper")
		child.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
		if err := child.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("pids", os.Getpid(), child.Process.Pid)
		time.Sleep(time.Hour)
	case "breakaway": // tries to start a sleeper outside the job
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), roleEnv+"=sleeper")
		child.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_BREAKAWAY_FROM_JOB}
		if err := child.Start(); err != nil {
			fmt.Println("refused", err)
			os.Exit(0)
		}
		fmt.Println("escaped", child.Process.Pid)
		_ = child.Process.Kill() // leave nothing behind when the defence fails
		os.Exit(0)
	case "app": // an app holding a job with a tree in it; killed by the test
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), roleEnv+"=parent")
		out, _ := cmd.StdoutPipe()
		if _, err := Start(cmd); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		fmt.Print(line)
		time.Sleep(time.Hour)
	}
}

// startRole starts the test binary in role inside a new job and returns
// the pids it prints ("pids A B").
func startRole(t *testing.T, role string) (*Job, *exec.Cmd, []int) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"="+role)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	j, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return j, cmd, readPids(t, out)
}

func readPids(t *testing.T, r interface{ Read([]byte) (int, error) }) []int {
	t.Helper()
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the pids: %v (%q)", err, line)
	}
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "pids" {
		t.Fatalf("want pids, got %q", line)
	}
	var pids []int
	for _, s := range f[1:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, n)
	}
	return pids
}

// open returns a handle that signals when pid ends (opened while it runs,
// so the pid cannot be reused under it); a process the test leaves running
// (when a defence fails) is terminated at cleanup.
func open(t *testing.T, pid int) windows.Handle {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		t.Fatalf("open process %d: %v", pid, err)
	}
	t.Cleanup(func() { _ = windows.TerminateProcess(h, 1); windows.CloseHandle(h) })
	return h
}

func running(t *testing.T, h windows.Handle) bool {
	t.Helper()
	ev, err := windows.WaitForSingleObject(h, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ev == uint32(windows.WAIT_TIMEOUT)
}

// waitEnded fails the test unless every handle signals within the bound
// (a bound on failure, not a timing assertion).
func waitEnded(t *testing.T, hs ...windows.Handle) {
	t.Helper()
	for _, h := range hs {
		ev, err := windows.WaitForSingleObject(h, 20_000)
		if err != nil || ev != windows.WAIT_OBJECT_0 {
			t.Fatalf("a process of the tree is still running (wait: %d, %v)", ev, err)
		}
	}
}

func TestTerminateEndsTheWholeTree(t *testing.T) {
	j, _, pids := startRole(t, "parent")
	parent, child := open(t, pids[0]), open(t, pids[1])
	if !running(t, parent) || !running(t, child) {
		t.Fatal("the tree is not running")
	}
	inJob, err := j.Pids()
	if err != nil {
		t.Fatal(err)
	}
	if !containsAll(inJob, pids) {
		t.Fatalf("the job holds %v, want the parent and its detached child %v", inJob, pids)
	}
	if err := j.Terminate(); err != nil {
		t.Fatal(err)
	}
	waitEnded(t, parent, child)
	if !j.WaitEmpty(30 * time.Second) {
		t.Fatal("the job still has processes after Terminate")
	}
}

func TestClosingTheJobEndsTheTree(t *testing.T) {
	j, _, pids := startRole(t, "parent")
	parent, child := open(t, pids[0]), open(t, pids[1])
	j.Close()
	waitEnded(t, parent, child)
}

func TestNoProcessBreaksAway(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), roleEnv+"=breakaway")
	var out strings.Builder
	cmd.Stdout = &out
	j, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "refused") {
		t.Fatalf("CREATE_BREAKAWAY_FROM_JOB was not refused: %q", out.String())
	}
}

// The app's own death (TerminateProcess, what taskkill /F does) ends the
// tree it started: the kernel closes its handle to the job.
func TestTheTreeEndsWithTheApp(t *testing.T) {
	app := exec.Command(os.Args[0])
	app.Env = append(os.Environ(), roleEnv+"=app")
	out, err := app.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Process.Kill(); _ = app.Wait() })
	pids := readPids(t, out)
	parent, child := open(t, pids[0]), open(t, pids[1])
	if err := app.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = app.Wait()
	waitEnded(t, parent, child)
}

func containsAll(have, want []int) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}
