package natsroute

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/gateway/client"
	"agenthub/gateway/client/clienttest"
	"agenthub/gateway/natsroute/natstest"
	"agenthub/gateway/wire"
	"agenthub/ipc"
	"agenthub/ipc/devices"
	"agenthub/ipc/gatewaylink"
	"agenthub/ipc/rpc"
	"agenthub/ipc/rpc/hubtest"
	"agenthub/store"
)

// hubSide is a real hub (the bus on bbolt, hubtest's hub, the seed 003
// dispatcher, the gateway link) connected out to a gateway URL.
type hubSide struct {
	bus   *ipc.Bus
	mgr   *gatewaylink.Manager
	hubID string
	asked chan []gatewaylink.PendingDevice
}

func startHub(t *testing.T, gatewayURL string) *hubSide {
	t.Helper()
	dir := t.TempDir()
	db, err := store.Open(filepath.Join(dir, "hub.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	bus, err := ipc.NewBus(ipc.BoltStore(db), ipc.Options{PruneInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	h := hubtest.New(bus)
	d := rpc.NewDispatcher(nil)
	rpc.RegisterHub(d, h, bus.Reader())
	trust := devices.Open(dir)
	hs := &hubSide{bus: bus, asked: make(chan []gatewaylink.PendingDevice, 16)}
	hs.mgr, err = gatewaylink.NewManager(gatewaylink.Options{Bus: bus, RPC: d, Devices: trust,
		Client:         client.Options{ReconnectDelay: 20 * time.Millisecond, ReconnectDelayMax: 200 * time.Millisecond, ConnectTimeout: time.Second},
		ConfirmTimeout: 20 * time.Second, Logger: testLog(t).With("side", "hub"),
		OnPending: func(p []gatewaylink.PendingDevice) { hs.asked <- p }})
	if err != nil {
		t.Fatal(err)
	}
	gatewaylink.RegisterMethods(d, hs.mgr)
	if err := hs.mgr.Configure(gatewayURL, false); err != nil {
		t.Fatal(err)
	}
	hs.hubID, _ = trust.HubID()
	t.Cleanup(func() {
		hs.mgr.Close()
		h.Close()
		_ = bus.Close()
		_ = db.Close()
	})
	return hs
}

// pair mints a token and connects a client device at url that verifies
// with it; the hub's user allows it.
func (hs *hubSide) pair(t *testing.T, url, id string) (*device, string) {
	t.Helper()
	pv, err := hs.mgr.Pair(devices.Full)
	if err != nil {
		t.Fatal(err)
	}
	verified := make(chan client.VerifyResult, 8)
	d := dialAs(t, client.Options{URL: url, DeviceID: id, DeviceType: wire.TypeClient, HubID: hs.hubID, Token: pv.Token},
		func(d *device, cb *client.Callbacks) {
			cb.OnSendError = func(e wire.SendError) { nonBlocking(d.errs, e) }
			cb.OnVerified = func(r client.VerifyResult) { nonBlocking(verified, r) }
		})
	for p := recv(t, hs.asked); len(p) != 1 || p[0].DeviceID != id; p = recv(t, hs.asked) {
	}
	if err := hs.mgr.Answer(id, true, ""); err != nil {
		t.Fatal(err)
	}
	recv(t, verified)
	return d, pv.Token
}

// deltas appends n text deltas to the session's log, numbered from first.
func (hs *hubSide) deltas(t *testing.T, sid string, first, n int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		if err := hs.bus.Emit(ipc.Draft{Type: ipc.TypeTextDelta, SessionID: sid, TurnID: "t1", Actor: ipc.ActorAgent,
			Payload: ipc.TextDelta{MessageID: "m1", Text: fmt.Sprintf("w%d ", i)}}); err != nil {
			t.Fatal(err)
		}
	}
}

// frame is one canonical event of a subscription, as the device reads it.
type frame struct {
	sub, id, typ, text string
}

// nextFrame reads d's next stream frame of subscription sub.
func nextFrame(t *testing.T, d *device, sub string) frame {
	t.Helper()
	for {
		m := recv(t, d.msgs)
		if m.Action != wire.ActionStream {
			continue
		}
		f, err := clienttest.DecodeFrame(m)
		if err != nil {
			t.Fatalf("frame %s: %v", m.Payload, err)
		}
		if f.Sub == sub {
			return frame{sub: sub, id: f.ID, typ: f.EventType, text: f.Text}
		}
	}
}

func subscribe(t *testing.T, d *device, hubID, sid string, since *string) string {
	t.Helper()
	var ack struct {
		SubscriptionID string `json:"subscriptionId"`
	}
	params := map[string]any{"agentId": sid, "dialect": ipc.DialectCanonical, "snapshot": false}
	if since != nil {
		params["since"] = *since
	}
	call(t, d, hubID, gatewaylink.MethodSubscribe, params, &ack)
	if ack.SubscriptionID == "" {
		t.Fatal("subscribe: no subscription id")
	}
	return ack.SubscriptionID
}

func call(t *testing.T, d *device, hubID, method string, params, out any) {
	t.Helper()
	clienttest.Must(t, d.Client, hubID, method, params, out)
}

// TestInstanceKilledHubMovesStreamResumes: a hub reaches the fleet through
// a load balancer that sends it to instance A; a client on instance B
// verifies with it over the fleet, calls it (RPC) and reads a stream. A
// dies (kill -9: nothing released) mid-stream and the load balancer sends
// the hub to B. Once A's claim on the hub's id has expired (the TTL), the
// hub registers on B, says hub_online; the client verifies again and
// resubscribes from its cursor: every event after it exactly once, in
// order, those written while the hub was away included.
func TestInstanceKilledHubMovesStreamResumes(t *testing.T) {
	nc := startCluster(t, 3)
	opts := Options{TTL: 1500 * time.Millisecond}
	a := startInstance(t, "a", nc.URL(0), opts)
	b := startInstance(t, "b", nc.URL(1), opts)
	lb, err := natstest.NewProxy(a.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lb.Close)
	hub := startHub(t, "http://"+lb.Addr())
	laptop, token := hub.pair(t, b.url, "laptop-7f3")

	var s store.Session
	call(t, laptop, hub.hubID, "createSession", map[string]any{"title": "across the fleet"}, &s)
	sub := subscribe(t, laptop, hub.hubID, s.ID, nil)
	hub.deltas(t, s.ID, 0, 10)
	var got []frame
	for len(got) < 10 {
		got = append(got, nextFrame(t, laptop, sub))
	}

	a.crash()
	lb.SetTarget(b.addr)
	hub.deltas(t, s.ID, 10, 5) // written while the hub has no gateway
	for m := recv(t, laptop.msgs); m.Action != wire.ActionHubOnline; m = recv(t, laptop.msgs) {
	}
	call(t, laptop, hub.hubID, "verify", map[string]any{"token": token}, nil)
	cursor := got[len(got)-1].id
	sub = subscribe(t, laptop, hub.hubID, s.ID, &cursor)
	hub.deltas(t, s.ID, 15, 5)
	for len(got) < 20 {
		got = append(got, nextFrame(t, laptop, sub))
	}
	var text strings.Builder
	for i, f := range got {
		if i > 0 && f.id <= got[i-1].id {
			t.Fatalf("event %s after %s: duplicated or out of order", f.id, got[i-1].id)
		}
		text.WriteString(f.text)
	}
	want := ""
	for i := range 20 {
		want += fmt.Sprintf("w%d ", i)
	}
	if text.String() != want {
		t.Fatalf("the client read %q, want %q", text.String(), want)
	}
}
