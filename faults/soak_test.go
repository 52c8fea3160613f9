package faults

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/app/llm/llmtest"
)

// TestSoak runs turns back to back (text with a tool call every third
// turn) while three clients keep reconnecting from their cursors, sampling
// the process's RSS and the database size. Every client must see strictly
// increasing ids (no duplicates across reconnects); the figures go to the
// report: turns, events, RSS and database series, disk cost per turn.
func TestSoak(t *testing.T) {
	duration := scale(8*time.Second, 30*time.Minute)
	sample := scale(2*time.Second, time.Minute)
	d := newDirs(t)
	llm := llmtest.NewServer(t)
	llm.StopRecording()
	// A short heartbeat: the clients answer pings while they stream.
	in := start(t, d, llm.URL, "--heartbeat", scale("1s", "5s"))
	sid := in.session()
	dbPath := filepath.Join(d.data, "agenthub.db")

	// Three reconnecting clients.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	reconnects, clientEvents := 0, 0
	errs := make(chan error, 3)
	for c := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cursor := ""
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				cl, ack := in.attach(sid, cursor)
				if ack.Type != "subscribe_ack" {
					errs <- fmt.Errorf("client %d: resume from %s: %+v", c, cursor, ack)
					return
				}
				want := 50 + 37*c + n%50
				for got := 0; got < want; {
					select {
					case f, ok := <-cl.frames:
						if !ok {
							errs <- fmt.Errorf("client %d: connection ended: %v", c, cl.err)
							return
						}
						if f.Event == nil {
							continue
						}
						if cursor != "" && f.Event.ID <= cursor {
							errs <- fmt.Errorf("client %d: id %s after %s", c, f.Event.ID, cursor)
							return
						}
						cursor = f.Event.ID
						got++
						mu.Lock()
						clientEvents++
						mu.Unlock()
					case <-stop:
						cl.close()
						return
					}
				}
				cl.close()
				mu.Lock()
				reconnects++
				mu.Unlock()
			}
		}()
	}

	type point struct {
		at            time.Duration
		rss, anon, db int64
		turns         int
	}
	var series []point
	began := time.Now()
	nextSample := began
	dbStart := fileSize(dbPath)
	steady, _ := in.attach(sid, "")
	turns := 0
	for time.Since(began) < duration {
		if turns%3 == 2 {
			toolTurn(llm, [3]string{fmt.Sprintf("t%d", turns), "bash", `{"command":"seq 1 200"}`})
		} else {
			s := llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 100, Output: 1}).BeginText()
			for i := range 40 {
				s.TextDelta(fmt.Sprintf("word%d ", i))
			}
			llm.Enqueue(s.EndBlock().Finish("end_turn", 40).Response())
		}
		in.submit(sid, fmt.Sprintf("turn %d %s", turns, strings.Repeat("x", 100)))
		steady.until("the turn's end", turnEnded)
		turns++
		if time.Now().After(nextSample) {
			series = append(series, point{at: time.Since(began), rss: in.rss(), anon: in.rssAnon(), db: fileSize(dbPath), turns: turns})
			nextSample = nextSample.Add(sample)
		}
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
	}
	close(stop)
	wg.Wait()
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	dbEnd := fileSize(dbPath)
	series = append(series, point{at: time.Since(began), rss: in.rss(), anon: in.rssAnon(), db: dbEnd, turns: turns})
	var rssMin, rssMax, anonMin, anonMax int64 = 1 << 62, 0, 1 << 62, 0
	var cells []string
	for _, p := range series {
		rssMin, rssMax = min(rssMin, p.rss), max(rssMax, p.rss)
		anonMin, anonMax = min(anonMin, p.anon), max(anonMax, p.anon)
		cells = append(cells, fmt.Sprintf("%s: %d turns, RSS %s (anonymous %s), db %s", p.at.Round(time.Second), p.turns, mb(p.rss), mb(p.anon), mb(p.db)))
	}
	perTurn := float64(dbEnd-dbStart) / float64(turns)
	rep.add(fmt.Sprintf("soak, %s: turns back to back (a bash call every third), 3 clients reconnecting from their cursors", duration),
		fmt.Sprintf("%d turns, %d reconnects, %d events to clients, 0 duplicates; RSS %s–%s, of it anonymous (heap, stacks; the rest is the mmap'd database's file pages) %s–%s; database %s → %s (%.1f KB per turn); series: %s",
			turns, reconnects, clientEvents, mb(rssMin), mb(rssMax), mb(anonMin), mb(anonMax), mb(dbStart), mb(dbEnd), perTurn/1024, strings.Join(cells, "; ")))
}
