// Package clienttest is what the tests that drive the gateway share
// (gateway, gateway/natsroute, ipc/gatewaylink, e2e): a client.Client
// connected for the length of a test and its RPC requests that must
// succeed, a bare Socket.io socket for the handshakes a client.Client
// never sends, and the decoding of a stream frame a subscription delivers.
// Only tests import it.
package clienttest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
	"sync"
	"testing"
	"time"

	"agenthub/gateway/client"
	"agenthub/gateway/wire"

	sio "github.com/zishang520/socket.io/clients/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// Connect creates a client with opts and cb, starts it connecting (and
// reconnecting, as every real device does) and closes it when t ends; an
// error creating it fails t.
func Connect(t testing.TB, opts client.Options, cb client.Callbacks) *client.Client {
	t.Helper()
	c, err := client.New(opts, cb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.Connect()
	return c
}

// Must sends c's RPC request method to device to, which must answer with
// success within 20 s; the answer is decoded into out unless out is nil.
// Any error fails t.
func Must(t testing.TB, c *client.Client, to, method string, params, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	raw, err := c.Request(ctx, to, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v in %s", method, err, raw)
		}
	}
}

// Log is a logger that writes records from level up into t's output.
func Log(t testing.TB, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: level}))
}

// RawSocket is one bare Socket.io socket to the gateway at base with
// handshake query q: WebSocket only, no reconnection, not connected until
// the caller (having added its listeners) calls Open. Close ends it.
type RawSocket struct {
	*sio.Socket
	m *sio.Manager
}

// NewRawSocket prepares a RawSocket; each attempt to connect takes one.
func NewRawSocket(base string, q url.Values) *RawSocket {
	opts := sio.DefaultOptions()
	opts.SetPath(wire.Path)
	opts.SetQuery(q)
	opts.SetTransports(types.NewSet(sio.WebSocket))
	opts.SetReconnection(false)
	opts.SetCloseOnBeforeunload(false)
	opts.SetAutoConnect(false)
	opts.SetTimeout(time.Second)
	m := sio.NewManager(base, opts)
	return &RawSocket{Socket: m.Socket("/", opts), m: m}
}

// Open connects: the manager opens first and the socket connects once it
// is open, as gateway/client does (the library's Socket.Connect alone can
// miss the manager's "open" under load, or send the namespace CONNECT
// twice). failed is called when the engine could not open. An attempt the
// library lost anyway reports neither: callers bound their wait and try a
// fresh RawSocket.
func (s *RawSocket) Open(failed func()) {
	var once sync.Once
	_ = s.m.On("open", func(...any) { once.Do(func() { go s.Socket.Connect() }) })
	s.m.Open(func(err error) {
		if err != nil {
			failed()
		}
	})
}

// Close disconnects the socket and closes its engine, which a slow
// attempt may have left open.
func (s *RawSocket) Close() {
	s.Disconnect()
	if e := s.m.Engine(); e != nil {
		e.Close()
	}
}

// Frame is one stream frame of a canonical subscription as a device reads
// it: the subscription, the frame's type ("event", …) and its event.
type Frame struct {
	Sub, Type string
	ID        string // the event's id
	EventType string
	Text      string // the event payload's text, if it has one
}

// DecodeFrame decodes the payload of a stream message.
func DecodeFrame(m wire.RoutedMessage) (Frame, error) {
	var f struct {
		SubscriptionID string `json:"subscriptionId"`
		Type           string `json:"type"`
		Event          struct {
			ID      string `json:"id"`
			Type    string `json:"type"`
			Payload struct {
				Text string `json:"text"`
			} `json:"payload"`
		} `json:"event"`
	}
	if err := json.Unmarshal(m.Payload, &f); err != nil {
		return Frame{}, err
	}
	return Frame{Sub: f.SubscriptionID, Type: f.Type, ID: f.Event.ID, EventType: f.Event.Type, Text: f.Event.Payload.Text}, nil
}
