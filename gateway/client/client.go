// Package client is a Go GatewayClient: a device of the seeds' device
// protocol (gateway/wire), written from seed 003 and multica's published
// SDK (packages/sdk: the handshake query, `registered`, `send`/`receive`,
// request/response with requestId, `verify` before a hub answers,
// list-devices, ping), not copied from it. The hub connects through it as
// deviceType "hub" (ipc/gatewaylink); tests and the bench drive Agent Hub
// through it as a "client".
//
// It differs from the SDK where Go needs it: every connection attempt is a
// fresh Socket.io manager (the library's own reconnection waits out its
// connect timeout after a refused dial, and would resend what was queued
// while disconnected), so a message is sent on the connection it was
// given to or not at all; a refused registration (the id is still held
// by a socket the gateway has not yet seen die) is retried with backoff
// like any other failure; and Send reports backpressure (Writable).
package client

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"agenthub/gateway/wire"

	sio "github.com/zishang520/socket.io/clients/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// State is the connection state (the SDK's ConnectionState).
type State string

// States, in the order a connection goes through them.
const (
	Disconnected State = "disconnected"
	Connecting   State = "connecting"
	Connected    State = "connected"
	Verifying    State = "verifying"
	Registered   State = "registered"
)

// ErrNotRegistered: Send or Request while the device is not registered.
var ErrNotRegistered = errors.New("gateway client: not registered")

// ErrDisconnected rejects every pending request when the connection drops.
var ErrDisconnected = errors.New("gateway client: disconnected")

// Options configures New. DeviceID, DeviceType and URL are required.
type Options struct {
	// URL of the gateway (http(s)://host[:port]); Path defaults to /ws.
	URL  string
	Path string
	// DeviceID and DeviceType are the handshake's identity.
	DeviceID   string
	DeviceType string
	// HubID and Token: verify with this hub after every registration
	// before reporting Registered (the SDK's auto-verify). Token is the
	// pairing token (docs/protocol.md §11); Meta goes along.
	HubID string
	Token string
	Meta  map[string]string
	// VerifyTimeout bounds a verify (0: 30s, the SDK's; the hub's user may
	// have to confirm).
	VerifyTimeout time.Duration
	// NoReconnect stops after the first connection ends.
	NoReconnect bool
	// ReconnectDelay and ReconnectDelayMax bound the backoff (0: 1s, 30s).
	ReconnectDelay, ReconnectDelayMax time.Duration
	// ConnectTimeout bounds one connection attempt (0: 3s). The Socket.io
	// client library sometimes loses an attempt's "open" (a race in its
	// Manager.Open) and never reports a refused dial: the attempt then ends
	// only at this timeout, and the loop tries again.
	ConnectTimeout time.Duration
	// TLS configures https/wss (nil: the system's roots).
	TLS *tls.Config
	// HighWater is how many packets may wait for the socket before
	// Writable says no (0: 256).
	HighWater int
	// Logger; nil discards.
	Logger *slog.Logger
}

// VerifyResult is the hub's answer to verify (the SDK's onVerified
// argument plus Agent Hub's rights).
type VerifyResult struct {
	HubID       string `json:"hubId"`
	AgentID     string `json:"agentId"`
	IsNewDevice bool   `json:"isNewDevice"`
	Rights      string `json:"rights,omitempty"`
}

// Callbacks are called from the connection's goroutines; they must not
// block (hand work to a goroutine of your own).
type Callbacks struct {
	OnStateChange func(State)
	OnRegistered  func(deviceID string)
	OnVerified    func(VerifyResult)
	OnMessage     func(wire.RoutedMessage)
	OnSendError   func(wire.SendError)
	OnPong        func(data string)
	OnError       func(error)
}

// RPCError is a response with ok: false.
type RPCError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *RPCError) Error() string { return "RPC error [" + e.Code + "]: " + e.Message }

// Client is one device's connection, reconnecting until Close.
type Client struct {
	opts Options
	cb   Callbacks
	log  *slog.Logger

	mu      sync.Mutex
	state   State
	sock    *sio.Socket // the current attempt's socket (nil between attempts)
	mgr     *sio.Manager
	gen     uint64 // connection attempt; callbacks of older ones are ignored
	pending map[string]chan response
	sentAs  map[string]string // message id → request id of pending requests
	closed  bool
	wake    chan struct{} // closed to cut a backoff short (Close)
	done    chan struct{}
	started bool
}

type response struct {
	payload json.RawMessage
	err     error
}

// New checks opts and returns an unconnected client.
func New(opts Options, cb Callbacks) (*Client, error) {
	if err := wire.ValidateDeviceID(opts.DeviceID); err != nil {
		return nil, fmt.Errorf("gateway client: %w", err)
	}
	if !wire.ValidDeviceType(opts.DeviceType) {
		return nil, fmt.Errorf("gateway client: device type %q: want client, hub or agent", opts.DeviceType)
	}
	u, err := url.Parse(opts.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return nil, fmt.Errorf("gateway client: URL %q: want http(s)://host[:port]", opts.URL)
	}
	if opts.Path == "" {
		opts.Path = wire.Path
	}
	if opts.VerifyTimeout <= 0 {
		opts.VerifyTimeout = 30 * time.Second
	}
	if opts.ReconnectDelay <= 0 {
		opts.ReconnectDelay = time.Second
	}
	if opts.ReconnectDelayMax <= 0 {
		opts.ReconnectDelayMax = 30 * time.Second
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 3 * time.Second
	}
	if opts.HighWater <= 0 {
		opts.HighWater = 256
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Client{opts: opts, cb: cb, log: log, state: Disconnected, pending: map[string]chan response{}, sentAs: map[string]string{},
		wake: make(chan struct{}), done: make(chan struct{})}, nil
}

// DeviceID is the client's device id.
func (c *Client) DeviceID() string { return c.opts.DeviceID }

// State is the current connection state.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Connect starts connecting (and reconnecting, unless NoReconnect) in the
// background until Close. It returns at once; a second call does nothing.
func (c *Client) Connect() {
	c.mu.Lock()
	if c.started || c.closed {
		c.mu.Unlock()
		return
	}
	c.started = true
	c.mu.Unlock()
	go c.run()
}

// Close disconnects for good and waits for the connection loop to end.
// Pending requests fail with ErrDisconnected.
func (c *Client) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		<-c.done
		return
	}
	c.closed = true
	started := c.started
	close(c.wake)
	c.mu.Unlock()
	if started {
		<-c.done
	} else {
		close(c.done)
	}
}

// run is the connection loop: one attempt at a time, backoff between them.
func (c *Client) run() {
	defer close(c.done)
	attempt := 0
	for {
		ended := c.attempt()
		registered := <-ended
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed || c.opts.NoReconnect {
			c.teardown()
			return
		}
		c.teardown()
		if registered {
			attempt = 0
		}
		attempt++
		select {
		case <-time.After(c.backoff(attempt)):
		case <-c.wake:
			return
		}
	}
}

// backoff is the wait before attempt n (1-based): ReconnectDelay doubling
// up to ReconnectDelayMax, with ±25 % jitter.
func (c *Client) backoff(n int) time.Duration {
	d := c.opts.ReconnectDelay
	for i := 1; i < n && d < c.opts.ReconnectDelayMax; i++ {
		d *= 2
	}
	d = min(d, c.opts.ReconnectDelayMax)
	return time.Duration(float64(d) * (0.75 + rand.Float64()/2))
}

// attempt opens one connection. The channel it returns gets one value when
// the connection has ended: whether it had registered.
func (c *Client) attempt() <-chan bool {
	ended := make(chan bool, 1)
	opts := sio.DefaultOptions()
	opts.SetPath(c.opts.Path)
	q := url.Values{}
	q.Set(wire.QueryDeviceID, c.opts.DeviceID)
	q.Set(wire.QueryDeviceType, c.opts.DeviceType)
	opts.SetQuery(q)
	opts.SetTransports(types.NewSet(sio.WebSocket))
	opts.SetReconnection(false)
	opts.SetTimeout(c.opts.ConnectTimeout)
	opts.SetAutoConnect(false)         // only sock.Connect opens: with both, the socket can miss "open" or send CONNECT twice
	opts.SetCloseOnBeforeunload(false) // no process-wide "offline" listener
	if c.opts.TLS != nil {
		opts.SetTLSClientConfig(c.opts.TLS)
	}
	mgr := sio.NewManager(strings.TrimSuffix(c.opts.URL, "/"), opts)
	sock := mgr.Socket("/", opts)

	c.mu.Lock()
	c.gen++
	gen := c.gen
	c.sock, c.mgr = sock, mgr
	c.mu.Unlock()
	c.setState(gen, Connecting)

	var once sync.Once
	var registered atomic.Bool
	stop := make(chan struct{})
	end := func(reason string) {
		once.Do(func() {
			close(stop)
			c.log.Debug("gateway client: connection ended", "device", c.opts.DeviceID, "reason", reason)
			c.dropPending(gen)
			c.setState(gen, Disconnected)
			ended <- registered.Load()
		})
	}
	_ = sock.On("connect", func(...any) { c.setState(gen, Connected) })
	_ = sock.On("connect_error", func(args ...any) {
		c.report(fmt.Errorf("gateway client: connect %s: %v", c.opts.URL, argText(args)))
		end("connect_error")
	})
	_ = sock.On("disconnect", func(args ...any) { end("disconnect: " + argText(args)) })
	_ = sock.On(wire.EventRegistered, func(args ...any) {
		var r wire.Registered
		if err := decodeArg(args, &r); err != nil || !r.Success {
			why := r.Error
			if why == "" {
				why = "registration refused"
			}
			c.report(fmt.Errorf("gateway client: %s: %s", c.opts.DeviceID, why))
			end("registration refused")
			return
		}
		registered.Store(true)
		go c.registered(gen, r.DeviceID)
	})
	_ = sock.On(wire.EventReceive, func(args ...any) {
		var m wire.RoutedMessage
		if err := decodeArg(args, &m); err != nil {
			c.report(fmt.Errorf("gateway client: malformed message: %w", err))
			return
		}
		c.log.Debug("gateway client: receive", "device", c.opts.DeviceID, "id", m.ID, "from", m.From, "action", m.Action)
		c.receive(gen, m)
	})
	_ = sock.On(wire.EventSendError, func(args ...any) {
		var e wire.SendError
		if decodeArg(args, &e) != nil {
			return
		}
		// A request the gateway could not deliver fails now, not at its
		// timeout (the SDK leaves it to the timeout).
		c.mu.Lock()
		ch, ok := c.pending[c.sentAs[e.MessageID]]
		if ok {
			delete(c.pending, c.sentAs[e.MessageID])
		}
		c.mu.Unlock()
		if ok {
			ch <- response{err: &RPCError{Code: e.Code, Message: e.Error}}
		}
		if c.cb.OnSendError != nil {
			c.cb.OnSendError(e)
		}
	})
	_ = sock.On(wire.EventPong, func(args ...any) {
		if s, ok := firstArg[string](args); ok && c.cb.OnPong != nil {
			c.cb.OnPong(s)
		}
	})
	// Whatever the library does or fails to report, an attempt that has not
	// registered within twice the connect timeout is over.
	watchdog := time.AfterFunc(2*c.opts.ConnectTimeout, func() {
		if !registered.Load() {
			c.report(fmt.Errorf("gateway client: %s: not registered within %s", c.opts.URL, 2*c.opts.ConnectTimeout))
			end("no registration")
		}
	})
	// The manager opens first and the socket connects once it is open: the
	// library's Socket.Connect both listens for "open" and checks whether
	// the manager is open already, and when "open" comes in between it sends
	// the namespace CONNECT twice (the gateway then closes the connection,
	// possibly after the device registered). Connecting an open manager's
	// socket sends it once.
	opened := make(chan struct{})
	var openOnce sync.Once
	_ = mgr.On("open", func(...any) { openOnce.Do(func() { close(opened) }) })
	mgr.Open(func(err error) {
		if err != nil {
			c.report(fmt.Errorf("gateway client: connect %s: %w", c.opts.URL, err))
			end("open failed")
		}
	})
	go func() {
		select {
		case <-opened:
			sock.Connect()
		case <-stop:
		}
	}()
	go func() { // end the attempt when Close is called
		select {
		case <-c.wake:
			end("closed")
		case <-stop:
		}
		watchdog.Stop()
	}()
	return ended
}

// teardown disconnects the last attempt's socket and engine.
func (c *Client) teardown() {
	c.mu.Lock()
	sock, mgr := c.sock, c.mgr
	c.sock, c.mgr = nil, nil
	c.gen++
	c.mu.Unlock()
	if sock != nil {
		sock.Disconnect()
	}
	if mgr != nil {
		if e := mgr.Engine(); e != nil {
			e.Close()
		}
	}
}

// registered runs after `registered`: verify first when a hub is named.
func (c *Client) registered(gen uint64, deviceID string) {
	if c.opts.HubID == "" {
		c.setState(gen, Registered)
		if c.cb.OnRegistered != nil {
			c.cb.OnRegistered(deviceID)
		}
		return
	}
	c.setState(gen, Verifying)
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.VerifyTimeout)
	defer cancel()
	params := map[string]any{"token": c.opts.Token}
	if len(c.opts.Meta) > 0 {
		params["meta"] = c.opts.Meta
	}
	raw, err := c.request(ctx, gen, c.opts.HubID, "verify", params, true)
	var res VerifyResult
	if err == nil {
		err = json.Unmarshal(raw, &res)
	}
	if err != nil {
		c.report(fmt.Errorf("gateway client: verify with hub %s: %w", c.opts.HubID, err))
		c.mu.Lock()
		sock := c.sock
		current := c.gen == gen
		c.mu.Unlock()
		if current && sock != nil {
			sock.Disconnect() // the SDK disconnects on a failed verify; the loop retries
		}
		return
	}
	if c.cb.OnVerified != nil {
		c.cb.OnVerified(res)
	}
	c.setState(gen, Registered)
	if c.cb.OnRegistered != nil {
		c.cb.OnRegistered(deviceID)
	}
}

// receive resolves a pending request or hands the message on.
func (c *Client) receive(gen uint64, m wire.RoutedMessage) {
	if m.Action == wire.ActionResponse {
		var p struct {
			RequestID string          `json:"requestId"`
			OK        bool            `json:"ok"`
			Payload   json.RawMessage `json:"payload"`
			Error     *RPCError       `json:"error"`
		}
		if json.Unmarshal(m.Payload, &p) == nil {
			c.mu.Lock()
			ch, ok := c.pending[p.RequestID]
			if ok {
				delete(c.pending, p.RequestID)
			}
			c.mu.Unlock()
			if ok {
				r := response{payload: p.Payload}
				if !p.OK {
					if p.Error == nil {
						p.Error = &RPCError{Code: "RPC_ERROR", Message: "response without error"}
					}
					r.err = p.Error
				}
				ch <- r
				return
			}
		}
	}
	if c.cb.OnMessage != nil {
		c.cb.OnMessage(m)
	}
}
