package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// durableLog is floor (c)'s log: the least a relay must do to keep Agent
// Hub's rule that a client never sees a delta that is not committed and
// fsynced. The reading goroutine hands each frame to one writer, which
// takes everything pending, commits it in one bbolt transaction with
// fsync through Agent Hub's store (records as the hub stores a text
// delta: the envelope, its session, the streaming tier, its message as
// the group), and then writes the frames to every client itself. One
// goroutine hand-off (the reader must go on reading while a commit
// waits on the disk), no subscriptions, no catch-up, no encoding beyond
// the relay's.
type durableLog struct {
	db      *store.DB
	in      chan []byte
	done    chan struct{}
	session string
	last    ulid.ULID
}

// openDurableLog opens (or creates) the log in dir and starts its writer,
// which broadcasts through f.
func openDurableLog(dir string, f *floor) (*durableLog, error) {
	if dir == "" {
		return nil, fmt.Errorf("the durable floor needs -floor-data")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	db, err := store.Open(filepath.Join(dir, "durable-floor.db"), store.Options{})
	if err != nil {
		return nil, err
	}
	l := &durableLog{db: db, in: make(chan []byte, 1<<16), done: make(chan struct{}), session: ulid.Make().String()}
	go l.write(f)
	return l, nil
}

// durableRelay streams one answer and hands every frame to the log.
func (f *floor) durableRelay(upstream string) {
	streamAnswer(upstream, func(text string) { f.log.in <- f.deltaFrame(text) }, func() { f.log.in <- f.endFrame() })
}

// write is the single writer: commit what is pending, then broadcast it.
func (l *durableLog) write(f *floor) {
	defer close(l.done)
	var batch [][]byte
	for {
		b, ok := <-l.in
		if !ok {
			return
		}
		batch = append(batch[:0], b)
	drain:
		for {
			select {
			case b, ok := <-l.in:
				if !ok {
					break drain
				}
				batch = append(batch, b)
			default:
				break drain
			}
		}
		recs := make([]store.EventRecord, len(batch))
		for i, b := range batch {
			recs[i] = store.EventRecord{ID: l.nextID(), SessionID: l.session, Type: "text.delta", Streaming: true, Data: b, Actor: "agent", Group: "m"}
		}
		if err := l.db.Commit(recs, nil); err != nil {
			fmt.Fprintln(os.Stderr, "durable floor: commit:", err)
			os.Exit(1)
		}
		for _, b := range batch {
			f.broadcast(b)
		}
	}
}

// nextID returns an id greater than every one before it.
func (l *durableLog) nextID() ulid.ULID {
	id := ulid.MustNew(max(ulid.Timestamp(time.Now()), l.last.Time()), ulid.DefaultEntropy())
	if id.Compare(l.last) <= 0 {
		id = l.last
		for i := 15; i >= 6; i-- { // +1 within the millisecond
			if id[i]++; id[i] != 0 {
				break
			}
		}
	}
	l.last = id
	return id
}

func (l *durableLog) close() {
	close(l.in)
	<-l.done
	_ = l.db.Close()
}
