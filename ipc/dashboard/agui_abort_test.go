package dashboard

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"agenthub/ipc"
	"agenthub/ipc/agui"
	"agenthub/store"
)

// A client that aborts its run ends the request's context and, with it,
// the run's subscription: both are ready when the stream looks, and the
// abort must win every time, or the turn is never cancelled (the flaky
// "abort: the turn is running" of TestAGUIClient, issue 35).
func TestAGUIAbortWinsOverTheClosedSubscription(t *testing.T) {
	ms := ipc.NewMemoryStore()
	if err := ms.Commit(nil, []store.Op{store.PutSession(store.Session{ID: "s"})}); err != nil {
		t.Fatal(err)
	}
	bus, err := ipc.NewBus(ms, ipc.Options{PruneInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	a := &API{bus: bus, log: slog.New(slog.NewTextHandler(io.Discard, nil)), stopped: make(chan struct{})}
	for i := range 64 {
		ctx, cancel := context.WithCancel(context.Background())
		sub, err := bus.Subscribe(ctx, ipc.SubscribeRequest{SessionID: "s", Filter: json.RawMessage(`"preset:chat"`), Name: "ag-ui"})
		if err != nil {
			t.Fatal(err)
		}
		cancel() // the client went away
		for range sub.Frames() {
		}
		<-sub.Done()
		rec := httptest.NewRecorder()
		s := &sseWriter{w: rec, rc: http.NewResponseController(rec)}
		if a.aguiStream(ctx, s, sub, agui.NewEncoder("th", "T", nil), aguiRun{sid: "s", turnID: "T"}) {
			t.Fatalf("try %d: the stream ended as if the run were over; the aborted run would not be cancelled", i)
		}
	}
}
