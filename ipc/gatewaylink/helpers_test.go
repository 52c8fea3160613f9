package gatewaylink_test

import (
	"agenthub/app/apptest"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/gateway"
	"agenthub/gateway/client"
	"agenthub/gateway/client/clienttest"
	"agenthub/gateway/wire"
	"agenthub/ipc"
	"agenthub/ipc/devices"
	"agenthub/ipc/dialect"
	"agenthub/ipc/gatewaylink"
	"agenthub/ipc/rpc"
	"agenthub/ipc/rpc/hubtest"
	"agenthub/store"
)

// env is a hub (the real bus on bbolt, hubtest's scripted hub, the seed 003
// dispatcher) linked to a real gateway over loopback.
type env struct {
	bus     *ipc.Bus
	hub     *hubtest.Hub
	trust   *devices.Store
	mgr     *gatewaylink.Manager
	url     string
	hubID   string
	pending chan []gatewaylink.PendingDevice
}

// fast is the client tuning of every test connection: quick retries (the
// Socket.io library sometimes loses a connection's "open"; the client's
// loop retries it).
var fast = client.Options{ReconnectDelay: 20 * time.Millisecond, ReconnectDelayMax: 200 * time.Millisecond, ConnectTimeout: time.Second}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvOn(t, gateway.Options{})
}

// newEnvOn is newEnv on a gateway made with gwOpts (its logger set here).
func newEnvOn(t *testing.T, gwOpts gateway.Options) *env {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "hub.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	bus, err := ipc.NewBus(ipc.BoltStore(db), ipc.Options{PruneInterval: -1, Dialects: dialect.New()})
	if err != nil {
		t.Fatal(err)
	}
	h := hubtest.New(bus)
	d := rpc.NewDispatcher(nil)
	rpc.RegisterHub(d, h, bus.Reader())
	gwOpts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})).With("side", "gateway")
	gw := gateway.New(gwOpts)
	hs := httptest.NewServer(gw.Handler())
	e := &env{bus: bus, hub: h, trust: devices.Open(dir), url: hs.URL, pending: make(chan []gatewaylink.PendingDevice, 16)}
	e.mgr, err = gatewaylink.NewManager(gatewaylink.Options{Bus: bus, RPC: d, Devices: e.trust, Client: fast,
		ConfirmTimeout: 20 * time.Second, Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})).With("side", "hub"), OnPending: func(p []gatewaylink.PendingDevice) { e.pending <- p }})
	if err != nil {
		t.Fatal(err)
	}
	gatewaylink.RegisterMethods(d, e.mgr)
	if err := e.mgr.Configure(hs.URL, false); err != nil {
		t.Fatal(err)
	}
	e.hubID, _ = e.trust.HubID()
	t.Cleanup(func() {
		e.mgr.Close()
		gw.Close()
		hs.Close()
		h.Close()
		_ = bus.Close()
		_ = db.Close()
	})
	return e
}

// peer is a device: the Go GatewayClient, its messages and its verify.
type peer struct {
	*client.Client
	msgs     chan wire.RoutedMessage
	verified chan client.VerifyResult
	errs     chan error
	regs     chan string
}

// dial connects a device; with hubID it verifies with token first, as the
// SDK does.
func (e *env) dial(t *testing.T, id, hubID, token string) *peer {
	t.Helper()
	p := &peer{msgs: make(chan wire.RoutedMessage, 4096), verified: make(chan client.VerifyResult, 8),
		errs: make(chan error, 64), regs: make(chan string, 8)}
	opts := fast
	opts.URL, opts.DeviceID, opts.DeviceType, opts.HubID, opts.Token = e.url, id, wire.TypeClient, hubID, token
	opts.Meta = map[string]string{"userAgent": "gatewaylink test"}
	opts.Logger = clienttest.Log(t, slog.LevelDebug)
	p.Client = clienttest.Connect(t, opts, client.Callbacks{
		OnMessage:    func(m wire.RoutedMessage) { p.msgs <- m },
		OnVerified:   func(r client.VerifyResult) { p.verified <- r },
		OnRegistered: func(id string) { p.regs <- id },
		OnSendError: func(se wire.SendError) {
			t.Logf("%s: send_error %+v", id, se)
		},
		OnError: func(err error) {
			select {
			case p.errs <- err:
			default:
			}
		},
	})
	return p
}

// waitHub waits until the hub is registered at the gateway.
func (e *env) waitHub(t *testing.T) {
	t.Helper()
	deadline := time.After(15 * time.Second)
	for e.mgr.Status().State != string(client.Registered) {
		select {
		case <-deadline:
			t.Fatalf("hub never registered: %+v", e.mgr.Status())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// pair mints a token and connects a device that verifies with it; the
// hub's user answers allow with rights.
func (e *env) pair(t *testing.T, id string, rights devices.Rights) (*peer, string) {
	t.Helper()
	e.waitHub(t)
	pv, err := e.mgr.Pair(rights)
	if err != nil {
		t.Fatal(err)
	}
	p := e.dial(t, id, e.hubID, pv.Token)
	for {
		list := recv(t, e.pending)
		if len(list) == 1 && list[0].DeviceID == id {
			if list[0].Meta["userAgent"] != "gatewaylink test" || list[0].Rights != rights {
				t.Fatalf("pending %+v", list[0])
			}
			break
		}
	}
	if err := e.mgr.Answer(id, true, ""); err != nil {
		t.Fatal(err)
	}
	// (IsNewDevice is false when the device's connection dropped while it
	// waited and its retry found it already confirmed.)
	if r := recv(t, p.verified); r.HubID != e.hubID || r.Rights != string(rights) {
		t.Fatalf("verify result %+v", r)
	}
	p.ready(t)
	return p, pv.Token
}

// ready waits until p is registered on a connection that stays up (the
// gateway answers its ping).
func (p *peer) ready(t *testing.T) {
	t.Helper()
	for {
		recv(t, p.regs)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := p.Ping(ctx)
		cancel()
		if err == nil {
			return
		}
	}
}

// failure waits for an error naming code (connection hiccups before it
// are retried by the client and skipped here).
func (p *peer) failure(t *testing.T, code string) error {
	t.Helper()
	for {
		if err := recv(t, p.errs); strings.Contains(err.Error(), code) {
			return err
		}
	}
}

// call is one RPC to the hub; a failure is returned as *client.RPCError.
func (p *peer) call(t *testing.T, hubID, method string, params any) (json.RawMessage, *client.RPCError) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	raw, err := p.Request(ctx, hubID, method, params)
	var re *client.RPCError
	if errors.As(err, &re) {
		return nil, re
	}
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return raw, nil
}

// must is call expecting success.
func (p *peer) must(t *testing.T, hubID, method string, params any, out any) {
	t.Helper()
	clienttest.Must(t, p.Client, hubID, method, params, out)
}

// next returns the next message of action.
func (p *peer) next(t *testing.T, action string) wire.RoutedMessage {
	t.Helper()
	for {
		m := recv(t, p.msgs)
		if m.Action == action {
			return m
		}
	}
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	return apptest.Recv(t, ch, 20*time.Second)
}
