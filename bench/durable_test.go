package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"agenthub/store"

	"github.com/coder/websocket"
)

// TestDurableFloorCommitsBeforeSending checks floor (c)'s one rule: every
// frame a client reads is already in the log, in the order sent.
func TestDurableFloorCommitsBeforeSending(t *testing.T) {
	f := &floor{}
	l, err := openDurableLog(t.TempDir(), f)
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	f.log = l
	srv := httptest.NewServer(http.HandlerFunc(f.ws))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	for { // the floor has registered the client
		f.mu.Lock()
		n := len(f.clients)
		f.mu.Unlock()
		if n == 1 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the floor never registered the client")
		case <-time.After(time.Millisecond):
		}
	}
	const n = 300
	go func() {
		for i := range n {
			l.in <- f.deltaFrame(strings.Repeat("x", i%7))
		}
	}()
	for i := range n {
		_, got, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		var stored []string
		if err := l.db.SessionEvents(l.session, [16]byte{}, func(r store.EventRecord) error {
			stored = append(stored, string(r.Data))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(stored) <= i || stored[i] != string(got) {
			t.Fatalf("frame %d was sent before it was committed in order (log holds %d)", i, len(stored))
		}
	}
}
