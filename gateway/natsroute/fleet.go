// Package natsroute is the gateway's fleet: gateway.Registry and
// gateway.Router over a NATS cluster, so any number of `agenthub gateway
// --nats URL` instances serve one device namespace. A device's id is
// claimed fleet-wide in a JetStream key-value bucket (created only if the
// key is absent, renewed while its socket lives, gone after the bucket's
// TTL when its instance dies); the instance holding it subscribes to the
// device's subject, and a message for a device on another instance is a
// NATS request to that subject, retried until the holder acknowledges it
// (delivered exactly once: the holder drops a retry it already delivered)
// or until it is clear that nobody holds the device (DEVICE_NOT_FOUND), or
// the delivery timeout (send_error). Devices connected to an instance
// reach each other without NATS. docs/gateway.md ("A fleet") is the setup.
package natsroute

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"sync"
	"time"

	"agenthub/gateway"
	"agenthub/gateway/wire"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// Defaults of Options.
const (
	DefaultBucket          = "agenthub_gateway_devices"
	DefaultSubject         = "agenthub.gw"
	DefaultTTL             = 15 * time.Second
	DefaultDeliveryTimeout = 5 * time.Second
	DefaultAttemptTimeout  = time.Second
)

// Options configures Connect. URL is required.
type Options struct {
	// URL is one or more NATS server URLs, comma-separated
	// (nats://, tls://); the client discovers the rest of the cluster.
	URL string
	// CredsFile is a NATS credentials file (JWT and nkey seed) for the
	// gateway's user, NKeyFile an nkey seed file (a user of the server's
	// own accounts); CAFile, CertFile and KeyFile set TLS (a private CA, a
	// client certificate). Empty: none.
	CredsFile, NKeyFile, CAFile, CertFile, KeyFile string
	// Name names this instance in NATS and in the registrations (default
	// the host name and a random suffix).
	Name string
	// Bucket is the key-value bucket of registrations, Subject the prefix
	// of the devices' subjects (defaults DefaultBucket, DefaultSubject).
	// Every instance of one fleet uses the same.
	Bucket, Subject string
	// Replicas of the bucket (0: as many nodes as the client knows, at
	// most 3). A registration survives the loss of Replicas-1 nodes.
	Replicas int
	// TTL is how long a registration outlives its instance (renewed every
	// TTL/3 while the socket lives; default DefaultTTL). A crashed
	// instance's devices can register elsewhere after it.
	TTL time.Duration
	// DeliveryTimeout bounds how long a cross-instance message is retried
	// before its sender gets send_error (default DefaultDeliveryTimeout);
	// AttemptTimeout bounds one attempt (default DefaultAttemptTimeout).
	DeliveryTimeout, AttemptTimeout time.Duration
	// Logger; nil discards.
	Logger *slog.Logger
}

// Fleet is one instance's view of the fleet: pass it as both the Registry
// and the Router of gateway.Options, and Close it after the gateway.
type Fleet struct {
	opts Options
	log  *slog.Logger
	nc   *nats.Conn
	kv   jetstream.KeyValue

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	kick   chan struct{}
	gone   chan struct{} // closed by the connection's last callback

	mu        sync.Mutex
	closed    bool
	local     map[string]*entry // device id → this instance's registration
	lanes     map[laneKey]*lane
	downSince time.Time     // zero while connected to NATS
	up        chan struct{} // closed at the next reconnection
}

var (
	_ gateway.Registry = (*Fleet)(nil)
	_ gateway.Router   = (*Fleet)(nil)
)

// registration is a device's value in the bucket.
type registration struct {
	DeviceID   string `json:"deviceId"`
	DeviceType string `json:"deviceType"`
	Instance   string `json:"instance"`
	Conn       string `json:"conn"`
}

// entry is a device registered through this instance.
type entry struct {
	conn gateway.Conn
	key  string
	val  []byte

	mu   sync.Mutex
	sub  *nats.Subscription   // nil until the claim is made
	rev  uint64               // the bucket's revision of the claim
	seen map[string]delivered // lane → the last message delivered from it
}

// claimed reports whether e's claim is made (it is routed to).
func (e *entry) claimed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sub != nil
}

// unsubscribe ends e's subscription, if any.
func (e *entry) unsubscribe() {
	e.mu.Lock()
	sub := e.sub
	e.mu.Unlock()
	if sub != nil {
		_ = sub.Unsubscribe()
	}
}

type delivered struct {
	seq uint64
	at  time.Time
}

// Connect joins the fleet at opts.URL: it connects to NATS, creates (or
// adopts) the registrations bucket and starts renewing.
func Connect(ctx context.Context, opts Options) (*Fleet, error) {
	if opts.URL == "" {
		return nil, errors.New("natsroute: no NATS URL")
	}
	if opts.Name == "" {
		host, _ := os.Hostname()
		opts.Name = host + "-" + nuid.Next()[:8]
	}
	if opts.Bucket == "" {
		opts.Bucket = DefaultBucket
	}
	if opts.Subject == "" {
		opts.Subject = DefaultSubject
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.DeliveryTimeout <= 0 {
		opts.DeliveryTimeout = DefaultDeliveryTimeout
	}
	if opts.AttemptTimeout <= 0 {
		opts.AttemptTimeout = DefaultAttemptTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("instance", opts.Name)
	fctx, cancel := context.WithCancel(context.Background())
	f := &Fleet{opts: opts, log: log, ctx: fctx, cancel: cancel, kick: make(chan struct{}, 1), gone: make(chan struct{}),
		local: map[string]*entry{}, lanes: map[laneKey]*lane{}, up: make(chan struct{})}
	nopts := []nats.Option{
		nats.Name("agenthub gateway " + opts.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		// Nothing is buffered while disconnected: a lane retries explicitly.
		nats.ReconnectBufSize(-1),
		nats.PingInterval(5 * time.Second),
		nats.MaxPingsOutstanding(2),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { f.disconnected(err) }),
		nats.ReconnectHandler(func(nc *nats.Conn) { f.reconnected(nc.ConnectedUrlRedacted()) }),
		// The library's callbacks run on its own goroutine: the last one
		// tells Close that none will follow.
		nats.ClosedHandler(func(*nats.Conn) { close(f.gone) }),
	}
	if opts.CredsFile != "" {
		nopts = append(nopts, nats.UserCredentials(opts.CredsFile))
	}
	if opts.NKeyFile != "" {
		o, err := nats.NkeyOptionFromSeed(opts.NKeyFile)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("natsroute: nkey: %w", err)
		}
		nopts = append(nopts, o)
	}
	if opts.CAFile != "" {
		nopts = append(nopts, nats.RootCAs(opts.CAFile))
	}
	if opts.CertFile != "" || opts.KeyFile != "" {
		nopts = append(nopts, nats.ClientCert(opts.CertFile, opts.KeyFile))
	}
	nc, err := nats.Connect(opts.URL, nopts...)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("natsroute: connect %s: %w", opts.URL, err)
	}
	f.nc = nc
	if err := f.openBucket(ctx); err != nil {
		nc.Close()
		<-f.gone
		cancel()
		return nil, err
	}
	f.wg.Add(1)
	go f.renew()
	log.Info("gateway fleet: joined", "nats", nc.ConnectedUrlRedacted(), "bucket", opts.Bucket, "ttl", opts.TTL)
	return f, nil
}

// openBucket creates the registrations bucket or adopts the fleet's.
func (f *Fleet) openBucket(ctx context.Context) error {
	js, err := jetstream.New(f.nc)
	if err != nil {
		return fmt.Errorf("natsroute: JetStream: %w", err)
	}
	replicas := f.opts.Replicas
	if replicas <= 0 {
		replicas = min(3, len(f.nc.Servers()))
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      f.opts.Bucket,
		Description: "Agent Hub gateway fleet: which instance holds each device id",
		History:     1,
		TTL:         f.opts.TTL,
		Storage:     jetstream.MemoryStorage,
		Replicas:    replicas,
	})
	if err != nil {
		return fmt.Errorf("natsroute: bucket %s (%d replicas): %w", f.opts.Bucket, replicas, err)
	}
	f.kv = kv
	return nil
}

// Name is this instance's name in the fleet.
func (f *Fleet) Name() string { return f.opts.Name }

// MaxPayload is the largest message NATS carries between instances.
func (f *Fleet) MaxPayload() int64 { return f.nc.MaxPayload() }

// Close leaves the fleet: it stops the lanes and the renewal, releases
// this instance's registrations (close the gateway first: its sockets'
// unregistrations release them one by one) and closes the connection.
func (f *Fleet) Close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	left := make([]*entry, 0, len(f.local))
	for id, e := range f.local {
		left = append(left, e)
		delete(f.local, id)
	}
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
	for _, e := range left {
		f.release(e)
	}
	if err := f.nc.Drain(); err != nil {
		f.nc.Close()
	}
	select {
	case <-f.gone:
	case <-time.After(5 * time.Second):
		f.nc.Close()
		<-f.gone
	}
}

func (f *Fleet) disconnected(err error) {
	f.mu.Lock()
	if f.downSince.IsZero() {
		f.downSince = time.Now()
	}
	closed := f.closed
	f.mu.Unlock()
	if !closed {
		f.log.Warn("gateway fleet: NATS disconnected", "err", err)
	}
}

func (f *Fleet) reconnected(url string) {
	f.mu.Lock()
	f.downSince = time.Time{}
	close(f.up)
	f.up = make(chan struct{})
	f.mu.Unlock()
	f.log.Info("gateway fleet: NATS reconnected", "url", url)
	select { // renew at once: the claims may have expired meanwhile
	case f.kick <- struct{}{}:
	default:
	}
}

// connected reports whether NATS is up, and if not, since when it is down
// and a channel closed when it is back.
func (f *Fleet) connected() (bool, time.Duration, <-chan struct{}) {
	if f.nc.IsConnected() {
		return true, 0, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var down time.Duration
	if !f.downSince.IsZero() {
		down = time.Since(f.downSince)
	}
	return false, down, f.up
}

// keyOf is a device id as a bucket key and a subject token (any printable
// id becomes [A-Za-z0-9_-]).
func keyOf(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

func (f *Fleet) subject(key string) string { return f.opts.Subject + ".dev." + key }

// Register implements gateway.Registry: the id is claimed in the bucket
// (ErrDeviceInUse when any instance holds it), then this instance
// subscribes to its subject. Without NATS nothing registers: the fleet
// could not tell whether the id is free.
func (f *Fleet) Register(ctx context.Context, c gateway.Conn) error {
	info := c.Info()
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return fmt.Errorf("%w: the gateway is stopping", gateway.ErrUnreachable)
	}
	if cur := f.local[info.DeviceID]; cur != nil {
		f.mu.Unlock()
		if cur.conn.ConnID() == c.ConnID() {
			return nil
		}
		return gateway.ErrDeviceInUse
	}
	e := &entry{conn: c, key: keyOf(info.DeviceID), seen: map[string]delivered{}}
	f.local[info.DeviceID] = e // reserved; not routed to before it is claimed
	f.mu.Unlock()
	err := f.claim(ctx, e, info)
	if err != nil {
		f.mu.Lock()
		if f.local[info.DeviceID] == e {
			delete(f.local, info.DeviceID)
		}
		f.mu.Unlock()
		return err
	}
	return nil
}

func (f *Fleet) claim(ctx context.Context, e *entry, info wire.DeviceInfo) error {
	if up, _, _ := f.connected(); !up {
		return fmt.Errorf("%w: NATS is not connected", gateway.ErrUnreachable)
	}
	val, err := json.Marshal(registration{DeviceID: info.DeviceID, DeviceType: info.DeviceType, Instance: f.opts.Name, Conn: e.conn.ConnID()})
	if err != nil {
		return err
	}
	e.val = val
	cctx, cancel := context.WithTimeout(ctx, f.opts.AttemptTimeout)
	defer cancel()
	rev, err := f.kv.Create(cctx, e.key, val)
	if err != nil {
		// The create may have been made and only its answer lost (a slow
		// or failing-over node): the claim is ours if it holds our value.
		if r, ok := f.ours(e); ok {
			rev, err = r, nil
		}
	}
	switch {
	case errors.Is(err, jetstream.ErrKeyExists):
		return gateway.ErrDeviceInUse
	case err != nil:
		return fmt.Errorf("%w: claim %s: %w", gateway.ErrUnreachable, info.DeviceID, err)
	}
	e.mu.Lock()
	e.rev = rev
	e.mu.Unlock()
	// Subscribed only once the claim is ours: a device refused as in use
	// never receives a message of the device that holds the id.
	sub, err := f.nc.Subscribe(f.subject(e.key), func(m *nats.Msg) { f.inbound(e, m) })
	if err != nil {
		f.unclaim(e)
		return fmt.Errorf("%w: subscribe %s: %w", gateway.ErrUnreachable, info.DeviceID, err)
	}
	e.mu.Lock()
	e.sub = sub
	e.mu.Unlock()
	return nil
}

// Unregister implements gateway.Registry.
func (f *Fleet) Unregister(_ context.Context, c gateway.Conn) {
	id := c.Info().DeviceID
	f.mu.Lock()
	e := f.local[id]
	if e == nil || e.conn.ConnID() != c.ConnID() {
		f.mu.Unlock()
		return
	}
	delete(f.local, id)
	f.mu.Unlock()
	f.release(e)
}

// release unsubscribes e and deletes its claim if it is still e's (while
// NATS is down the claim expires after the TTL instead).
func (f *Fleet) release(e *entry) {
	e.unsubscribe()
	if up, _, _ := f.connected(); up {
		f.unclaim(e)
	}
}

func (f *Fleet) unclaim(e *entry) {
	e.mu.Lock()
	rev := e.rev
	e.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), f.opts.AttemptTimeout)
	defer cancel()
	err := f.kv.Delete(ctx, e.key, jetstream.LastRevision(rev))
	if err != nil {
		if r, ok := f.ours(e); ok && r != rev { // a renewal whose answer was lost
			err = f.kv.Delete(ctx, e.key, jetstream.LastRevision(r))
		}
	}
	if err != nil {
		f.log.Debug("gateway fleet: release", "device", e.conn.Info().DeviceID, "err", err)
	}
}

// Devices implements gateway.Registry: every device of the fleet, or this
// instance's own while NATS cannot be reached.
func (f *Fleet) Devices(ctx context.Context) ([]wire.DeviceInfo, error) {
	if up, _, _ := f.connected(); up {
		devs, err := f.fleetDevices(ctx)
		if err == nil {
			return devs, nil
		}
		f.log.Warn("gateway fleet: list devices: answering with this instance's", "err", err)
	}
	f.mu.Lock()
	out := make([]wire.DeviceInfo, 0, len(f.local))
	for _, e := range f.local {
		if e.claimed() {
			out = append(out, e.conn.Info())
		}
	}
	f.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].DeviceID < out[j].DeviceID })
	return out, nil
}

func (f *Fleet) fleetDevices(ctx context.Context) ([]wire.DeviceInfo, error) {
	wctx, cancel := context.WithTimeout(ctx, f.opts.AttemptTimeout)
	defer cancel()
	w, err := f.kv.WatchAll(wctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, err
	}
	defer func() { _ = w.Stop() }()
	out := []wire.DeviceInfo{}
	for {
		select {
		case kve, ok := <-w.Updates():
			if !ok {
				return nil, errors.New("watch ended")
			}
			if kve == nil { // every current value was sent
				sort.Slice(out, func(i, j int) bool { return out[i].DeviceID < out[j].DeviceID })
				return out, nil
			}
			var r registration
			if err := json.Unmarshal(kve.Value(), &r); err == nil {
				out = append(out, wire.DeviceInfo{DeviceID: r.DeviceID, DeviceType: r.DeviceType})
			}
		case <-wctx.Done():
			return nil, wctx.Err()
		}
	}
}

// registered reports whether any instance holds id's key.
func (f *Fleet) registered(ctx context.Context, key string) (bool, error) {
	gctx, cancel := context.WithTimeout(ctx, f.opts.AttemptTimeout)
	defer cancel()
	_, err := f.kv.Get(gctx, key)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	}
	return false, err
}
