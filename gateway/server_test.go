package gateway_test

import (
	"agenthub/app/apptest"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"agenthub/gateway"
	"agenthub/gateway/client"
	"agenthub/gateway/client/clienttest"
	"agenthub/gateway/wire"

	sio "github.com/zishang520/socket.io/clients/socket/v3"
)

// device is a client.Client with its messages, errors and states on channels.
type device struct {
	*client.Client
	msgs   chan wire.RoutedMessage
	errs   chan wire.SendError
	fails  chan error
	states chan client.State
}

func startGateway(t *testing.T) (*gateway.Server, string) {
	t.Helper()
	gw := gateway.New(gateway.Options{Logger: testLog(t).With("gateway", "")})
	hs := httptest.NewServer(gw.Handler())
	t.Cleanup(func() { gw.Close(); hs.Close() })
	return gw, hs.URL
}

func connect(t *testing.T, url, id, typ string) *device {
	t.Helper()
	d := &device{msgs: make(chan wire.RoutedMessage, 64), errs: make(chan wire.SendError, 8),
		fails: make(chan error, 8), states: make(chan client.State, 64)}
	// Reconnecting, as every real device does: the Socket.io client library
	// sometimes loses a connection's "open" (docs/gateway.md) and the
	// client's loop then tries again.
	d.Client = clienttest.Connect(t, client.Options{URL: url, DeviceID: id, DeviceType: typ, ReconnectDelay: 20 * time.Millisecond, ConnectTimeout: time.Second, Logger: testLog(t).With("url", url)},
		client.Callbacks{
			OnMessage:     func(m wire.RoutedMessage) { d.msgs <- m },
			OnSendError:   func(e wire.SendError) { d.errs <- e },
			OnError:       func(err error) { d.fails <- err },
			OnStateChange: func(s client.State) { d.states <- s },
		})
	return d
}

func (d *device) await(t *testing.T, want client.State) {
	t.Helper()
	for {
		select {
		case s := <-d.states:
			if s == want {
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: never %s", d.DeviceID(), want)
		}
	}
}

// ready waits until d is registered on a connection that stays up: the
// gateway answers its ping (see connect: a connection the library spoiled
// is closed by the gateway before the ping's answer).
func (d *device) ready(t *testing.T) {
	t.Helper()
	for {
		d.await(t, client.Registered)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := d.Ping(ctx)
		cancel()
		if err == nil {
			return
		}
		t.Logf("%s: %v; waiting for the next connection", d.DeviceID(), err)
	}
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	return apptest.Recv(t, ch, 10*time.Second)
}

func TestRoutesByDeviceID(t *testing.T) {
	_, url := startGateway(t)
	hub := connect(t, url, "hub-1", wire.TypeHub)
	phone := connect(t, url, "phone-1", wire.TypeClient)
	hub.ready(t)
	phone.ready(t)

	id, err := phone.Send("hub-1", "hello", map[string]string{"greeting": "hi"})
	if err != nil {
		t.Fatal(err)
	}
	m := recv(t, hub.msgs)
	if m.ID != id || m.From != "phone-1" || m.To != "hub-1" || m.Action != "hello" || string(m.Payload) != `{"greeting":"hi"}` || m.FromConn == "" {
		t.Fatalf("delivered %+v", m)
	}
	if m.UID != nil {
		t.Fatalf("uid = %v, want null", *m.UID)
	}

	// To nobody: send_error DEVICE_NOT_FOUND naming the message; nothing kept.
	id, _ = phone.Send("laptop-9", "hello", map[string]string{})
	if e := recv(t, phone.errs); e.Code != wire.CodeDeviceNotFound || e.MessageID != id {
		t.Fatalf("send_error %+v", e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	devs, err := phone.ListDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 2 || devs[0] != (wire.DeviceInfo{DeviceID: "hub-1", DeviceType: "hub"}) || devs[1] != (wire.DeviceInfo{DeviceID: "phone-1", DeviceType: "client"}) {
		t.Fatalf("devices %+v", devs)
	}
	if pong, err := phone.Ping(ctx); err != nil || pong == "" {
		t.Fatalf("ping: %q %v", pong, err)
	}
	// A late connect of laptop-9 gets nothing of what was sent before it.
	laptop := connect(t, url, "laptop-9", wire.TypeClient)
	laptop.ready(t)
	if _, err := hub.Send("laptop-9", "hello", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if m := recv(t, laptop.msgs); string(m.Payload) != `{"n":1}` {
		t.Fatalf("laptop got %s first: the gateway kept a message", m.Payload)
	}
}

func TestSecondSocketForAnIDIsRefused(t *testing.T) {
	gw, url := startGateway(t)
	first := connect(t, url, "hub-1", wire.TypeHub)
	first.ready(t)
	second := connect(t, url, "hub-1", wire.TypeHub)
	for err := recv(t, second.fails); !strings.Contains(err.Error(), "Device ID already in use"); err = recv(t, second.fails) {
		t.Logf("second socket: %v", err)
	}
	second.Close()
	// The first keeps its id and its messages.
	devs, _ := gw.Devices()
	if len(devs) != 1 {
		t.Fatalf("devices %+v", devs)
	}
	phone := connect(t, url, "phone", wire.TypeClient)
	phone.ready(t)
	if _, err := phone.Send("hub-1", "x", 1); err != nil {
		t.Fatal(err)
	}
	recv(t, first.msgs)
	// Once the first is gone the id is free again: a device that keeps
	// trying (as a restarted hub does) gets it.
	first.Close()
	regs := make(chan string, 4)
	third, err := client.New(client.Options{URL: url, DeviceID: "hub-1", DeviceType: wire.TypeHub, ReconnectDelay: 20 * time.Millisecond},
		client.Callbacks{OnRegistered: func(id string) { regs <- id }})
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	third.Connect()
	recv(t, regs)
}

func TestBadHandshakeIsRefused(t *testing.T) {
	_, base := startGateway(t)
	for _, q := range []url.Values{
		{"deviceId": {"x"}, "deviceType": {"server"}},
		{"deviceType": {"client"}},
		{"deviceId": {"a b"}, "deviceType": {"client"}},
	} {
		if _, r := rawSocket(t, base, q, nil); r.Success || r.Error == "" {
			t.Fatalf("%v: registered %+v", q, r)
		}
	}
}

// TestSpoofedFromIsRefused: a device may only send as itself — a message
// whose from names another device is answered INVALID_MESSAGE and not
// delivered; a malformed one likewise; a fromConn the sender wrote is
// replaced by the gateway's.
func TestSpoofedFromIsRefused(t *testing.T) {
	_, base := startGateway(t)
	hub := connect(t, base, "hub-1", wire.TypeHub)
	laptop := connect(t, base, "laptop", wire.TypeClient)
	mallory := connect(t, base, "mallory", wire.TypeClient)
	hub.ready(t)
	laptop.ready(t)
	mallory.ready(t)
	send := func(m wire.RoutedMessage) wire.SendError {
		t.Helper()
		if err := mallory.SendMessage(m); err != nil {
			t.Fatal(err)
		}
		return recv(t, mallory.errs)
	}
	req := json.RawMessage(`{"requestId":"r1","method":"submitTurn"}`)
	if e := send(wire.RoutedMessage{ID: "m1", From: "laptop", To: "hub-1", Action: "request", Payload: req}); e.Code != wire.CodeInvalidMessage || e.MessageID != "m1" {
		t.Fatalf("spoofed from: %+v", e)
	}
	if e := send(wire.RoutedMessage{ID: "m2", From: "mallory", To: "hub-1", Payload: req}); e.Code != wire.CodeInvalidMessage {
		t.Fatalf("no action: %+v", e)
	}
	if e := send(wire.RoutedMessage{From: "mallory", To: "hub-1", Action: "x", Payload: req}); e.Code != wire.CodeInvalidMessage {
		t.Fatalf("no id: %+v", e)
	}
	// Mallory's own messages do arrive, stamped as hers.
	if err := mallory.SendMessage(wire.RoutedMessage{ID: "m3", From: "mallory", To: "hub-1", Action: "x", Payload: json.RawMessage("1"), FromConn: "laptop-conn"}); err != nil {
		t.Fatal(err)
	}
	m := recv(t, hub.msgs)
	if m.ID != "m3" || m.From != "mallory" || m.FromConn == "laptop-conn" || m.FromConn == "" {
		t.Fatalf("delivered %+v", m)
	}
	select {
	case m := <-hub.msgs:
		t.Fatalf("a refused message was delivered: %+v", m)
	default:
	}
}

// TestDevicesReconnectAfterRestart: a gateway that goes away and comes back
// on the same address gets every device back (the client's own loop).
func TestDevicesReconnectAfterRestart(t *testing.T) {
	gw := gateway.New(gateway.Options{})
	hs := httptest.NewServer(gw.Handler())
	addr := hs.Listener.Addr().String()
	hub := connect(t, hs.URL, "hub-1", wire.TypeHub)
	hub.ready(t)
	gw.Close()
	hs.Close()
	hub.await(t, client.Disconnected)
	gw2 := gateway.New(gateway.Options{})
	hs2 := httptest.NewUnstartedServer(gw2.Handler())
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("address %s not free again: %v", addr, err)
	}
	hs2.Listener = ln
	hs2.Start()
	defer func() { gw2.Close(); hs2.Close() }()
	hub.ready(t)
	devs, _ := gw2.Devices()
	if len(devs) != 1 || devs[0].DeviceID != "hub-1" {
		t.Fatalf("devices after restart %+v", devs)
	}
}

// rawSocket connects a bare Socket.io socket with handshake query q and
// returns it with the `registered` payload, retrying an attempt the
// library lost (see connect). on adds listeners before connecting.
func rawSocket(t *testing.T, base string, q url.Values, on func(*sio.Socket)) (*sio.Socket, wire.Registered) {
	t.Helper()
	for try := 0; try < 10; try++ {
		s := clienttest.NewRawSocket(base, q)
		reg := make(chan wire.Registered, 1)
		failed := make(chan struct{}, 1)
		_ = s.On(wire.EventRegistered, func(args ...any) {
			var r wire.Registered
			b, _ := json.Marshal(args[0])
			_ = json.Unmarshal(b, &r)
			reg <- r
		})
		fail := func() {
			select {
			case failed <- struct{}{}:
			default:
			}
		}
		_ = s.On("connect_error", func(...any) { fail() })
		if on != nil {
			on(s.Socket)
		}
		s.Open(fail)
		select {
		case r := <-reg:
			t.Cleanup(func() { s.Disconnect() })
			return s.Socket, r
		case <-failed:
		case <-time.After(10 * time.Second): // an attempt the client library lost (see clienttest.RawSocket.Open)
			t.Logf("%v: no registered within 10 s; a fresh socket tries again", q)
		}
		s.Close() // a slow attempt may have registered after all
	}
	t.Fatal("could not connect")
	return nil, wire.Registered{}
}

// testLog logs the clients' connection steps into the test's output.
func testLog(t *testing.T) *slog.Logger {
	return clienttest.Log(t, slog.LevelDebug)
}
