package e2e

import (
	"io"
	"sync"
)

// lockedWriter serialises writes from several processes' output copiers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p under the lock.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
