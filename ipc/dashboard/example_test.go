package dashboard_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"agenthub/ipc"
	"agenthub/ipc/dashboard"
	"agenthub/ipc/rpc/hubtest"
)

// The dashboard listens on loopback with a fresh token; every route but
// the page itself wants it (Authorization: Bearer, or the token cookie the
// first load sets). MountAPI adds the protocol's HTTP and WebSocket routes
// over a bus and a hub.
func ExampleListen() {
	srv, err := dashboard.Listen(dashboard.Options{Addr: "127.0.0.1:0", Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	bus, _ := ipc.NewBus(ipc.NewMemoryStore(), ipc.Options{PruneInterval: -1})
	defer bus.Close()
	api, _ := dashboard.MountAPI(srv, dashboard.APIOptions{Bus: bus, Hub: hubtest.New(bus)})
	defer api.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	defer func() { cancel(); <-done }()

	get := func(path, token string) {
		req, _ := http.NewRequest(http.MethodGet, srv.BaseURL()+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(path, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	get("/healthz", "")
	get("/healthz", srv.Token())
	get("/sessions", srv.Token())
	// Output:
	// /healthz 401 unauthorized: the dashboard token is required (Authorization: Bearer TOKEN)
	// /healthz 200 {"status":"ok"}
	// /sessions 200 []
}
