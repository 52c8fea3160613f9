package mcp_test

import (
	"testing"
	"time"

	"agenthub/app/mcp"
)

// A stdio server's children end with it: stopping the manager ends the
// server and the child it started (the process group on Unix, the job
// object on Windows), and a server that is killed from outside takes its
// child along when the manager notices. Without the group kill (Unix) or
// the job (Windows) the sleeping child outlives both.
func TestServerChildrenEndWithTheServer(t *testing.T) {
	m, sts := newManager(t, t.TempDir())
	m.Configure(map[string]mcp.ServerConfig{"t": stdioConfig(t)})
	sts.wait(t, 0, ready("t"))
	server := serverPid(t, m)
	child := callPid(t, m, "t__spawn")
	if processGone(t, child) || processGone(t, server) {
		t.Fatal("the server or its child is not running")
	}
	m.Close()
	waitGone(t, server, child)
}

// waitGone fails t unless every pid ends within a bound (a bound on
// failure, not a timing assertion: the stop is synchronous).
func waitGone(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for _, pid := range pids {
		for !processGone(t, pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d outlived the stop", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
