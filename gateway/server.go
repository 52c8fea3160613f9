// Package gateway is `agenthub gateway`: a router for the device protocol
// of seeds 000 and 003 (package wire), on Socket.io at path /ws. It
// registers each socket under the deviceId of its handshake (one socket per
// id), delivers every RoutedMessage to the socket of its `to` device after
// checking that `from` is the sender's own id, answers list-devices and
// ping, and keeps no message. Trust is the hub's business
// (ipc/gatewaylink): the gateway's word about a sender is its routing, no
// more. Where the devices are is behind Registry and Router, so a fleet of
// gateways can share them; Local is the one-process implementation.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"agenthub/gateway/wire"

	"github.com/zishang520/socket.io/servers/engine/v3/transports"
	"github.com/zishang520/socket.io/servers/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// Defaults of Options.
const (
	// DefaultMaxMessageBytes bounds one inbound Socket.io message (a
	// snapshot of 50 long messages fits; the hub never sends more).
	DefaultMaxMessageBytes = 32 << 20
	// DefaultPingInterval and DefaultPingTimeout are multica's heartbeat.
	DefaultPingInterval = 25 * time.Second
	DefaultPingTimeout  = 20 * time.Second
)

// refusedLinger is how long a refused socket's connection stays open for
// its `registered` answer to leave.
const refusedLinger = 2 * time.Second

// pongText is the pong's data.
const pongText = "pong from the Agent Hub gateway"

// Options configures New.
type Options struct {
	// Registry and Router place the devices; nil means one Local for both.
	Registry Registry
	Router   Router
	// Assets is the built UI served at / (nil: no pages, only /ws and /healthz).
	Assets fs.FS
	// MaxMessageBytes bounds an inbound message (0: DefaultMaxMessageBytes).
	MaxMessageBytes int
	// PingInterval and PingTimeout are Engine.IO's heartbeat (0: defaults).
	PingInterval, PingTimeout time.Duration
	// WebSocketOnly refuses HTTP long-polling: every Engine.IO session is
	// one WebSocket, so a load balancer needs no sticky sessions.
	WebSocketOnly bool
	// Logger; nil discards.
	Logger *slog.Logger
}

// Server is a running gateway: Handler serves it, Close ends it.
type Server struct {
	io       *socket.Server
	reg      Registry
	router   Router
	log      *slog.Logger
	handler  http.Handler
	nextConn atomic.Uint64
	ctx      context.Context
	cancel   context.CancelFunc
	closing  sync.Once
}

// New builds a gateway; serve its Handler on any listener.
func New(opts Options) *Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	reg, router := opts.Registry, opts.Router
	if reg == nil || router == nil {
		l := NewLocal()
		if reg == nil {
			reg = l
		}
		if router == nil {
			router = l
		}
	}
	maxBytes := opts.MaxMessageBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxMessageBytes
	}
	ping, pingTimeout := opts.PingInterval, opts.PingTimeout
	if ping <= 0 {
		ping = DefaultPingInterval
	}
	if pingTimeout <= 0 {
		pingTimeout = DefaultPingTimeout
	}
	so := socket.DefaultServerOptions()
	so.SetPath(wire.Path)
	so.SetServeClient(false)
	so.SetMaxHttpBufferSize(int64(maxBytes))
	so.SetPingInterval(ping)
	so.SetPingTimeout(pingTimeout)
	if opts.WebSocketOnly {
		so.SetTransports(types.NewSet[transports.TransportCtor](&transports.WebSocketBuilder{}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{io: socket.NewServer(nil, so), reg: reg, router: router, log: log, ctx: ctx, cancel: cancel}
	_ = s.io.On("connection", func(args ...any) {
		if sock, ok := first[*socket.Socket](args); ok {
			s.connect(sock)
		}
	})
	mux := http.NewServeMux()
	eio := s.io.ServeHandler(so)
	mux.Handle(wire.Path+"/", eio)
	mux.Handle(wire.Path, eio)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
	if opts.Assets != nil {
		mux.Handle("/", pages(opts.Assets))
	}
	s.handler = mux
	return s
}

// Handler serves /ws (Socket.io), /healthz and the UI.
func (s *Server) Handler() http.Handler { return s.handler }

// Close disconnects every socket (their devices reconnect to whichever
// gateway answers next) and stops the Socket.io server.
func (s *Server) Close() {
	s.closing.Do(func() {
		s.cancel()
		done := make(chan struct{})
		s.io.Close(func(error) { close(done) })
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			s.log.Warn("gateway: Socket.io server did not close within 5s")
		}
	})
}

// Devices lists the registered devices (for logs and tests).
func (s *Server) Devices() ([]wire.DeviceInfo, error) { return s.reg.Devices(s.ctx) }

// conn is one registered socket.
type conn struct {
	sock *socket.Socket
	info wire.DeviceInfo
	id   string
	log  *slog.Logger
	gone atomic.Bool
}

func (c *conn) Info() wire.DeviceInfo { return c.info }
func (c *conn) ConnID() string        { return c.id }

// Deliver implements Conn.
func (c *conn) Deliver(msg wire.RoutedMessage) error {
	if c.gone.Load() || !c.sock.Connected() {
		return ErrDeviceNotFound
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("gateway: encode message %s: %w", msg.ID, err)
	}
	return c.sock.Emit(wire.EventReceive, json.RawMessage(b))
}

// SendFailed implements Conn.
func (c *conn) SendFailed(msg wire.RoutedMessage, err error) {
	code, why := sendErrorOf(msg, err)
	_ = c.sock.Emit(wire.EventSendError, wire.SendError{MessageID: msg.ID, Error: why, Code: code})
}

// Drop implements Conn.
func (c *conn) Drop(reason string) {
	c.log.Warn("gateway: device dropped", "device", c.info.DeviceID, "reason", reason)
	c.sock.Disconnect(true)
}

// sendErrorOf is the send_error code and text for a routing failure.
func sendErrorOf(msg wire.RoutedMessage, err error) (code, why string) {
	switch {
	case errors.Is(err, ErrDeviceNotFound) && !errors.Is(err, ErrUnconfirmed):
		return wire.CodeDeviceNotFound, fmt.Sprintf("Device %s not found", msg.To)
	case errors.Is(err, ErrUnreachable): // ErrUnconfirmed too: it may have arrived, never "not found"
		return wire.CodeDeviceNotFound, fmt.Sprintf("Device %s not reachable: %s", msg.To, strings.TrimPrefix(err.Error(), ErrUnreachable.Error()+": "))
	}
	return wire.CodeDeviceNotFound, fmt.Sprintf("Device %s not reachable", msg.To)
}

// connect registers a new socket under its handshake's deviceId, or tells
// it why not and disconnects it.
func (s *Server) connect(sock *socket.Socket) {
	q := sock.Handshake().Query
	info := wire.DeviceInfo{DeviceID: queryValue(q, wire.QueryDeviceID), DeviceType: queryValue(q, wire.QueryDeviceType)}
	refuse := func(why string) {
		s.log.Info("gateway: device refused", "device", info.DeviceID, "type", info.DeviceType, "reason", why)
		_ = sock.Emit(wire.EventRegistered, wire.Registered{Success: false, DeviceID: info.DeviceID, Error: why})
		// A namespace disconnect goes out after `registered` on the same
		// transport (closing the transport at once could drop both); the
		// connection itself is closed shortly after, whatever the client does.
		sock.Disconnect(false)
		time.AfterFunc(refusedLinger, func() { sock.Conn().Close(true) })
	}
	if err := wire.ValidateDeviceID(info.DeviceID); err != nil {
		refuse("invalid deviceId: " + err.Error())
		return
	}
	if !wire.ValidDeviceType(info.DeviceType) {
		refuse(fmt.Sprintf("invalid deviceType %q: want client, hub or agent", info.DeviceType))
		return
	}
	c := &conn{sock: sock, info: info, id: fmt.Sprintf("%s.%d", sock.Id(), s.nextConn.Add(1)), log: s.log}
	if err := s.reg.Register(s.ctx, c); err != nil {
		if errors.Is(err, ErrDeviceInUse) {
			refuse(wire.ErrTextInUse)
		} else {
			refuse("registration failed: " + err.Error())
		}
		return
	}
	release := func(args ...any) {
		if c.gone.CompareAndSwap(false, true) {
			s.reg.Unregister(context.Background(), c)
			s.log.Info("gateway: device disconnected", "device", info.DeviceID, "type", info.DeviceType, "reason", fmt.Sprint(args...))
		}
	}
	_ = sock.On("disconnect", release)
	if !sock.Connected() { // gone before the listener was in place
		release()
		return
	}
	_ = sock.On(wire.EventSend, func(args ...any) { s.send(c, args) })
	_ = sock.On(wire.EventListDevices, func(args ...any) { s.listDevices(c, args) })
	_ = sock.On(wire.EventPing, func(args ...any) {
		_ = sock.Emit(wire.EventPong, pongText)
		if ack, ok := last[socket.Ack](args); ok {
			ack([]any{wire.Pong{Event: wire.EventPong, Data: pongText}}, nil)
		}
	})
	s.log.Info("gateway: device registered", "device", info.DeviceID, "type", info.DeviceType)
	_ = sock.Emit(wire.EventRegistered, wire.Registered{Success: true, DeviceID: info.DeviceID})
}

// send routes one `send`: the sender must still hold its id, `from` must
// be that id, the message must be whole; then it goes to `to` or the sender
// gets send_error.
func (s *Server) send(c *conn, args []any) {
	var msg wire.RoutedMessage
	fail := func(code, why string) {
		_ = c.sock.Emit(wire.EventSendError, wire.SendError{MessageID: msg.ID, Error: why, Code: code})
	}
	raw, ok := first[any](args)
	if !ok {
		fail(wire.CodeInvalidMessage, "send needs a message")
		return
	}
	if err := remarshal(raw, &msg); err != nil {
		fail(wire.CodeInvalidMessage, "malformed message: "+err.Error())
		return
	}
	if c.gone.Load() {
		fail(wire.CodeNotRegistered, "Sender not registered")
		return
	}
	if msg.From != c.info.DeviceID {
		fail(wire.CodeInvalidMessage, "Invalid sender ID")
		return
	}
	if err := msg.Validate(); err != nil {
		fail(wire.CodeInvalidMessage, err.Error())
		return
	}
	msg.FromConn = c.id
	s.log.Debug("gateway: route", "id", msg.ID, "from", msg.From, "to", msg.To, "action", msg.Action)
	if err := s.router.Route(s.ctx, c, msg); err != nil {
		if !errors.Is(err, ErrDeviceNotFound) {
			s.log.Warn("gateway: route failed", "from", msg.From, "to", msg.To, "err", err)
		}
		c.SendFailed(msg, err)
	}
}

// listDevices answers list-devices through its acknowledgement: every
// registered device for a registered sender, none for another.
func (s *Server) listDevices(c *conn, args []any) {
	ack, ok := last[socket.Ack](args)
	if !ok {
		return
	}
	out := wire.ListDevices{Devices: []wire.DeviceInfo{}}
	if !c.gone.Load() {
		devs, err := s.reg.Devices(s.ctx)
		if err != nil {
			s.log.Warn("gateway: list devices", "err", err)
		} else {
			out.Devices = devs
		}
	}
	ack([]any{out}, nil)
}

// remarshal turns a decoded Socket.io argument into v.
func remarshal(raw any, v any) error {
	b, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// queryValue reads one handshake query value (the library keeps []string).
func queryValue(q map[string]any, key string) string {
	switch v := q[key].(type) {
	case string:
		return v
	case []string:
		if len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

func first[T any](args []any) (T, bool) {
	var zero T
	if len(args) == 0 {
		return zero, false
	}
	v, ok := args[0].(T)
	return v, ok
}

func last[T any](args []any) (T, bool) {
	var zero T
	if len(args) == 0 {
		return zero, false
	}
	v, ok := args[len(args)-1].(T)
	return v, ok
}
