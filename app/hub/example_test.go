package hub_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"agenthub/app/hub"
	"agenthub/app/llm/llmtest"
	"agenthub/app/permission"
	"agenthub/ipc"
)

// A hub on a bus: a session is created, a turn submitted, and a
// subscriber of the session sees the turn through to its end. The
// providers here are the in-memory twin; the app passes an *llm.Registry,
// and its bus runs on bbolt (ipc.BoltStore).
func ExampleHub() {
	dir, _ := os.MkdirTemp("", "hub-example")
	defer os.RemoveAll(dir)
	bus, _ := ipc.NewBus(ipc.NewMemoryStore(), ipc.Options{PruneInterval: -1})
	defer bus.Close()
	h, err := hub.New(hub.Config{DataDir: dir, DefaultWorkspace: dir, DefaultModel: "anthropic:claude-sonnet-4-6",
		ApprovalMode: permission.ModeAutoAll}, bus, llmtest.NewScripted(llmtest.TextReply("Hello!")), nil)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := h.Start(ctx); err != nil {
		panic(err)
	}
	defer h.Close()

	s, _ := h.CreateSession(ctx, ipc.CreateSessionRequest{Title: "demo"})
	sub, _ := bus.Subscribe(ctx, ipc.SubscribeRequest{SessionID: s.ID, Filter: json.RawMessage(`"preset:chat"`)})
	defer sub.Close()
	if _, err := h.SubmitTurn(ctx, s.ID, "Hi"); err != nil {
		panic(err)
	}
	for f := range sub.Frames() {
		var fr struct {
			Event ipc.Event `json:"event"`
		}
		_ = json.Unmarshal(f.Data, &fr)
		switch fr.Event.Type {
		case ipc.TypeTurnStarted, ipc.TypeMessageComplete, ipc.TypeTurnCompleted:
			fmt.Println(fr.Event.Type)
		}
		if fr.Event.Type == ipc.TypeTurnCompleted {
			break
		}
	}
	// Output:
	// turn.started
	// message.complete
	// turn.completed
}
