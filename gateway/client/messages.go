package client

// Sending on the connection: routed messages, RPC requests and their
// responses, the gateway's own events (list-devices, ping), and the
// helpers that read Socket.io's event arguments.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"agenthub/gateway/wire"

	"github.com/google/uuid"
)

// Send sends a RoutedMessage to device `to` and returns its id. payload is
// marshalled unless it is a json.RawMessage. It fails unless the client is
// registered (also while verifying: only the verify itself goes then).
func (c *Client) Send(to, action string, payload any) (string, error) {
	return c.send(0, NewMessageID(), to, action, payload, false)
}

func (c *Client) send(gen uint64, id, to, action string, payload any, verifying bool) (string, error) {
	raw, ok := payload.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(payload)
		if err != nil {
			return "", fmt.Errorf("gateway client: encode %s payload: %w", action, err)
		}
		raw = b
	}
	msg := wire.RoutedMessage{ID: id, From: c.opts.DeviceID, To: to, Action: action, Payload: raw}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sock == nil || (gen != 0 && gen != c.gen) || !(c.state == Registered || (verifying && c.state == Verifying)) {
		return "", ErrNotRegistered
	}
	if err := c.sock.Emit(wire.EventSend, msg); err != nil {
		return "", fmt.Errorf("gateway client: send: %w", err)
	}
	c.log.Debug("gateway client: send", "device", c.opts.DeviceID, "id", id, "to", to, "action", action, "gen", c.gen, "connected", c.sock.Connected())
	return id, nil
}

// SendMessage sends msg exactly as given — its id, from and fromConn
// included — for tools and tests that speak for themselves (the gateway
// refuses a from that is not this device's). Send is the usual way.
func (c *Client) SendMessage(msg wire.RoutedMessage) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sock == nil || c.state != Registered {
		return ErrNotRegistered
	}
	if err := c.sock.Emit(wire.EventSend, msg); err != nil {
		return fmt.Errorf("gateway client: send: %w", err)
	}
	return nil
}

// Writable reports whether the socket has room: fewer than HighWater
// packets wait to be written. A sender that must not outrun the network
// (the hub's streams) waits while it is false.
func (c *Client) Writable() bool {
	c.mu.Lock()
	mgr := c.mgr
	c.mu.Unlock()
	if mgr == nil {
		return true
	}
	e := mgr.Engine()
	if e == nil {
		return true
	}
	return e.WriteBuffer().Len() < c.opts.HighWater
}

// Request sends an RPC request to device `to` and waits for its response:
// the payload on ok, an *RPCError otherwise, ErrDisconnected when the
// connection drops first, or ctx's error.
func (c *Client) Request(ctx context.Context, to, method string, params any) (json.RawMessage, error) {
	return c.request(ctx, 0, to, method, params, false)
}

func (c *Client) request(ctx context.Context, gen uint64, to, method string, params any, verifying bool) (json.RawMessage, error) {
	reqID, msgID := NewMessageID(), NewMessageID()
	ch := make(chan response, 1)
	c.mu.Lock()
	c.pending[reqID] = ch
	c.sentAs[msgID] = reqID
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, reqID)
		delete(c.sentAs, msgID)
		c.mu.Unlock()
	}()
	payload := map[string]any{"requestId": reqID, "method": method}
	if params != nil {
		payload["params"] = params
	}
	if _, err := c.send(gen, msgID, to, wire.ActionRequest, payload, verifying); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r.payload, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("RPC request %s: %w", method, ctx.Err())
	}
}

// ListDevices asks the gateway for the registered devices.
func (c *Client) ListDevices(ctx context.Context) ([]wire.DeviceInfo, error) {
	var out wire.ListDevices
	if err := c.ack(ctx, wire.EventListDevices, map[string]any{}, &out); err != nil {
		return nil, err
	}
	return out.Devices, nil
}

// Ping asks the gateway for a pong and returns its data.
func (c *Client) Ping(ctx context.Context) (string, error) {
	var out wire.Pong
	if err := c.ack(ctx, wire.EventPing, map[string]any{}, &out); err != nil {
		return "", err
	}
	return out.Data, nil
}

// ack emits ev with arg and decodes the acknowledgement into v.
func (c *Client) ack(ctx context.Context, ev string, arg any, v any) error {
	got := make(chan []any, 1)
	c.mu.Lock()
	sock := c.sock
	ok := sock != nil && (c.state == Registered || c.state == Verifying)
	c.mu.Unlock()
	if !ok {
		return ErrNotRegistered
	}
	if err := sock.Emit(ev, arg, func(args []any, err error) {
		if err == nil {
			got <- args
		}
	}); err != nil {
		return fmt.Errorf("gateway client: %s: %w", ev, err)
	}
	select {
	case args := <-got:
		return decodeArg(args, v)
	case <-ctx.Done():
		return fmt.Errorf("gateway client: %s: %w", ev, ctx.Err())
	}
}

// dropPending fails every pending request of connection gen.
func (c *Client) dropPending(gen uint64) {
	c.mu.Lock()
	if gen != c.gen {
		c.mu.Unlock()
		return
	}
	p := c.pending
	c.pending = map[string]chan response{}
	c.mu.Unlock()
	for _, ch := range p {
		ch <- response{err: ErrDisconnected}
	}
}

func (c *Client) setState(gen uint64, s State) {
	c.mu.Lock()
	if gen != c.gen || c.state == s {
		c.mu.Unlock()
		return
	}
	c.state = s
	c.mu.Unlock()
	if c.cb.OnStateChange != nil {
		c.cb.OnStateChange(s)
	}
}

func (c *Client) report(err error) {
	c.log.Debug("gateway client", "device", c.opts.DeviceID, "err", err)
	if c.cb.OnError != nil {
		c.cb.OnError(err)
	}
}

// NewMessageID is a UUIDv7, the id the SDK gives messages and requests.
func NewMessageID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}

func decodeArg(args []any, v any) error {
	if len(args) == 0 {
		return errors.New("no argument")
	}
	b, err := json.Marshal(args[0])
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func firstArg[T any](args []any) (T, bool) {
	var zero T
	if len(args) == 0 {
		return zero, false
	}
	v, ok := args[0].(T)
	return v, ok
}

func argText(args []any) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		if a != nil {
			parts = append(parts, fmt.Sprint(a))
		}
	}
	return strings.Join(parts, " ")
}
