package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"agenthub/app/apptest"
	gwclient "agenthub/gateway/client"
	"agenthub/gateway/wire"

	sioc "github.com/zishang520/socket.io/clients/socket/v3"
	sios "github.com/zishang520/socket.io/servers/socket/v3"
	"github.com/zishang520/socket.io/v3/pkg/types"
)

// Through the gateway (issue 37): a second hub process started with
// --gateway, `agenthub gateway` on loopback, and reading clients that are
// gateway devices (gateway/client, the seed SDK's protocol) subscribed to
// the session's canonical stream. Beside it: the local port (the hub
// target of the main runs) and floor (d), a bare Socket.io push — the
// relay floor writing each delta as a Socket.io event — so the cost of
// Socket.io itself, of the hub → gateway → device hop and of verifying
// and routing are apart.

var gatewayLine = regexp.MustCompile(`^gateway: (http://127\.0\.0\.1:\d+)$`)

// gwTarget is Agent Hub read through a gateway.
type gwTarget struct {
	hub     *hubTarget
	gw      *proc // nil: the gateways are someone else's (the fleet's)
	url     string
	hubID   string
	devices []*gwDevice // paired once, reused by every run
	// label names the target (default: through the gateway); prefix the
	// devices' ids (default bench-); spread, when set, are the gateways
	// the devices connect to in turn instead of url; buffer each device's
	// frame queue (default 1<<16).
	label, prefix string
	spread        []string
	buffer        int
}

// actionDisconnected marks, among a device's frames, where its connection
// to the gateway dropped (the bench's own, never on the wire).
const actionDisconnected = "bench:disconnected"

// gwDevice is one paired reading device. It reads as the protocol tells a
// device to (docs/protocol.md, "Streams and cursors"): it subscribes with a
// snapshot, keeps the last event id it processed as its cursor, and when
// the hub ends its subscription (stream_end, e.g. client_too_slow) or its
// connection changes (which ends every subscription: what was in flight on
// the old connection is lost) it subscribes again from that cursor, the
// latter once it has verified again.
type gwDevice struct {
	c        *gwclient.Client
	frames   chan wire.RoutedMessage
	verified chan struct{} // a verify with the hub succeeded (the first, or after a reconnect)
	hubID    string
	session  string
	sub      string
	cursor   string // the last event id processed (the snapshot's, before any event)
	resubs   int    // subscriptions the hub ended that the device resumed
}

func startGatewayTarget(ctx context.Context, bin, upstream, root string, prov *provider) (*gwTarget, error) {
	gw, m, err := startProc(ctx, gatewayLine, apptest.Env(), bin, "gateway", "--listen", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hub, err := startHubWith(ctx, bin, upstream, root, prov, "--gateway", m[1])
	if err != nil {
		gw.stop()
		return nil, err
	}
	return &gwTarget{hub: hub, gw: gw, url: m[1]}, nil
}

func (g *gwTarget) name() string {
	if g.label != "" {
		return g.label
	}
	return "Agent Hub through the gateway (loopback)"
}
func (g *gwTarget) pid() int { return g.hub.pid() }
func (g *gwTarget) stop() {
	g.closeDevices()
	g.hub.stop()
	if g.gw != nil {
		g.gw.stop()
	}
}

// resumed is how many subscriptions the hub ended and the devices resumed
// from their cursors in the last run.
func (g *gwTarget) resumed() int {
	n := 0
	for _, d := range g.devices {
		n += d.resubs
	}
	return n
}

func (g *gwTarget) closeDevices() {
	for _, d := range g.devices {
		d.c.Close()
	}
}

// rpc calls a hub method on its dashboard (the hub's own user).
func (g *gwTarget) rpc(ctx context.Context, method string, params, out any) error {
	var resp struct {
		OK      bool            `json:"ok"`
		Payload json.RawMessage `json:"payload"`
		Error   json.RawMessage `json:"error"`
	}
	if err := g.hub.call(ctx, http.MethodPost, "/rpc", map[string]any{"type": "request", "requestId": "b", "method": method, "params": params}, &resp); err != nil {
		return err
	}
	if !resp.OK {
		return fmt.Errorf("%s: %s", method, resp.Error)
	}
	if out != nil {
		return json.Unmarshal(resp.Payload, out)
	}
	return nil
}

// pair adds one device: a token minted on the hub, a verify through the
// gateway, and the hub's user allowing it.
func (g *gwTarget) pair(ctx context.Context) error {
	var pv struct {
		Token string `json:"token"`
		HubID string `json:"hubId"`
	}
	if err := g.rpc(ctx, "pairDevice", map[string]any{}, &pv); err != nil {
		return err
	}
	g.hubID = pv.HubID
	buffer, prefix, addr := g.buffer, g.prefix, g.url
	if buffer == 0 {
		buffer = 1 << 16
	}
	if prefix == "" {
		prefix = "bench-"
	}
	if len(g.spread) > 0 {
		addr = g.spread[len(g.devices)%len(g.spread)]
	}
	verified := make(chan struct{}, 1)
	d := &gwDevice{frames: make(chan wire.RoutedMessage, buffer), verified: verified}
	id := fmt.Sprintf("%s%03d", prefix, len(g.devices))
	c, err := gwclient.New(gwclient.Options{URL: addr, DeviceID: id, DeviceType: wire.TypeClient, HubID: pv.HubID, Token: pv.Token,
		ReconnectDelay: 50 * time.Millisecond, ConnectTimeout: 2 * time.Second},
		gwclient.Callbacks{
			OnMessage: func(m wire.RoutedMessage) { d.frames <- m },
			// In order with the messages: every frame of the old
			// connection is before it, every frame of the next after.
			OnStateChange: func(st gwclient.State) {
				if st == gwclient.Disconnected {
					d.frames <- wire.RoutedMessage{Action: actionDisconnected}
				}
			},
			OnVerified: func(gwclient.VerifyResult) {
				select {
				case verified <- struct{}{}:
				default:
				}
			},
		})
	if err != nil {
		return err
	}
	d.c = c
	c.Connect()
	for {
		var list struct {
			Pending []struct {
				DeviceID string `json:"deviceId"`
			} `json:"pending"`
		}
		if err := g.rpc(ctx, "listDevices", nil, &list); err != nil {
			return err
		}
		if len(list.Pending) > 0 && list.Pending[0].DeviceID == id {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	if err := g.rpc(ctx, "answerDevice", map[string]any{"deviceId": id, "allow": true}, nil); err != nil {
		return err
	}
	select {
	case <-verified:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.devices = append(g.devices, d)
	return nil
}

// connect pairs devices up to n, starts a fresh session and subscribes n
// of them (canonical, preset:chat, live only).
func (g *gwTarget) connect(ctx context.Context, n int) ([]*client, error) {
	for len(g.devices) < n {
		if err := g.pair(ctx); err != nil {
			return nil, fmt.Errorf("pair device %d: %w", len(g.devices), err)
		}
	}
	var s struct {
		ID string `json:"session_id"`
	}
	if err := g.hub.call(ctx, http.MethodPost, "/sessions", map[string]string{"title": "bench"}, &s); err != nil {
		return nil, err
	}
	g.hub.session = s.ID
	cls := make([]*client, 0, n)
	for _, d := range g.devices[:n] {
		d.hubID, d.session, d.cursor, d.resubs = g.hubID, s.ID, "", 0
		if err := d.subscribe(ctx); err != nil {
			return nil, err
		}
		cls = append(cls, &client{frames: &frameSource{next: d.next}})
	}
	return cls, nil
}

// subscribe opens the device's subscription to its session (canonical,
// preset:chat): from its cursor when it has one, else with a snapshot,
// whose snapshot_at_event_id becomes the cursor.
func (d *gwDevice) subscribe(ctx context.Context) error {
	params := map[string]any{"agentId": d.session, "filter": "preset:chat", "dialect": "canonical"}
	if d.cursor != "" {
		params["since"] = d.cursor
	} else {
		params["snapshot"] = true
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	raw, err := d.c.Request(rctx, d.hubID, "subscribe", params)
	if err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	var ack struct {
		SubscriptionID string `json:"subscriptionId"`
	}
	if err := json.Unmarshal(raw, &ack); err != nil {
		return fmt.Errorf("subscribe's answer: %w", err)
	}
	d.sub = ack.SubscriptionID
	return nil
}

// unsubscribe ends the device's subscription (best effort: a closed or
// changed connection already ended it).
func (d *gwDevice) unsubscribe(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, _ = d.c.Request(ctx, d.hubID, "unsubscribe", map[string]any{"subscriptionId": d.sub})
}

// next is the payload of the device's next event frame of its
// subscription. It moves the cursor past every frame it hands on, and
// resubscribes from the cursor when the hub ends the subscription.
func (d *gwDevice) next(ctx context.Context) ([]byte, error) {
	for {
		select {
		case m := <-d.frames:
			var f struct {
				SubscriptionID string `json:"subscriptionId"`
				SnapshotAt     string `json:"snapshot_at_event_id"`
				Code           string `json:"code"`
				Event          *struct {
					ID string `json:"id"`
				} `json:"event"`
			}
			if m.Action == actionDisconnected {
				if d.sub == "" {
					continue
				}
				// The connection that dropped may be the one before the
				// subscription (a marker can be stale): end the
				// subscription in case it still runs, or its frames would
				// come twice (best effort: a changed connection ended it).
				d.unsubscribe(ctx)
				d.sub, d.resubs = "", d.resubs+1
				// Once verified on a next connection (which may drop too;
				// two drops can share one verified signal, so a refused
				// subscribe also tries again shortly).
				for {
					if err := d.subscribe(ctx); err == nil {
						break
					}
					select {
					case <-d.verified:
					case <-time.After(100 * time.Millisecond):
					case <-ctx.Done():
						return nil, fmt.Errorf("resubscribing after a reconnect: %w", ctx.Err())
					}
				}
				continue
			}
			if json.Unmarshal(m.Payload, &f) != nil || f.SubscriptionID != d.sub || d.sub == "" {
				continue // another subscription's, or one that already ended
			}
			switch m.Action {
			case wire.ActionSnapshot:
				d.cursor = f.SnapshotAt
			case wire.ActionStreamEnd:
				d.sub, d.resubs = "", d.resubs+1
				if err := d.subscribe(ctx); err != nil {
					return nil, fmt.Errorf("resubscribing after stream_end %s: %w", f.Code, err)
				}
			case wire.ActionStream:
				if f.Event != nil && f.Event.ID != "" {
					d.cursor = f.Event.ID
				}
				return m.Payload, nil
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (g *gwTarget) fire(ctx context.Context, b burst) error { return g.hub.fire(ctx, b) }

func (g *gwTarget) release(cls []*client) {
	for _, d := range g.devices {
		if d.sub != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _ = d.c.Request(ctx, g.hubID, "unsubscribe", map[string]any{"subscriptionId": d.sub})
			cancel()
			d.sub = ""
		}
	}
}

// frameSource feeds a client frames that arrive by another transport than
// its WebSocket (a gateway device, a Socket.io socket).
type frameSource struct {
	next func(ctx context.Context) ([]byte, error)
}

// ---- floor (d): bare Socket.io ----

// sioFloor is floor (b) writing each frame as a Socket.io event to every
// connected socket: what Socket.io costs on its own.
type sioFloor struct {
	io *sios.Server
}

func newSioFloor() *sioFloor {
	o := sios.DefaultServerOptions()
	o.SetPath(wire.Path)
	o.SetServeClient(false)
	return &sioFloor{io: sios.NewServer(nil, o)}
}

func (s *sioFloor) handler() http.Handler { return s.io.ServeHandler(nil) }

func (s *sioFloor) clients() int { return s.io.Sockets().Sockets().Len() }

func (s *sioFloor) broadcast(b []byte) { s.io.Emit(wire.EventReceive, json.RawMessage(b)) }

func (s *sioFloor) reset() { s.io.DisconnectSockets(true) }

// connectSio opens n Socket.io clients to the floor at addr.
func connectSio(ctx context.Context, addr string, n int) ([]*client, error) {
	var cls []*client
	for range n {
		frames := make(chan []byte, 1<<16)
		for try := 0; ; try++ {
			o := sioc.DefaultOptions()
			o.SetPath(wire.Path)
			o.SetTransports(types.NewSet(sioc.WebSocket))
			o.SetReconnection(false)
			o.SetAutoConnect(false)
			o.SetCloseOnBeforeunload(false)
			o.SetTimeout(2 * time.Second)
			o.SetQuery(url.Values{"n": {fmt.Sprint(len(cls))}})
			mgr := sioc.NewManager("http://"+addr, o)
			sock := mgr.Socket("/", o)
			up := make(chan bool, 2)
			_ = sock.On("connect", func(...any) { up <- true })
			_ = sock.On("connect_error", func(...any) { up <- false })
			_ = sock.On(wire.EventReceive, func(args ...any) {
				if len(args) > 0 {
					b, _ := json.Marshal(args[0])
					frames <- b
				}
			})
			// The manager first, then the socket (see gateway/client: the
			// library's Socket.Connect can send CONNECT twice otherwise).
			_ = mgr.On("open", func(...any) { go sock.Connect() })
			mgr.Open(func(err error) {
				if err != nil {
					up <- false
				}
			})
			ok := false
			select {
			case ok = <-up:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			if ok {
				s := sock
				cls = append(cls, &client{frames: &frameSource{next: func(ctx context.Context) ([]byte, error) {
					select {
					case b := <-frames:
						return b, nil
					case <-ctx.Done():
						return nil, ctx.Err()
					}
				}}, closeFn: func() { s.Disconnect() }})
				break
			}
			sock.Disconnect()
			if try > 10 {
				return nil, fmt.Errorf("socket.io floor: cannot connect")
			}
		}
	}
	return cls, nil
}

// startHubWith is startHub with extra flags.
func startHubWith(ctx context.Context, bin, upstream, root string, prov *provider, extra ...string) (*hubTarget, error) {
	data, ws := filepath.Join(root, "data"), filepath.Join(root, "ws")
	for _, d := range []string{data, ws} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	env := append(apptest.Env(), "ANTHROPIC_BASE_URL="+upstream, "ANTHROPIC_API_KEY=bench-key")
	args := append([]string{"--headless", "--listen", "127.0.0.1:0", "--data-dir", data, "--workspace", ws, "--model", "anthropic:claude-sonnet-4-6"}, extra...)
	p, m, err := startProc(ctx, dashboardLine, env, bin, args...)
	if err != nil {
		return nil, err
	}
	return &hubTarget{proc: p, base: m[1], token: m[2], prov: prov, dataDir: data}, nil
}
