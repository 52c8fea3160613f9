package wailsipc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"agenthub/ipc"
	"agenthub/ipc/rpc/hubtest"
	"agenthub/ipc/wailsipc"
	"agenthub/store"
)

// chanEmitter hands the batches the window would receive to the example.
type chanEmitter chan json.RawMessage

func (c chanEmitter) Emit(_ string, data ...any) { c <- data[0].(json.RawMessage) }

// The window's transport: the page says Hello and subscribes through the
// bound Bridge; the session's frames reach it as `localChat:event`
// batches — consecutive deltas of one text block joined into one frame —
// through the Emitter (the app's is its window shell, over the Wails
// runtime).
func ExampleService() {
	bus, _ := ipc.NewBus(ipc.NewMemoryStore(), ipc.Options{PruneInterval: -1})
	defer bus.Close()
	ctx := context.Background()
	s := store.Session{ID: "s1", CreatedAt: time.Now()}
	_, _ = bus.Commit(ctx, ipc.Draft{Type: ipc.TypeSessionCreated, SessionID: "s1", Actor: ipc.ActorSystem,
		Payload: ipc.SessionChanged{Session: s}, Ops: []store.Op{store.PutSession(s)}})

	batches := make(chanEmitter, 16)
	svc, err := wailsipc.NewService(wailsipc.Options{Bus: bus, Hub: hubtest.New(bus), Emitter: batches})
	if err != nil {
		panic(err)
	}
	defer svc.Close()
	page := svc.Bridge()
	_ = page.Hello("page-1")
	ack, _ := page.Subscribe("s1", "preset:chat", nil, false, "")
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(ack.(json.RawMessage), &head)
	fmt.Println(head.Type)

	for _, text := range []string{"Hel", "lo"} {
		_ = bus.Emit(ipc.Draft{Type: ipc.TypeTextDelta, SessionID: "s1", TurnID: "t1", Actor: ipc.ActorAgent,
			Payload: ipc.TextDelta{MessageID: "m1", Text: text}})
	}
	var got string
	for got != "Hello" {
		var b wailsipc.Batch
		_ = json.Unmarshal(<-batches, &b)
		for _, f := range b.Frames {
			var fr struct {
				Event struct {
					Payload ipc.TextDelta `json:"payload"`
				} `json:"event"`
			}
			_ = json.Unmarshal(f, &fr)
			got += fr.Event.Payload.Text
		}
	}
	fmt.Println(got)
	// Output:
	// subscribe_ack
	// Hello
}
