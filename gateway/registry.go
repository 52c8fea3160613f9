package gateway

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"agenthub/gateway/wire"
)

// ErrDeviceInUse: another connection holds the device id.
var ErrDeviceInUse = errors.New("device id already in use")

// ErrDeviceNotFound: no connection holds the device id.
var ErrDeviceNotFound = errors.New("device not found")

// ErrUnreachable: the device may be connected elsewhere in the fleet, but
// the fleet cannot be reached to deliver to it (or to tell).
var ErrUnreachable = errors.New("device not reachable")

// ErrUnconfirmed wraps ErrUnreachable for a message that was handed to the
// fleet but whose delivery was never acknowledged: it may have arrived (the
// acknowledgement can be what was lost), so a sender must not assume it did
// not.
var ErrUnconfirmed = fmt.Errorf("%w: sent, but its delivery was not confirmed (it may have arrived)", ErrUnreachable)

// Conn is one device's socket on this gateway instance, as the registry
// and the router see it.
type Conn interface {
	// Info is the device's id and type from its handshake.
	Info() wire.DeviceInfo
	// ConnID names this connection (unique per socket, opaque).
	ConnID() string
	// Deliver emits `receive` with msg to the device. It does not block on
	// the network (the socket buffers) and fails only once the socket closed.
	Deliver(msg wire.RoutedMessage) error
	// SendFailed tells the device that a message it sent was not delivered
	// (send_error; ErrDeviceNotFound and ErrUnreachable map to
	// DEVICE_NOT_FOUND): a Router that delivers after Route returned reports
	// a late failure here.
	SendFailed(msg wire.RoutedMessage, err error)
	// Drop disconnects the device (its registration was lost to another
	// connection); it reconnects and registers again.
	Drop(reason string)
}

// Registry holds which device ids are taken. One id has at most one
// connection across everything the registry spans (one process here; a
// fleet of gateway instances for a shared implementation).
type Registry interface {
	// Register claims c's device id for c: ErrDeviceInUse when another
	// connection holds it.
	Register(ctx context.Context, c Conn) error
	// Unregister releases c's device id if c still holds it.
	Unregister(ctx context.Context, c Conn)
	// Devices lists the registered devices, sorted by id.
	Devices(ctx context.Context) ([]wire.DeviceInfo, error)
}

// Router delivers a message to the connection holding its `to` device id,
// wherever that connection is: ErrDeviceNotFound when none does. It keeps
// nothing: a message for a device that is not connected is refused, never
// queued for later. Messages of one sender to one recipient arrive in the
// order Route was called. A Router may deliver after Route returned nil
// (another gateway instance holds the recipient); a failure found then is
// reported through from.SendFailed.
type Router interface {
	Route(ctx context.Context, from Conn, msg wire.RoutedMessage) error
}

// Local is the in-memory Registry and Router of one gateway process.
type Local struct {
	mu    sync.RWMutex
	conns map[string]Conn
}

var (
	_ Registry = (*Local)(nil)
	_ Router   = (*Local)(nil)
)

// NewLocal returns an empty Local.
func NewLocal() *Local { return &Local{conns: map[string]Conn{}} }

// Register implements Registry.
func (l *Local) Register(_ context.Context, c Conn) error {
	id := c.Info().DeviceID
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.conns[id]; ok && cur.ConnID() != c.ConnID() {
		return ErrDeviceInUse
	}
	l.conns[id] = c
	return nil
}

// Unregister implements Registry.
func (l *Local) Unregister(_ context.Context, c Conn) {
	id := c.Info().DeviceID
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.conns[id]; ok && cur.ConnID() == c.ConnID() {
		delete(l.conns, id)
	}
}

// Devices implements Registry.
func (l *Local) Devices(context.Context) ([]wire.DeviceInfo, error) {
	l.mu.RLock()
	out := make([]wire.DeviceInfo, 0, len(l.conns))
	for _, c := range l.conns {
		out = append(out, c.Info())
	}
	l.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].DeviceID < out[j].DeviceID })
	return out, nil
}

// Route implements Router: delivery is done (or refused) when it returns.
func (l *Local) Route(_ context.Context, _ Conn, msg wire.RoutedMessage) error {
	l.mu.RLock()
	c, ok := l.conns[msg.To]
	l.mu.RUnlock()
	if !ok {
		return ErrDeviceNotFound
	}
	return c.Deliver(msg)
}
