package natsroute

import (
	"agenthub/app/apptest"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"agenthub/gateway"
	"agenthub/gateway/client"
	"agenthub/gateway/client/clienttest"
	"agenthub/gateway/natsroute/natstest"
	"agenthub/gateway/wire"
)

// startCluster runs n embedded nats-server nodes for the test.
func startCluster(t *testing.T, n int) *natstest.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := natstest.Start(ctx, t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// instance is one gateway of the fleet: a real gateway.Server on loopback
// whose Registry and Router are a Fleet.
type instance struct {
	name  string
	fleet *Fleet
	gw    *gateway.Server
	hs    *httptest.Server
	url   string
	addr  string
}

// startInstance joins the fleet at natsURL with opts (URL and Name set here).
func startInstance(t *testing.T, name, natsURL string, opts Options) *instance {
	t.Helper()
	opts.URL, opts.Name = natsURL, name
	if opts.Logger == nil {
		opts.Logger = testLog(t).With("gw", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := Connect(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	gw := gateway.New(gateway.Options{Registry: f, Router: f, WebSocketOnly: true, Logger: opts.Logger})
	hs := httptest.NewServer(gw.Handler())
	in := &instance{name: name, fleet: f, gw: gw, hs: hs, url: hs.URL, addr: hs.Listener.Addr().String()}
	t.Cleanup(in.close)
	return in
}

// close stops the instance as SIGTERM does: sockets closed, claims
// released, the fleet left.
func (in *instance) close() {
	in.gw.Close()
	in.hs.Close()
	in.fleet.Close()
}

// crash stops the instance as kill -9 does, as the fleet sees it: its NATS
// connection drops first, nothing is released (its claims expire after
// the TTL), and its sockets are cut.
func (in *instance) crash() {
	in.fleet.nc.Close()
	in.hs.CloseClientConnections()
	in.close()
}

// device is a gateway/client.Client with what it receives on channels.
type device struct {
	*client.Client
	msgs   chan wire.RoutedMessage
	errs   chan wire.SendError
	fails  chan error
	states chan client.State
}

func dial(t *testing.T, url, id, typ string) *device {
	t.Helper()
	return dialAs(t, client.Options{URL: url, DeviceID: id, DeviceType: typ}, nil)
}

// dialAs connects a device with opts plus the harness's reconnect timings
// and logger; adjust, if not nil, changes its callbacks first.
func dialAs(t *testing.T, opts client.Options, adjust func(*device, *client.Callbacks)) *device {
	t.Helper()
	d := &device{msgs: make(chan wire.RoutedMessage, 8192), errs: make(chan wire.SendError, 256),
		fails: make(chan error, 64), states: make(chan client.State, 256)}
	opts.ReconnectDelay, opts.ReconnectDelayMax, opts.ConnectTimeout = 20*time.Millisecond, 200*time.Millisecond, time.Second
	opts.Logger = testLog(t).With("device", opts.DeviceID)
	cb := client.Callbacks{
		OnMessage:     func(m wire.RoutedMessage) { d.msgs <- m },
		OnSendError:   func(e wire.SendError) { d.errs <- e },
		OnError:       func(err error) { nonBlocking(d.fails, err) },
		OnStateChange: func(s client.State) { nonBlocking(d.states, s) },
	}
	if adjust != nil {
		adjust(d, &cb)
	}
	d.Client = clienttest.Connect(t, opts, cb)
	return d
}

// dropped reports whether d's connection dropped since the last call (it
// reads the states d reported meanwhile).
func (d *device) dropped() bool {
	for {
		select {
		case s := <-d.states:
			if s == client.Disconnected {
				for len(d.states) > 0 {
					<-d.states
				}
				return true
			}
		default:
			return false
		}
	}
}

func nonBlocking[T any](ch chan T, v T) {
	select {
	case ch <- v:
	default:
	}
}

// ready waits until d is registered on a connection that answers a ping.
func (d *device) ready(t *testing.T) {
	t.Helper()
	for {
		for s := recv(t, d.states); s != client.Registered; s = recv(t, d.states) {
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := d.Ping(ctx)
		cancel()
		if err == nil {
			return
		}
	}
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	return apptest.Recv(t, ch, 20*time.Second)
}

// devices is list-devices as d's instance answers it.
func (d *device) devices(t *testing.T) []wire.DeviceInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	devs, err := d.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return devs
}

func testLog(t *testing.T) *slog.Logger {
	return clienttest.Log(t, slog.LevelInfo)
}

// rawResult is one bare socket's registration.
type rawResult struct {
	ok    bool
	err   string
	close func()
}

// rawRegister connects one bare Socket.io socket as id and reports its
// `registered` (an attempt the client library lost is tried again).
func rawRegister(t *testing.T, base, id string) *rawResult {
	for try := 0; try < 10; try++ {
		s := clienttest.NewRawSocket(base, url.Values{wire.QueryDeviceID: {id}, wire.QueryDeviceType: {wire.TypeClient}})
		reg := make(chan wire.Registered, 1)
		failed := make(chan struct{}, 1)
		_ = s.On(wire.EventRegistered, func(args ...any) {
			var r wire.Registered
			if len(args) > 0 {
				b, _ := json.Marshal(args[0])
				_ = json.Unmarshal(b, &r)
			}
			nonBlocking(reg, r)
		})
		fail := func() { nonBlocking(failed, struct{}{}) }
		_ = s.On("connect_error", func(...any) { fail() })
		s.Open(fail)
		select {
		case r := <-reg:
			t.Cleanup(s.Close)
			return &rawResult{ok: r.Success, err: r.Error, close: s.Close}
		case <-failed:
		case <-time.After(5 * time.Second):
		}
		s.Close()
	}
	t.Error("could not connect")
	return &rawResult{err: "could not connect", close: func() {}}
}
