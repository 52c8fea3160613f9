package jobobject

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Job is a Windows Job Object holding one started command's process tree.
// Its methods are safe for concurrent use; after Close they report
// errors (Terminate, Active) or nothing (Close).
type Job struct {
	mu     sync.Mutex
	handle windows.Handle // 0 once closed
}

// TerminatedCode is the exit code Terminate gives every process of the
// job (the code taskkill /F gives).
const TerminatedCode = 1

// Start starts cmd inside a new job: created suspended and without a
// console window of its own (a GUI app's children would otherwise each
// open one), assigned to the job, then resumed. On any failure the
// process, if started, is terminated and the error says which step failed.
// The caller waits for cmd as usual (cmd.Wait) and ends the tree with
// Terminate or Close.
func Start(cmd *exec.Cmd) (*Job, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED | windows.CREATE_NO_WINDOW
	cmd.SysProcAttr.HideWindow = true
	j, err := newJob()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		j.Close()
		return nil, err
	}
	pid := uint32(cmd.Process.Pid)
	fail := func(step string, err error) (*Job, error) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		j.Close()
		return nil, fmt.Errorf("job object: %s: %w", step, err)
	}
	ph, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return fail("open process", err)
	}
	err = windows.AssignProcessToJobObject(j.handle, ph)
	windows.CloseHandle(ph)
	if err != nil {
		return fail("assign process", err)
	}
	if err := resumeThreads(pid); err != nil {
		return fail("resume", err)
	}
	return j, nil
}

// newJob creates a job whose processes end when its last handle closes.
// The handle is not inherited: only the app holds it.
func newJob() (*Job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("job object: create: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(h)
		return nil, fmt.Errorf("job object: set kill-on-close: %w", err)
	}
	return &Job{handle: h}, nil
}

// resumeThreads resumes the threads of the suspended process pid (one: a
// process created suspended has only its first thread).
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("thread snapshot: %w", err)
	}
	if resumed == 0 {
		return errors.New("no thread of the new process found")
	}
	return nil
}

// basicAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type basicAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

// Active reports how many processes of the job are alive.
func (j *Job) Active() (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.handle == 0 {
		return 0, errors.New("job object: closed")
	}
	var info basicAccounting
	if err := windows.QueryInformationJobObject(j.handle, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0, fmt.Errorf("job object: query: %w", err)
	}
	return int(info.ActiveProcesses), nil
}

// Pids lists the processes of the job alive now (at most 1,024).
func (j *Job) Pids() ([]int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.handle == 0 {
		return nil, errors.New("job object: closed")
	}
	const max = 1024
	var buf struct {
		Assigned, InList uint32
		IDs              [max]uintptr
	}
	if err := windows.QueryInformationJobObject(j.handle, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&buf)), uint32(unsafe.Sizeof(buf)), nil); err != nil && !errors.Is(err, windows.ERROR_MORE_DATA) {
		return nil, fmt.Errorf("job object: list processes: %w", err)
	}
	out := make([]int, 0, buf.InList)
	for _, id := range buf.IDs[:min(buf.InList, max)] {
		out = append(out, int(id))
	}
	return out, nil
}

// Terminate ends every process of the job now (exit code TerminatedCode).
// Processes a command started later cannot escape: the job stays open.
func (j *Job) Terminate() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.handle == 0 {
		return nil
	}
	if err := windows.TerminateJobObject(j.handle, TerminatedCode); err != nil {
		return fmt.Errorf("job object: terminate: %w", err)
	}
	return nil
}

// WaitEmpty polls until no process of the job is alive or timeout passes,
// and reports whether the job is empty.
func (j *Job) WaitEmpty(timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	delay := time.Millisecond
	for {
		n, err := j.Active()
		if err != nil || n == 0 {
			return err == nil
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(delay)
		delay = min(2*delay, 20*time.Millisecond)
	}
}

// Close closes the app's handle to the job; the kernel then terminates
// whatever is left in it. Idempotent.
func (j *Job) Close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.handle != 0 {
		windows.CloseHandle(j.handle)
		j.handle = 0
	}
}
