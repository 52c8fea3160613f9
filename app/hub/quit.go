package hub

import (
	"context"
	"fmt"
)

// RunningTurns is how many top-level sessions run a turn now (a worker's
// turn runs inside its parent's): what quitting the app would stop.
func (h *Hub) RunningTurns() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, s := range h.sessions {
		if s.running != nil && !s.running.ended && s.record().ParentSessionID == "" {
			n++
		}
	}
	return n
}

// CancelRunning cancels every running turn as the user would (reason
// user_cancel; queued turns stay queued) and waits until they have ended
// or ctx ends.
func (h *Hub) CancelRunning(ctx context.Context) error {
	type pair struct {
		s *session
		r *run
	}
	h.mu.Lock()
	var runs []pair
	for _, s := range h.sessions {
		if r := s.running; r != nil && !r.ended {
			runs = append(runs, pair{s, r})
		}
	}
	h.mu.Unlock()
	for _, p := range runs {
		h.cancelRun(p.s, p.r, errUserCancel)
	}
	for _, p := range runs {
		r := p.r
		select {
		case <-r.done:
		case <-ctx.Done():
			return fmt.Errorf("waiting for the cancelled turns to end: %w", ctx.Err())
		}
	}
	return nil
}
