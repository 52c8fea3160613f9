// Package apptest is what the tests that run the agenthub binary share
// (faults/, e2e/, app/desktoptest): the environment to start it in and a
// buffer for its output. Only tests import it.
package apptest

import (
	"bytes"
	"os"
	"strings"
	"sync"
)

// Env returns this process's environment without the developer's provider
// settings (ANTHROPIC_*, OPENAI_*) and Agent Hub's own (AGENTHUB_*), so
// the binary sees only the fake provider and the settings a test adds.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "ANTHROPIC_") || strings.HasPrefix(kv, "OPENAI_") || strings.HasPrefix(kv, "AGENTHUB_") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// Buffer collects a process's output: Write (from exec's copiers) and
// String (from the test) may run concurrently.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
