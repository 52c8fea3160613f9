package rpc_test

import (
	"context"
	"fmt"
	"log/slog"

	"agenthub/ipc"
	"agenthub/ipc/rpc"
	"agenthub/ipc/rpc/hubtest"
)

// The dispatcher answers request frames — the flat envelope of
// docs/protocol.md, or seed 003's RoutedMessage — with the hub's methods
// (RegisterHub); every transport hands it the frames as they arrive.
func ExampleDispatcher() {
	bus, _ := ipc.NewBus(ipc.NewMemoryStore(), ipc.Options{PruneInterval: -1})
	defer bus.Close()
	d := rpc.NewDispatcher(slog.New(slog.DiscardHandler))
	rpc.RegisterHub(d, hubtest.New(bus), bus.Reader())

	ctx := context.Background()
	fmt.Printf("%s\n", d.DispatchFrame(ctx, []byte(`{"type":"request","requestId":"r1","method":"listSessions","params":{}}`)))
	fmt.Printf("%s\n", d.DispatchFrame(ctx, []byte(`{"type":"request","requestId":"r2","method":"noSuchMethod"}`)))
	// Output:
	// {"type":"response","requestId":"r1","ok":true,"payload":{"sessions":[]}}
	// {"type":"response","requestId":"r2","ok":false,"error":{"code":"METHOD_NOT_FOUND","message":"unknown method \"noSuchMethod\""}}
}
