package tool

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"agenthub/ipc/errclass"
)

// The Windows bash tests run the real tool — its job object, output
// capture, cancel and exit handling — with this test binary as the shell
// (`test.exe -c LINE`, chosen by the tool_env variable shellRoleEnv), so
// they need no bash or PowerShell (wine has neither). The "shell" obeys
// a few words: print TEXT, exit N, tree (starts a detached grandchild,
// prints both pids, waits), bg (starts a detached grandchild, prints its
// pid, exits 0).
const shellRoleEnv = "AGENTHUB_TOOL_TEST_SHELL"

func TestMain(m *testing.M) {
	switch os.Getenv(shellRoleEnv) {
	case "":
		os.Exit(m.Run())
	case "sleeper":
		time.Sleep(time.Hour)
	default:
		if len(os.Args) != 3 || os.Args[1] != "-c" {
			fmt.Println("usage: -c LINE, got", os.Args[1:])
			os.Exit(2)
		}
		os.Exit(fakeShell(strings.Fields(os.Args[2])))
	}
}

func fakeShell(words []string) int {
	for i := 0; i < len(words); i++ {
		switch words[i] {
		case "print":
			i++
			fmt.Println(words[i])
		case "exit":
			i++
			n, _ := strconv.Atoi(words[i])
			return n
		case "tree", "bg":
			child := exec.Command(os.Args[0])
			child.Env = append(os.Environ(), shellRoleEnv+"=sleeper")
			// Its own process group, no console: as far from the shell as
			// a child can start.
			child.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
			if err := child.Start(); err != nil {
				fmt.Println("start:", err)
				return 2
			}
			if words[i] == "bg" {
				fmt.Println(child.Process.Pid)
				return 0
			}
			fmt.Println(os.Getpid(), child.Process.Pid)
			time.Sleep(time.Hour)
		}
	}
	return 0
}

// fakeBash is the bash tool with this test binary as its shell.
func fakeBash(t *testing.T) Tool {
	tl, _ := Lookup(BuiltinsWithOptions(nil, Options{
		KillGrace: 200 * time.Millisecond,
		Shell:     os.Args[0],
		Env:       func() map[string]string { return map[string]string{shellRoleEnv: "shell"} },
	}), "bash")
	return tl
}

// handles opens the processes pids (to learn later whether they ended,
// whatever becomes of their ids).
func handles(t *testing.T, pids []int) []windows.Handle {
	t.Helper()
	var hs []windows.Handle
	for _, pid := range pids {
		h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE, false, uint32(pid))
		if err != nil {
			t.Fatalf("open pid %d: %v", pid, err)
		}
		hs = append(hs, h)
	}
	t.Cleanup(func() {
		for _, h := range hs {
			_ = windows.TerminateProcess(h, 1) // leave nothing behind when the defence fails
			windows.CloseHandle(h)
		}
	})
	return hs
}

// assertEnded fails for each process still running once Run has returned.
func assertEnded(t *testing.T, pids []int, hs []windows.Handle) {
	t.Helper()
	for i, h := range hs {
		if ev, err := windows.WaitForSingleObject(h, 0); ev != windows.WAIT_OBJECT_0 {
			t.Errorf("pid %d still runs after Run returned (%#x, %v)", pids[i], ev, err)
		}
	}
}

func TestWindowsBashOutputAndExitCodes(t *testing.T) {
	out := t.TempDir()
	env := Env{Workspace: t.TempDir(), OutputDir: out, ToolUseID: "toolu_01"}
	res, err := fakeBash(t).Run(context.Background(), env, bashInputJSON("print hello exit 0", 0))
	if err != nil || res.IsError || res.Output != "hello\n" || res.OutputPath != filepath.Join(out, "toolu_01.log") {
		t.Fatalf("res %+v err %v", res, err)
	}
	res, err = fakeBash(t).Run(context.Background(), env, bashInputJSON("print failing exit 3", 0))
	if err != nil || !res.IsError || !strings.HasSuffix(res.Output, "failing\n[exit code 3]\n") || res.StatusText != "Failed (exit 3): print failing exit 3" {
		t.Errorf("exit 3: %+v %v", res, err)
	}
	// The card says which shell runs the line where it is not /bin/bash.
	if _, sum := fakeBash(t).Describe(bashInputJSON("print x", 0)); !strings.Contains(sum, "with bash (Git for Windows)") {
		t.Errorf("summary %q does not name the shell", sum)
	}
}

// A cancelled call ends the shell and the grandchild it detached: the job
// object holds the tree (the counterpart of TestBashCancelKillsGroup).
func TestWindowsBashCancelEndsTheTree(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pids, done, res := runAsyncWith(t, fakeBash(t), ctx, "tree", 0, 2)
	hs := handles(t, pids)
	cancel()
	if err := <-done; errClass(err) != errclass.ToolCancelled || !strings.HasPrefix(res.StatusText, "Cancelled: ") {
		t.Fatalf("err %v res %+v", err, *res)
	}
	assertEnded(t, pids, hs)
}

// A timeout does the same.
func TestWindowsBashTimeoutEndsTheTree(t *testing.T) {
	pids, done, res := runAsyncWith(t, fakeBash(t), context.Background(), "tree", 2000, 2)
	hs := handles(t, pids)
	if err := <-done; errClass(err) != errclass.ToolTimeout || !strings.HasPrefix(res.StatusText, "Timed out: ") {
		t.Fatalf("err %v res %+v", err, *res)
	}
	assertEnded(t, pids, hs)
}

// A grandchild detached by a command that then exits does not outlive
// the call (the counterpart of TestBashBackgroundDoesNotOutliveCommand).
func TestWindowsBashBackgroundDoesNotOutliveCommand(t *testing.T) {
	pids, done, res := runAsyncWith(t, fakeBash(t), context.Background(), "bg", 0, 1)
	hs := handles(t, pids)
	if err := <-done; err != nil || res.IsError {
		t.Fatalf("err %v res %+v", err, *res)
	}
	assertEnded(t, pids, hs)
}

// The shell this system would use, run for real where it exists.
func TestWindowsDefaultShellRuns(t *testing.T) {
	shell := defaultShell()
	if _, err := os.Stat(shell); err != nil {
		t.Skipf("no shell here (wine 8.0 has neither Git for Windows' bash nor PowerShell): %v", err)
	}
	if windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil {
		t.Skipf("wine: its %s is a stub that runs nothing", shell)
	}
	line := "echo agenthub"
	tl, _ := Lookup(BuiltinsWithOptions(nil, Options{Shell: shell}), "bash")
	res, err := tl.Run(context.Background(), Env{Workspace: t.TempDir()}, bashInputJSON(line, 0))
	if err != nil || res.IsError || strings.TrimSpace(res.Output) != "agenthub" {
		t.Errorf("%s: %+v %v", shell, res, err)
	}
}
