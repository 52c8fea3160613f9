package gatewaylink_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"agenthub/gateway"
	"agenthub/gateway/wire"
	"agenthub/ipc/devices"
	"agenthub/ipc/gatewaylink"
	"agenthub/store"
)

func TestPairedDeviceDrivesTheHub(t *testing.T) {
	e := newEnv(t)
	laptop, token := e.pair(t, "laptop-7f3", devices.Full)

	var s store.Session
	laptop.must(t, e.hubID, "createSession", map[string]any{"title": "over the gateway"}, &s)
	var sub map[string]any
	laptop.must(t, e.hubID, gatewaylink.MethodSubscribe, map[string]any{"agentId": s.ID, "snapshot": true}, &sub)
	if sub["type"] != "subscribe_ack" || sub["dialect"] != "seed000" || sub["subscriptionId"] == "" {
		t.Fatalf("subscribe answer %v", sub)
	}
	if snap := laptop.next(t, wire.ActionSnapshot); !strings.Contains(string(snap.Payload), `"type":"snapshot"`) {
		t.Fatalf("snapshot %s", snap.Payload)
	}
	laptop.must(t, e.hubID, "submitTurn", map[string]any{"agentId": s.ID, "content": "hello over there"}, nil)
	// seed 000 StreamPayload frames: message_start, updates, message_end.
	var seen []string
	for {
		m := laptop.next(t, wire.ActionStream)
		var f struct {
			SubscriptionID string `json:"subscriptionId"`
			StreamID       string `json:"streamId"`
			AgentID        string `json:"agentId"`
			EventID        string `json:"eventId"`
			Event          struct {
				Type string `json:"type"`
			} `json:"event"`
		}
		if err := json.Unmarshal(m.Payload, &f); err != nil || f.AgentID != s.ID || f.EventID == "" || f.SubscriptionID != sub["subscriptionId"] {
			t.Fatalf("stream frame %s: %v", m.Payload, err)
		}
		seen = append(seen, f.Event.Type)
		if f.Event.Type == "message_end" {
			break
		}
	}
	if seen[0] != "message_start" {
		t.Fatalf("frames %v", seen)
	}
	// History in seed 003's AgentMessage shapes: the user's content a string.
	var page struct {
		Messages []map[string]any `json:"messages"`
		Total    int              `json:"total"`
	}
	laptop.must(t, e.hubID, "getAgentMessages", map[string]any{"agentId": s.ID}, &page)
	if page.Total != 2 || page.Messages[0]["content"] != "hello over there" || page.Messages[1]["role"] != "assistant" {
		t.Fatalf("history %+v", page)
	}
	// The device reconnects (a new gateway connection): it verifies again
	// with its token, no confirmation asked.
	laptop.Close()
	again := e.dial(t, "laptop-7f3", e.hubID, token)
	if r := recv(t, again.verified); r.IsNewDevice {
		t.Fatalf("second verify %+v", r)
	}
	select {
	case p := <-e.pending:
		if len(p) > 0 {
			t.Fatalf("a known device was asked for again: %+v", p)
		}
	default:
	}
}

// TestRefusals: every row of the failure list that the hub refuses,
// each with seed 003's error shape ({requestId, ok:false, error:{code,
// message}}) or the gateway's send_error.
func TestRefusals(t *testing.T) {
	e := newEnv(t)
	full, fullToken := e.pair(t, "laptop", devices.Full)
	var s store.Session
	full.must(t, e.hubID, "createSession", map[string]any{}, &s)

	t.Run("unverified device", func(t *testing.T) {
		stranger := e.dial(t, "stranger", "", "")
		stranger.ready(t)
		for _, method := range []string{"listSessions", "getAgentMessages", "submitTurn", gatewaylink.MethodSubscribe} {
			if _, err := stranger.call(t, e.hubID, method, map[string]any{"agentId": s.ID, "content": "x"}); err == nil || err.Code != wire.CodeUnauthorized {
				t.Fatalf("%s from an unverified device: %v", method, err)
			}
		}
		if _, err := stranger.Send(e.hubID, "message", map[string]string{"agentId": s.ID, "content": "hi"}); err != nil {
			t.Fatal(err)
		}
		if m := stranger.next(t, "error"); !strings.Contains(string(m.Payload), wire.CodeUnauthorized) {
			t.Fatalf("non-RPC message from an unverified device: %s", m.Payload)
		}
	})
	t.Run("verify without or with a wrong token", func(t *testing.T) {
		for _, tok := range []string{"", "ahp_guess", fullToken} {
			d := e.dial(t, "stranger-"+tok, e.hubID, tok)
			d.failure(t, wire.CodeUnauthorized)
			d.Close()
		}
	})
	t.Run("impostor on a verified device's id", func(t *testing.T) {
		// laptop is verified; once its socket is gone, anyone may register
		// "laptop" at the gateway — the hub must not take it for the laptop.
		full.Close()
		impostor := e.dial(t, "laptop", "", "")
		impostor.ready(t)
		if _, err := impostor.call(t, e.hubID, "listSessions", nil); err == nil || err.Code != wire.CodeUnauthorized {
			t.Fatalf("impostor's request: %v", err)
		}
		if _, err := impostor.call(t, e.hubID, "verify", map[string]any{}); err == nil || err.Code != wire.CodeUnauthorized {
			t.Fatalf("impostor's verify without the token: %v", err)
		}
		impostor.Close()
	})
	t.Run("read-only device", func(t *testing.T) {
		ro, _ := e.pair(t, "phone", devices.ReadOnly)
		ro.must(t, e.hubID, "getAgentMessages", map[string]any{"agentId": s.ID}, nil)
		ro.must(t, e.hubID, gatewaylink.MethodSubscribe, map[string]any{"agentId": s.ID}, nil)
		for _, method := range []string{"submitTurn", "approveTool", "cancelTurn", "updateSettings", "deleteSession", "createSession", "getSettings"} {
			if _, err := ro.call(t, e.hubID, method, map[string]any{"agentId": s.ID, "content": "x"}); err == nil || err.Code != wire.CodeForbidden {
				t.Fatalf("%s from a read-only device: %v", method, err)
			}
		}
	})
	t.Run("device management is local only", func(t *testing.T) {
		admin, _ := e.pair(t, "admin", devices.Full)
		for _, method := range []string{gatewaylink.MethodListDevices, gatewaylink.MethodPairDevice, gatewaylink.MethodRevokeDevice, gatewaylink.MethodAnswerDevice, gatewaylink.MethodSetDeviceRights} {
			if _, err := admin.call(t, e.hubID, method, map[string]any{"deviceId": "phone", "rights": "full", "allow": true}); err == nil || err.Code != wire.CodeForbidden {
				t.Fatalf("%s from a device: %v", method, err)
			}
		}
	})
	t.Run("revoked device", func(t *testing.T) {
		tablet, tok := e.pair(t, "tablet", devices.Full)
		var ack map[string]any
		tablet.must(t, e.hubID, gatewaylink.MethodSubscribe, map[string]any{"agentId": s.ID}, &ack)
		if ok, err := e.mgr.Revoke("tablet"); !ok || err != nil {
			t.Fatalf("revoke: %v %v", ok, err)
		}
		if _, err := tablet.call(t, e.hubID, "listSessions", nil); err == nil || err.Code != wire.CodeUnauthorized {
			t.Fatalf("request after revoke: %v", err)
		}
		tablet.Close()
		back := e.dial(t, "tablet", e.hubID, tok)
		back.failure(t, wire.CodeUnauthorized)
	})
	t.Run("denied device", func(t *testing.T) {
		pv, _ := e.mgr.Pair(devices.Full)
		d := e.dial(t, "unwanted", e.hubID, pv.Token)
		for {
			if p := recv(t, e.pending); len(p) == 1 {
				break
			}
		}
		if err := e.mgr.Answer("unwanted", false, ""); err != nil {
			t.Fatal(err)
		}
		d.failure(t, wire.CodeRejected)
		if _, err := e.trust.Redeemable(pv.Token); err == nil {
			t.Fatal("a denied device's token can still be used")
		}
	})
}

func TestValidateURL(t *testing.T) {
	for _, c := range []struct {
		in       string
		insecure bool
		want     string
	}{
		{"https://gw.example.com", false, "https://gw.example.com"},
		{"wss://gw.example.com:8443/", false, "https://gw.example.com:8443"},
		{"http://127.0.0.1:7000", false, "http://127.0.0.1:7000"},
		{"ws://localhost:7000", false, "http://localhost:7000"},
		{"http://[::1]:7000", false, "http://[::1]:7000"},
		{"http://192.168.1.5:7000", true, "http://192.168.1.5:7000"},
	} {
		if got, err := gatewaylink.ValidateURL(c.in, c.insecure); err != nil || got != c.want {
			t.Errorf("%s: %q %v", c.in, got, err)
		}
	}
	for _, bad := range []string{"http://192.168.1.5:7000", "ws://gw.example.com", "ftp://x", "https://", "https://u:p@gw", "https://gw/ws", "https://gw?x=1"} {
		if _, err := gatewaylink.ValidateURL(bad, false); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// unstamped is a gateway's router that delivers messages without
// fromConn, as a gateway that is not Agent Hub's does (multica's forwards
// the sender's message as it came).
type unstamped struct{ *gateway.Local }

func (u unstamped) Route(ctx context.Context, from gateway.Conn, m wire.RoutedMessage) error {
	m.FromConn = ""
	return u.Local.Route(ctx, from, m)
}

// TestUnstampedGatewayEndsSessionsOfDepartedDevices: behind a gateway that
// does not bind messages to connections, a verified device that leaves
// loses its session once the gateway no longer lists it, so whoever
// registers its id afterwards must verify (and has no token).
func TestUnstampedGatewayEndsSessionsOfDepartedDevices(t *testing.T) {
	local := gateway.NewLocal()
	e := newEnvOn(t, gateway.Options{Registry: local, Router: unstamped{local}})
	laptop, _ := e.pair(t, "laptop", devices.Full)
	laptop.must(t, e.hubID, "listSessions", nil, nil)
	laptop.Close()
	deadline := time.Now().Add(20 * time.Second)
	for verified(t, e, "laptop") {
		if time.Now().After(deadline) {
			t.Fatal("the hub kept the session of a device the gateway no longer lists")
		}
		time.Sleep(20 * time.Millisecond)
	}
	impostor := e.dial(t, "laptop", "", "")
	impostor.ready(t)
	if _, err := impostor.call(t, e.hubID, "listSessions", nil); err == nil || err.Code != wire.CodeUnauthorized {
		t.Fatalf("a newcomer on the departed device's id: %v", err)
	}
}

// verified reports whether the hub holds a session for device id.
func verified(t *testing.T, e *env, id string) bool {
	t.Helper()
	v, err := e.mgr.List()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range v.Devices {
		if d.DeviceID == id {
			return d.Verified
		}
	}
	return false
}
