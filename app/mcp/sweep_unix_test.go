//go:build unix

package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"agenthub/app/mcp"
)

func TestSweepKillsWhatAKilledAppLeft(t *testing.T) {
	dir := t.TempDir()
	// A server process left by an app that was killed: it carries the
	// marker recorded in its pid file.
	cmd := exec.Command("sleep", "300")
	cmd.Env = append(os.Environ(), mcp.MarkerEnv+"=leftover123")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	pids := filepath.Join(dir, "mcp-pids")
	if err := os.MkdirAll(pids, 0o700); err != nil {
		t.Fatal(err)
	}
	rec := `{"server":"x","pgid":` + strconv.Itoa(cmd.Process.Pid) + `,"marker":"leftover123"}`
	if err := os.WriteFile(filepath.Join(pids, strconv.Itoa(cmd.Process.Pid)+".json"), []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	m := mcp.NewManager(mcp.Options{DataDir: dir})
	defer m.Close()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the leftover process survived the sweep")
	}
	if left, _ := os.ReadDir(pids); len(left) != 0 {
		t.Fatalf("pid files left: %v", left)
	}
}
