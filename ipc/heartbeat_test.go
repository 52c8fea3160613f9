package ipc

import (
	"context"
	"testing"
	"time"
)

func TestHeartbeatPolicy(t *testing.T) {
	h := NewHeartbeat(time.Hour)
	a1 := h.Expire()
	if a1.Close || a1.Nonce == "" {
		t.Fatalf("first expiry %+v", a1)
	}
	if !h.Pong(a1.Nonce) {
		t.Fatal("pong of outstanding ping not recognised")
	}
	if h.Pong("unknown") {
		t.Fatal("unknown nonce recognised")
	}
	for i := range MaxUnansweredPings {
		if a := h.Expire(); a.Close {
			t.Fatalf("closed after %d unanswered", i)
		}
	}
	if a := h.Expire(); !a.Close {
		t.Fatalf("not closed after %d unanswered pings: %+v", MaxUnansweredPings, a)
	}
	h.Activity()
	if a := h.Expire(); a.Close {
		t.Fatal("activity did not reset the count")
	}
}

// Events written to the client make the connection not idle: no ping, and
// the unanswered count restarts; once idle again, pinging resumes.
func TestHeartbeatEventsSentAreNotIdle(t *testing.T) {
	h := NewHeartbeat(time.Hour)
	for range MaxUnansweredPings {
		if a := h.Expire(); a.Nonce == "" {
			t.Fatalf("idle expiry did not ping: %+v", a)
		}
	}
	h.Sent()
	if a := h.Expire(); a != (HeartbeatAction{}) {
		t.Fatalf("expiry after events sent = %+v, want nothing", a)
	}
	for i := range MaxUnansweredPings {
		if a := h.Expire(); a.Close || a.Nonce == "" {
			t.Fatalf("idle expiry %d after the stream = %+v, want a ping", i, a)
		}
	}
	if a := h.Expire(); !a.Close {
		t.Fatalf("not closed after %d unanswered pings: %+v", MaxUnansweredPings, a)
	}
}

func TestHeartbeatRunPingsThenCloses(t *testing.T) {
	h := NewHeartbeat(time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var pings int
	for a := range h.Run(ctx) {
		if a.Close {
			if pings != MaxUnansweredPings {
				t.Fatalf("closed after %d pings", pings)
			}
			return
		}
		pings++
	}
	t.Fatal("channel closed without a close action")
}

func TestDecodeClientFrame(t *testing.T) {
	cases := map[string]string{
		`nope`:                            CodeInvalidFrame,
		`{"nonce":"x"}`:                   CodeInvalidFrame,
		`{"type":"launch"}`:               CodeUnknownFrameType,
		`{"type":"cancel"}`:               CodeInvalidFrame,
		`{"type":"subscribe","since":5}`:  CodeInvalidFrame,
		`{"type":"request","method":"x"}`: CodeInvalidFrame,
	}
	for in, code := range cases {
		_, err := DecodeClientFrame([]byte(in))
		if fe, ok := err.(*FrameError); !ok || fe.Code != code {
			t.Errorf("%s: %v, want %s", in, err, code)
		}
	}
	big := make([]byte, MaxFrameBytes+1)
	if _, err := DecodeClientFrame(big); err.(*FrameError).Code != CodeFrameTooLarge {
		t.Error("big frame not refused")
	}
	f, err := DecodeClientFrame([]byte(`{"type":"subscribe","filter":"preset:chat","since":"01J","snapshot":true}`))
	if err != nil || string(f.Subscribe.Filter) != `"preset:chat"` || *f.Subscribe.Since != "01J" || !f.Subscribe.Snapshot {
		t.Fatalf("%+v %v", f, err)
	}
	f, err = DecodeClientFrame([]byte(`{"type":"ping","nonce":"n"}`))
	if err != nil || f.Nonce != "n" {
		t.Fatalf("%+v %v", f, err)
	}
}
