package window

import (
	"context"
	"fmt"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// QuitEvent is the Wails event asking the page to confirm quitting while
// turns run; its data is {"running": N}. The page answers with AnswerQuit.
const QuitEvent = "app:confirmQuit"

// Answers to the quit confirmation.
const (
	QuitAnyway      = "quit"   // quit now; the running turns are interrupted (shutdown)
	QuitKeepRunning = "keep"   // do not quit
	QuitCancelTurns = "cancel" // cancel the running turns as the user would, then quit
)

// cancelWait bounds how long "cancel the turns and quit" waits for them to end.
const cancelWait = 15 * time.Second

// BeforeClose is the window's OnBeforeClose: it lets the window close when
// no turn runs (or a quit was confirmed) and otherwise keeps it open and
// asks the page (QuitEvent).
func (s *Shell) BeforeClose(ctx context.Context) (prevent bool) {
	s.mu.Lock()
	confirmed := s.quitConfirmed
	s.mu.Unlock()
	if s.opts.Turns == nil {
		return false
	}
	n := 0
	if !confirmed {
		n = s.opts.Turns.RunningTurns()
	}
	if n == 0 {
		s.rememberGeometry(ctx)
		return false
	}
	runtime.EventsEmit(ctx, QuitEvent, map[string]int{"running": n})
	return true
}

// AnswerQuit is the page's answer to the quit confirmation: "quit" quits
// now, "cancel" cancels the running turns (turn.cancelled, user_cancel)
// and quits once they have ended, "keep" keeps the window open.
func (s *Shell) AnswerQuit(choice string) error {
	ctx := s.Context()
	if ctx == nil {
		return fmt.Errorf("the window is not ready")
	}
	if s.opts.Turns == nil {
		s.QuitNow(ctx)
		return nil
	}
	switch choice {
	case QuitKeepRunning:
		return nil
	case QuitCancelTurns:
		wait, cancel := context.WithTimeout(context.Background(), cancelWait)
		defer cancel()
		if err := s.opts.Turns.CancelRunning(wait); err != nil {
			s.log.Warn("quit: the cancelled turns did not end in time; quitting", "err", err)
		}
	case QuitAnyway:
	default:
		return fmt.Errorf("unknown answer %q (want quit, cancel or keep)", choice)
	}
	s.QuitNow(ctx)
	return nil
}

// QuitNow closes the window without asking.
func (s *Shell) QuitNow(ctx context.Context) {
	s.mu.Lock()
	s.quitConfirmed = true
	s.mu.Unlock()
	runtime.Quit(ctx)
}
