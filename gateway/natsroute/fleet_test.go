package natsroute

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/gateway/natsroute/natstest"
	"agenthub/gateway/wire"

	"github.com/nats-io/nats.go"
)

// sendN sends n numbered messages from d to `to`.
func sendN(t *testing.T, d *device, to string, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if _, err := d.Send(to, "count", map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
}

// expectN reads n numbered messages and checks each arrives once, in order.
func expectN(t *testing.T, d *device, from, n int) {
	t.Helper()
	expectNFrom(t, d, from, n, nil)
}

// expectNFrom is expectN for messages sender sent: when one never arrives
// and sender's own connection dropped meanwhile (a close by the client
// library, not by the fleet), the test is skipped, saying so — a message
// handed to a closing socket is lost at the device edge (the seeds' send
// has no acknowledgement), which says nothing of the routing under test.
func expectNFrom(t *testing.T, d *device, from, n int, sender *device) {
	t.Helper()
	for i := from; i < from+n; i++ {
		var got struct{ N int }
		select {
		case m := <-d.msgs:
			if err := json.Unmarshal(m.Payload, &got); err != nil {
				t.Fatal(err)
			}
		case e := <-d.errs:
			t.Fatalf("send_error before message %d: %+v", i, e)
		case <-time.After(20 * time.Second):
			if sender != nil && sender.dropped() {
				t.Skipf("message %d never arrived, and its sender %s's own connection dropped meanwhile: lost at the device edge, not in the fleet", i, sender.DeviceID())
			}
			t.Fatalf("message %d never arrived", i)
		}
		if got.N != i {
			t.Fatalf("got message %d, want %d (lost, duplicated or out of order)", got.N, i)
		}
	}
}

// hubAndPhone registers hub-1 on a and phone-1 on b.
func hubAndPhone(t *testing.T, a, b *instance) (hub, phone *device) {
	t.Helper()
	hub = dial(t, a.url, "hub-1", wire.TypeHub)
	phone = dial(t, b.url, "phone-1", wire.TypeClient)
	hub.ready(t)
	phone.ready(t)
	return hub, phone
}

// TestCrossInstanceRouting: a hub on instance A and a client on B reach
// each other in both directions, in order and exactly once; list-devices
// answers for the fleet on either; a message to nobody is DEVICE_NOT_FOUND;
// a device id held on A is refused on B.
func TestCrossInstanceRouting(t *testing.T) {
	nc := startCluster(t, 1)
	a := startInstance(t, "a", nc.URL(0), Options{})
	b := startInstance(t, "b", nc.URL(0), Options{})
	hub, phone := hubAndPhone(t, a, b)

	sendN(t, phone, "hub-1", 0, 300)
	expectN(t, hub, 0, 300)
	sendN(t, hub, "phone-1", 0, 300)
	expectN(t, phone, 0, 300)
	id, _ := phone.Send("hub-1", "x", 1)
	if m := recv(t, hub.msgs); m.ID != id || m.From != "phone-1" || m.FromConn == "" {
		t.Fatalf("delivered %+v", m)
	}

	for _, d := range []*device{hub, phone} {
		devs := d.devices(t)
		if len(devs) != 2 || devs[0] != (wire.DeviceInfo{DeviceID: "hub-1", DeviceType: wire.TypeHub}) || devs[1] != (wire.DeviceInfo{DeviceID: "phone-1", DeviceType: wire.TypeClient}) {
			t.Fatalf("%s lists %+v", d.DeviceID(), devs)
		}
	}

	id, _ = phone.Send("laptop-9", "x", 1)
	if e := recv(t, phone.errs); e.Code != wire.CodeDeviceNotFound || e.MessageID != id {
		t.Fatalf("send_error %+v", e)
	}

	twin := dial(t, b.url, "hub-1", wire.TypeHub)
	for err := recv(t, twin.fails); !strings.Contains(err.Error(), wire.ErrTextInUse); err = recv(t, twin.fails) {
	}
	twin.Close()
	sendN(t, phone, "hub-1", 1000, 10)
	expectN(t, hub, 1000, 10)
}

// TestNATSNodeKilledLosesNothing: a 3-node NATS cluster; instance A is
// connected to node 1, B to node 2. Node 1 is killed while a client on B
// streams to a hub on A: A moves to another node, and every message
// arrives once, in order, with no send_error (the lanes retry; the holder
// drops a retry it already delivered).
func TestNATSNodeKilledLosesNothing(t *testing.T) {
	nc := startCluster(t, 3)
	a := startInstance(t, "a", nc.URL(0), Options{})
	b := startInstance(t, "b", nc.URL(1), Options{})
	hub, phone := hubAndPhone(t, a, b)
	phone.dropped() // from here on

	const total = 3000
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range total {
			if _, err := phone.Send("hub-1", "count", map[string]int{"n": i}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	expectNFrom(t, hub, 0, 200, phone)
	nc.Kill(0)
	expectNFrom(t, hub, 200, total-200, phone)
	<-done
	// And back: the hub answers through the surviving nodes.
	sendN(t, hub, "phone-1", 0, 50)
	expectN(t, phone, 0, 50)
	select {
	case e := <-phone.errs:
		t.Fatalf("send_error %+v", e)
	default:
	}
}

// TestFlappingDeviceNeverRegistersTwice: sockets with one device id
// connect to instances A and B at once, round after round (the device
// flaps between instances, or an impostor races it): each round exactly
// one is registered fleet-wide, and after it leaves the next round's
// winner can register.
func TestFlappingDeviceNeverRegistersTwice(t *testing.T) {
	nc := startCluster(t, 1)
	a := startInstance(t, "a", nc.URL(0), Options{})
	b := startInstance(t, "b", nc.URL(0), Options{})
	for round := range 5 {
		var wg sync.WaitGroup
		results := make(chan *rawResult, 8)
		for i := range 8 {
			url := a.url
			if i%2 == 1 {
				url = b.url
			}
			wg.Go(func() { results <- rawRegister(t, url, "laptop-7f3") })
		}
		wg.Wait()
		close(results)
		var won []*rawResult
		for r := range results {
			if r.ok {
				won = append(won, r)
			} else if !strings.Contains(r.err, wire.ErrTextInUse) {
				t.Fatalf("round %d: refused with %q", round, r.err)
			}
		}
		if len(won) != 1 {
			t.Fatalf("round %d: %d sockets registered laptop-7f3", round, len(won))
		}
		held := 0
		for _, in := range []*instance{a, b} {
			in.fleet.mu.Lock()
			if in.fleet.local["laptop-7f3"] != nil {
				held++
			}
			in.fleet.mu.Unlock()
		}
		if held != 1 {
			t.Fatalf("round %d: %d instances hold laptop-7f3", round, held)
		}
		won[0].close()
		waitFree(t, a, "laptop-7f3")
	}
}

// waitFree waits until no instance holds id (the winner's disconnect
// reached its instance and released the claim).
func waitFree(t *testing.T, in *instance, id string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		held, err := in.fleet.registered(in.fleet.ctx, keyOf(id))
		if err == nil && !held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s still claimed (%v)", id, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNATSUnreachable: instance A reaches NATS through a proxy that is
// cut. A keeps serving the devices connected to it (hub ↔ phone on A, both
// ways, and list-devices answers with A's own); a cross-instance send gets
// send_error from either side; after the proxy heals, A's claims are
// renewed and B's client reaches the hub again.
func TestNATSUnreachable(t *testing.T) {
	nc := startCluster(t, 1)
	proxy, err := natstest.NewProxy(strings.TrimPrefix(nc.URL(0), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	fast := Options{DeliveryTimeout: time.Second, AttemptTimeout: 200 * time.Millisecond, TTL: 30 * time.Second}
	a := startInstance(t, "a", proxy.URL(), fast)
	b := startInstance(t, "b", nc.URL(0), fast)
	hub := dial(t, a.url, "hub-1", wire.TypeHub)
	near := dial(t, a.url, "phone-near", wire.TypeClient)
	far := dial(t, b.url, "phone-far", wire.TypeClient)
	hub.ready(t)
	near.ready(t)
	far.ready(t)
	sendN(t, far, "hub-1", 0, 5)
	expectN(t, hub, 0, 5)

	proxy.Cut()
	for up, _, _ := a.fleet.connected(); up; up, _, _ = a.fleet.connected() {
		time.Sleep(5 * time.Millisecond)
	}
	sendN(t, near, "hub-1", 5, 100)
	expectN(t, hub, 5, 100)
	sendN(t, hub, "phone-near", 0, 100)
	expectN(t, near, 0, 100)
	if devs := near.devices(t); len(devs) != 2 || devs[0].DeviceID != "hub-1" || devs[1].DeviceID != "phone-near" {
		t.Fatalf("A lists %+v while cut off", devs)
	}
	id, _ := far.Send("hub-1", "x", 1)
	// A send_error for one of the five delivered before the cut can come
	// first: its acknowledgement was lost in the cut and its retry ran into
	// it. The hub did get it, so the report must not say it did not: it
	// says the delivery is unconfirmed. The new message's own follows.
	e := recv(t, far.errs)
	for e.MessageID != id {
		if !strings.Contains(e.Error, "not confirmed (it may have arrived)") {
			t.Fatalf("a message the hub received is reported as not delivered: %+v", e)
		}
		t.Logf("an earlier message's send_error first: %+v", e)
		e = recv(t, far.errs)
	}
	if e.MessageID != id || e.Code != wire.CodeDeviceNotFound || !strings.Contains(e.Error, "not reachable") {
		t.Fatalf("far → hub while A is cut off: %+v", e)
	}
	id, _ = hub.Send("phone-far", "x", 1)
	if e := recv(t, hub.errs); e.MessageID != id || e.Code != wire.CodeDeviceNotFound {
		t.Fatalf("hub → far while A is cut off: %+v", e)
	}
	select {
	case m := <-hub.msgs:
		t.Fatalf("delivered while cut off: %+v", m)
	default:
	}

	proxy.Heal()
	for up, _, _ := a.fleet.connected(); !up; up, _, _ = a.fleet.connected() {
		time.Sleep(5 * time.Millisecond)
	}
	// Until A's subscriptions are back in NATS, a send may still fail:
	// the first that arrives is followed by every later one.
	for i := 0; ; i++ {
		if _, err := far.Send("hub-1", "count", map[string]int{"n": 1000 + i}); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-hub.msgs:
			var got struct{ N int }
			_ = json.Unmarshal(m.Payload, &got)
			if got.N != 1000+i {
				t.Fatalf("after healing got %d, want %d", got.N, 1000+i)
			}
			sendN(t, far, "hub-1", 2000, 20)
			expectN(t, hub, 2000, 20)
			return
		case e := <-far.errs:
			t.Logf("after healing: %+v", e)
		case <-time.After(20 * time.Second):
			t.Fatal("nothing after healing")
		}
	}
}

// hubBesideNATS starts one instance (opts) on a one-node cluster with
// hub-1 ready on it, and a plain NATS connection to the cluster, closed
// when the test ends, to play the part of another instance by hand.
func hubBesideNATS(t *testing.T, opts Options) (*instance, *device, *nats.Conn) {
	t.Helper()
	cl := startCluster(t, 1)
	a := startInstance(t, "a", cl.URL(0), opts)
	hub := dial(t, a.url, "hub-1", wire.TypeHub)
	hub.ready(t)
	nc, err := nats.Connect(cl.URL(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return a, hub, nc
}

// TestRetryIsDeliveredOnce: a lane retries a message whose acknowledgement
// was lost (the holder delivered it, the reply never came back); the
// holder acknowledges the retry without delivering it again. Here the
// retries are sent by hand on the device's subject, as a lane would.
func TestRetryIsDeliveredOnce(t *testing.T) {
	a, hub, nc := hubBesideNATS(t, Options{})
	send := func(seq, n int) {
		t.Helper()
		data, _ := json.Marshal(wire.RoutedMessage{ID: fmt.Sprint("m", n), From: "phone-1", To: "hub-1", Action: "count", Payload: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))})
		m := &nats.Msg{Subject: a.fleet.subject(keyOf("hub-1")), Data: data, Header: nats.Header{}}
		m.Header.Set(hdrLane, "lane-1")
		m.Header.Set(hdrSeq, fmt.Sprint(seq))
		reply, err := nc.RequestMsg(m, 10*time.Second)
		if err != nil || string(reply.Data) != replyOK {
			t.Fatalf("seq %d: %v %v", seq, reply, err)
		}
	}
	send(1, 0)
	send(1, 0) // the retry
	send(2, 1)
	send(1, 0) // a very late one
	send(3, 2)
	expectN(t, hub, 0, 3)
}

// TestLostAnswerKeepsTheClaim: a renewal (or a claim) that NATS made but
// whose answer never came back — a slow node, a timeout under load — must
// not cost the device its registration: the next renewal finds the
// bucket's revision ahead of the instance's, sees the claim is still its
// own and keeps it (rather than dropping the socket as if another
// connection held the id); and a release after such a renewal still
// deletes the claim at once (rather than leaving the id taken for the
// TTL). The lost answer is made here by renewing behind the fleet's back.
func TestLostAnswerKeepsTheClaim(t *testing.T) {
	cl := startCluster(t, 1)
	opts := Options{TTL: 10 * time.Minute}
	a := startInstance(t, "a", cl.URL(0), opts)
	b := startInstance(t, "b", cl.URL(0), opts)
	hub, phone := hubAndPhone(t, a, b)
	a.fleet.mu.Lock()
	e := a.fleet.local["hub-1"]
	a.fleet.mu.Unlock()
	renewBehindTheBack := func() uint64 {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		kve, err := a.fleet.kv.Get(ctx, e.key)
		if err != nil {
			t.Fatal(err)
		}
		rev, err := a.fleet.kv.Update(ctx, e.key, kve.Value(), kve.Revision())
		if err != nil {
			t.Fatal(err)
		}
		return rev
	}
	rev := renewBehindTheBack()
	a.fleet.kick <- struct{}{}
	for {
		a.fleet.mu.Lock()
		held := a.fleet.local["hub-1"] == e
		a.fleet.mu.Unlock()
		e.mu.Lock()
		adopted := e.rev >= rev
		e.mu.Unlock()
		if !held {
			t.Fatal("the renewal dropped the device over its own lost answer")
		}
		if adopted {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	sendN(t, phone, "hub-1", 0, 5)
	expectN(t, hub, 0, 5)

	renewBehindTheBack()
	hub.Close()
	waitFree(t, a, "hub-1")
}

// TestLostAcknowledgementIsUnconfirmed: a holder that receives a message
// and whose acknowledgement never comes back (here a plain NATS
// subscriber on the device's subject that never answers) may well have
// delivered it: the sender's send_error must say the delivery is
// unconfirmed, never that it did not happen.
func TestLostAcknowledgementIsUnconfirmed(t *testing.T) {
	a, hub, nc := hubBesideNATS(t, Options{DeliveryTimeout: time.Second, AttemptTimeout: 200 * time.Millisecond})
	got := make(chan *nats.Msg, 64)
	sub, err := nc.ChanSubscribe(a.fleet.subject(keyOf("phone-mute")), got)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	id, err := hub.Send("phone-mute", "x", 1)
	if err != nil {
		t.Fatal(err)
	}
	e := recv(t, hub.errs)
	if e.MessageID != id || e.Code != wire.CodeDeviceNotFound || !strings.Contains(e.Error, "not confirmed (it may have arrived)") {
		t.Fatalf("send_error for a message whose acknowledgement was lost: %+v", e)
	}
	if len(got) == 0 {
		t.Fatal("the holder's subject never saw the message")
	}
}
