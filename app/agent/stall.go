package agent

import (
	"sync"
	"sync/atomic"
	"time"

	"agenthub/ipc"
)

// DefaultStallNotice is the default Config.StallNotice.
const DefaultStallNotice = 5 * time.Second

// stallWatch emits llm.call_stalled {call_id, idle_ms} every notice while
// one LLM call's stream delivers nothing (no callback of the provider's
// stream), so a client can show "no data for N s" long before the provider's
// idle timeout fails the attempt. The call that starts it owns it and stops
// it before the call returns.
type stallWatch struct {
	l      *loop
	callID string
	notice time.Duration
	last   atomic.Int64 // UnixNano of the last sign of life
	stopc  chan struct{}
	done   sync.WaitGroup
}

func startStallWatch(l *loop, callID string) *stallWatch {
	w := &stallWatch{l: l, callID: callID, notice: l.StallNotice, stopc: make(chan struct{})}
	w.touch()
	w.done.Add(1)
	go w.run()
	return w
}

// touch records a sign of life of the stream.
func (w *stallWatch) touch() { w.last.Store(time.Now().UnixNano()) }

func (w *stallWatch) run() {
	defer w.done.Done()
	t := time.NewTimer(w.notice)
	defer t.Stop()
	for {
		select {
		case <-w.stopc:
			return
		case now := <-t.C:
			idle := now.Sub(time.Unix(0, w.last.Load()))
			if idle < w.notice {
				t.Reset(w.notice - idle)
				continue
			}
			w.l.emit(w.l.draft(ipc.TypeLLMCallStalled, ipc.ActorAgent, ipc.LLMCallStalled{
				CallID: w.callID, IdleMS: idle.Milliseconds(),
			}))
			t.Reset(w.notice)
		}
	}
}

// stop ends the watch and waits for its goroutine; no event follows it.
func (w *stallWatch) stop() {
	close(w.stopc)
	w.done.Wait()
}
