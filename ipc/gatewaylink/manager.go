// Package gatewaylink is the hub as a device of a gateway (`--gateway URL`,
// docs/gateway.md): it connects out as deviceType "hub" under the hub's
// persistent id (ipc/devices), reconnects with backoff and never listens.
// Over the gateway, devices verify with a token the hub's user confirmed
// (first time: the window asks "Allow <device> to control this hub?"),
// every request is checked against the device's rights, RPC runs through
// the same seed 003 dispatcher as the local transports, and subscriptions
// stream the bus's frames (seed 000's StreamPayload by default) with the
// local port's cursor semantics. docs/protocol.md §11 is the contract.
//
// The Manager exists whether or not a gateway is configured (the window
// lists and revokes devices either way); it starts nothing until Configure
// names a gateway.
package gatewaylink

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"time"

	"agenthub/gateway/client"
	"agenthub/ipc"
	"agenthub/ipc/devices"
	"agenthub/ipc/rpc"
)

// DefaultConfirmTimeout is how long a new device's verify waits for the
// hub's user.
const DefaultConfirmTimeout = 2 * time.Minute

// Options configures NewManager. Bus, RPC and Devices are required.
type Options struct {
	Bus     *ipc.Bus
	RPC     *rpc.Dispatcher
	Devices *devices.Store
	// ConfirmTimeout bounds the wait for the user's answer (0: default).
	ConfirmTimeout time.Duration
	// OnPending is called (on its own goroutine) whenever the list of
	// devices waiting for confirmation changes: the window shows it.
	OnPending func([]PendingDevice)
	// Client tunes the connection (reconnect delays, connect timeout);
	// its URL, identity and callbacks are the link's own.
	Client client.Options
	// TLS configures https gateways (nil: the system's roots).
	TLS *tls.Config
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// PendingDevice is a device waiting for the hub's user to allow it.
type PendingDevice struct {
	DeviceID    string            `json:"deviceId"`
	Rights      devices.Rights    `json:"rights"`
	Meta        map[string]string `json:"meta,omitempty"`
	RequestedAt time.Time         `json:"requestedAt"`
	ExpiresAt   time.Time         `json:"expiresAt"`
}

// Status is the link's state for the window.
type Status struct {
	// URL is the configured gateway ("" when none).
	URL string `json:"url"`
	// HubID is this hub's device id.
	HubID string `json:"hubId"`
	// State is the connection state (client.State) or "off".
	State string `json:"state"`
	// Error is the last connection error, if any.
	Error string `json:"error,omitempty"`
}

// Manager owns the hub's gateway link and the confirmations it asks for.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	link    *link
	url     string
	pending map[string]*pending
	closed  bool
}

// pending is one device waiting for an answer; every verify of it waits on
// done.
type pending struct {
	info      PendingDevice
	token     string
	done      chan struct{}
	allowed   bool
	rights    devices.Rights
	answerErr error
}

// NewManager returns a Manager with no gateway.
func NewManager(opts Options) (*Manager, error) {
	if opts.Bus == nil || opts.RPC == nil || opts.Devices == nil {
		return nil, errors.New("gatewaylink: Bus, RPC and Devices are required")
	}
	if opts.ConfirmTimeout <= 0 {
		opts.ConfirmTimeout = DefaultConfirmTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Manager{opts: opts, log: log, pending: map[string]*pending{}}, nil
}

// Configure connects to the gateway at rawURL (ValidateURL with insecure),
// replacing the current link if the URL changed; "" disconnects. It
// returns the URL's validation error without changing anything.
func (m *Manager) Configure(rawURL string, insecure bool) error {
	dial := ""
	if rawURL != "" {
		var err error
		if dial, err = ValidateURL(rawURL, insecure); err != nil {
			return err
		}
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errors.New("gatewaylink: closed")
	}
	if dial == m.url && (dial == "" || m.link != nil) {
		m.mu.Unlock()
		return nil
	}
	old := m.link
	m.link, m.url = nil, dial
	m.mu.Unlock()
	if old != nil {
		old.close()
	}
	if dial == "" {
		m.log.Info("gateway: off")
		return nil
	}
	hubID, err := m.opts.Devices.HubID()
	if err != nil {
		return err
	}
	l, err := startLink(m, dial, hubID)
	if err != nil {
		return err
	}
	m.mu.Lock()
	if m.closed || m.url != dial || m.link != nil {
		m.mu.Unlock()
		l.close()
		return nil
	}
	m.link = l
	m.mu.Unlock()
	m.log.Info("gateway: connecting", "url", dial, "hub_id", hubID)
	return nil
}

// Close disconnects and refuses every pending confirmation.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	l := m.link
	m.link = nil
	var waiting []*pending
	for id, p := range m.pending {
		waiting = append(waiting, p)
		delete(m.pending, id)
	}
	m.mu.Unlock()
	for _, p := range waiting {
		p.answerErr = errors.New("the hub is shutting down")
		close(p.done)
	}
	if l != nil {
		l.close()
	}
}

// Status reports the link.
func (m *Manager) Status() Status {
	hubID, _ := m.opts.Devices.KnownHubID()
	m.mu.Lock()
	l, url := m.link, m.url
	m.mu.Unlock()
	st := Status{URL: url, HubID: hubID, State: "off"}
	if l != nil {
		st.State, st.Error = l.status()
	}
	return st
}

// Pending lists the devices waiting for confirmation, oldest first.
func (m *Manager) Pending() []PendingDevice {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]PendingDevice, 0, len(m.pending))
	for _, p := range m.pending {
		out = append(out, p.info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RequestedAt.Before(out[j].RequestedAt) })
	return out
}

// Answer allows (with rights; "" keeps the token's) or denies a pending
// device. Allowing records it in the trust file bound to its token.
func (m *Manager) Answer(deviceID string, allow bool, rights devices.Rights) error {
	m.mu.Lock()
	p, ok := m.pending[deviceID]
	if ok {
		delete(m.pending, deviceID)
	}
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("no device %q is waiting for confirmation: %w", deviceID, ipc.ErrInvalidInput)
	}
	defer m.notifyPending()
	if rights == "" {
		rights = p.info.Rights
	}
	p.allowed, p.rights = allow, rights
	if allow {
		if _, err := m.opts.Devices.Confirm(deviceID, p.token, rights, p.info.Meta); err != nil {
			p.allowed, p.answerErr = false, err
			close(p.done)
			return fmt.Errorf("confirm %s: %w", deviceID, err)
		}
		m.log.Info("gateway: device allowed", "device", deviceID, "rights", rights)
	} else {
		if err := m.opts.Devices.Discard(p.token); err != nil {
			m.log.Warn("gateway: discard a denied device's token", "err", err)
		}
		m.log.Info("gateway: device denied", "device", deviceID)
	}
	close(p.done)
	return nil
}

// Revoke forgets a confirmed device and ends what it has open at once.
func (m *Manager) Revoke(deviceID string) (bool, error) {
	ok, err := m.opts.Devices.Revoke(deviceID)
	if err != nil {
		return false, err
	}
	if l := m.current(); l != nil {
		l.forget(deviceID)
	}
	m.log.Info("gateway: device revoked", "device", deviceID, "was_confirmed", ok)
	return ok, nil
}

// SetRights changes a confirmed device's rights; it applies to its next
// request.
func (m *Manager) SetRights(deviceID string, rights devices.Rights) error {
	if err := m.opts.Devices.SetRights(deviceID, rights); err != nil {
		if errors.Is(err, devices.ErrUnknownDevice) {
			return fmt.Errorf("%s: %w: %w", deviceID, err, ipc.ErrInvalidInput)
		}
		return err
	}
	if l := m.current(); l != nil {
		l.setRights(deviceID, rights)
	}
	return nil
}

func (m *Manager) current() *link {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.link
}

// await registers (or joins) the confirmation of deviceID with token and
// waits for the answer, the timeout or stop.
func (m *Manager) await(deviceID, token string, p devices.Pairing, meta map[string]string, stop <-chan struct{}) (bool, devices.Rights, error) {
	now := time.Now()
	m.mu.Lock()
	w, ok := m.pending[deviceID]
	if ok && w.token != token {
		m.mu.Unlock()
		return false, "", devices.ErrBadToken
	}
	for id, o := range m.pending {
		if id != deviceID && o.token == token {
			m.mu.Unlock()
			return false, "", devices.ErrBadToken // another device is redeeming this token
		}
	}
	if !ok {
		w = &pending{token: token, done: make(chan struct{}), info: PendingDevice{DeviceID: deviceID, Rights: p.Rights,
			Meta: meta, RequestedAt: now.UTC(), ExpiresAt: now.Add(m.opts.ConfirmTimeout).UTC()}}
		m.pending[deviceID] = w
	}
	m.mu.Unlock()
	if !ok {
		m.log.Info("gateway: device asks to be allowed", "device", deviceID, "rights", p.Rights)
		m.notifyPending()
	}
	timer := time.NewTimer(time.Until(w.info.ExpiresAt))
	defer timer.Stop()
	select {
	case <-w.done:
		return w.allowed, w.rights, w.answerErr
	case <-timer.C:
	case <-stop:
	}
	m.mu.Lock()
	if m.pending[deviceID] == w {
		delete(m.pending, deviceID)
	}
	m.mu.Unlock()
	m.notifyPending()
	select {
	case <-w.done: // answered meanwhile
		return w.allowed, w.rights, w.answerErr
	default:
	}
	return false, "", fmt.Errorf("not confirmed on the hub within %s", m.opts.ConfirmTimeout)
}

func (m *Manager) notifyPending() {
	if m.opts.OnPending != nil {
		go m.opts.OnPending(m.Pending())
	}
}
