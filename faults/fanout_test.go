package faults

import (
	"fmt"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// burstTime is how long a reading client takes to receive a turn whose
// answer is a burst of n deltas, from the submit to turn.completed.
func burstTime(t *testing.T, in *instance, llm *llmtest.Server, sid string, cl *client, n int) time.Duration {
	t.Helper()
	llm.Enqueue(longReply(n, -1, nil))
	began := time.Now()
	in.submit(sid, "burst")
	cl.until("the burst turn's end", turnEnded)
	return time.Since(began)
}

// TestFanOutIdleSubscribers measures a 2,000-delta burst to one reading
// client alone, then with many idle subscribers (connected and subscribed
// to another session) and with many reading subscribers of the same
// session. It reports the ratios; it asserts only that every client got
// the whole turn (speed is measured, never asserted).
func TestFanOutIdleSubscribers(t *testing.T) {
	const deltas = 2000
	others := scale(200, 1000)
	llm := llmtest.NewServer(t)
	in := start(t, newDirs(t), llm.URL, "--max-connections", fmt.Sprint(2*others+10))
	sid, idleSid := in.session(), in.session()
	cl, _ := in.attach(sid, "")
	alone := burstTime(t, in, llm, sid, cl, deltas)
	var idle []*client
	for range others {
		c, _ := in.attach(idleSid, "")
		idle = append(idle, c)
	}
	withIdle := burstTime(t, in, llm, sid, cl, deltas)
	var same []*client
	for range others {
		c, _ := in.attach(sid, "")
		same = append(same, c)
	}
	withSame := burstTime(t, in, llm, sid, cl, deltas)
	for i, c := range same {
		c.until(fmt.Sprintf("subscriber %d: the turn's end", i), turnEnded)
	}
	rss := in.rss()
	rep.add(fmt.Sprintf("fan-out: a %d-delta burst to one client (time from submit to turn.completed)", deltas),
		fmt.Sprintf("alone %s; with %d idle subscribers (another session) %s (%.1fx); with %d subscribers of the same session, all reading %s (%.1fx); RSS with %d streams open %s",
			alone.Round(time.Millisecond), others, withIdle.Round(time.Millisecond), float64(withIdle)/float64(alone),
			others, withSame.Round(time.Millisecond), float64(withSame)/float64(alone), 2*others+1, mb(rss)))
	_ = idle
}
