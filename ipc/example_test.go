package ipc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"agenthub/ipc"
	"agenthub/store"
)

// A bus on the in-memory store: a session is created with its record in
// the same commit, a subscriber attaches, and every event committed after
// that reaches it in log order. (Production runs the bus on
// ipc.BoltStore(db).)
func ExampleBus() {
	bus, err := ipc.NewBus(ipc.NewMemoryStore(), ipc.Options{PruneInterval: -1})
	if err != nil {
		panic(err)
	}
	defer bus.Close()
	ctx := context.Background()
	sess := store.Session{ID: "s1", Title: "demo", CreatedAt: time.Now()}
	if _, err := bus.Commit(ctx, ipc.Draft{Type: ipc.TypeSessionCreated, SessionID: "s1", Actor: ipc.ActorSystem,
		Payload: ipc.SessionChanged{Session: sess}, Ops: []store.Op{store.PutSession(sess)}}); err != nil {
		panic(err)
	}
	sub, err := bus.Subscribe(ctx, ipc.SubscribeRequest{SessionID: "s1", Filter: json.RawMessage(`"preset:chat"`)})
	if err != nil {
		panic(err)
	}
	defer sub.Close()
	for _, text := range []string{"Hel", "lo"} {
		if _, err := bus.Commit(ctx, ipc.Draft{Type: ipc.TypeTextDelta, SessionID: "s1", TurnID: "t1", Actor: ipc.ActorAgent,
			Payload: ipc.TextDelta{MessageID: "m1", Text: text}}); err != nil {
			panic(err)
		}
	}
	for range 2 {
		var frame struct {
			Event struct {
				Type    string `json:"type"`
				Payload struct {
					Text string `json:"text"`
				} `json:"payload"`
			} `json:"event"`
		}
		if err := json.Unmarshal((<-sub.Frames()).Data, &frame); err != nil {
			panic(err)
		}
		fmt.Println(frame.Event.Type, frame.Event.Payload.Text)
	}
	// Output:
	// text.delta Hel
	// text.delta lo
}

// A Store commits events and state together and reads them back through
// one consistent view. Every backend behaves the same way: the suite in
// ipc/storetest pins it.
func ExampleStore() {
	var st ipc.Store = ipc.NewMemoryStore()
	id := ulid.Make()
	err := st.Commit(
		[]store.EventRecord{{ID: id, SessionID: "s1", Type: ipc.TypeSessionCreated, Data: []byte(`{}`)}},
		[]store.Op{store.PutSession(store.Session{ID: "s1", Title: "demo"}),
			store.PutMessage(store.Message{ID: "m1", SessionID: "s1", Role: store.RoleUser})})
	if err != nil {
		panic(err)
	}
	_ = st.View(func(v ipc.StoreView) error {
		s, _ := v.Session("s1")
		m, _ := v.Message("s1", "m1")
		fmt.Println(s.Title, m.Offset, v.LastEventID() == id)
		return nil
	})
	// Output: demo 0 true
}
