package gatewaylink

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"agenthub/gateway/client"
	"agenthub/gateway/wire"
	"agenthub/ipc"
	"agenthub/ipc/devices"
	"agenthub/ipc/rpc"
)

// Bounds of the link.
const (
	// maxInFlight bounds requests being served at once, all devices together.
	maxInFlight = 256
	// trustRecheck is how often verified devices are checked against the
	// trust file (a revocation by `agenthub devices` in another process).
	trustRecheck = 2 * time.Second
)

// Methods the link itself answers.
const (
	MethodVerify      = "verify"
	MethodSubscribe   = "subscribe"
	MethodUnsubscribe = "unsubscribe"
	MethodGetHubInfo  = "getHubInfo"
)

// link is one connection of the hub to a gateway.
type link struct {
	m     *Manager
	c     *client.Client
	hubID string
	url   string
	ctx   context.Context
	stop  context.CancelFunc
	slots chan struct{}
	wg    sync.WaitGroup // request handlers, streams and the trust ticker

	mu       sync.Mutex
	sessions map[string]*session // verified devices by id
	closed   bool                // no goroutine starts once set (spawn)
	unbound  bool                // a verify came without fromConn (warned once)
	state    client.State
	lastErr  string
	nextSub  uint64
}

// session is a verified device on its current gateway connection.
type session struct {
	device string
	conn   string // the gateway's fromConn at verify ("" from a gateway that sets none)
	rights devices.Rights
	subs   map[string]*stream
}

func startLink(m *Manager, url, hubID string) (*link, error) {
	ctx, cancel := context.WithCancel(context.Background())
	l := &link{m: m, hubID: hubID, url: url, ctx: ctx, stop: cancel, slots: make(chan struct{}, maxInFlight),
		sessions: map[string]*session{}, state: client.Disconnected}
	opts := m.opts.Client
	opts.URL, opts.DeviceID, opts.DeviceType = url, hubID, wire.TypeHub
	opts.HubID, opts.Token, opts.NoReconnect = "", "", false
	opts.TLS = m.opts.TLS
	opts.Logger = m.log
	c, err := client.New(opts, client.Callbacks{
		OnStateChange: l.stateChanged,
		OnMessage:     l.receive,
		OnError: func(err error) {
			l.mu.Lock()
			l.lastErr = err.Error()
			l.mu.Unlock()
		},
		OnSendError: func(e wire.SendError) {
			m.log.Debug("gateway: send_error", "code", e.Code, "message_id", e.MessageID, "error", e.Error)
		},
	})
	if err != nil {
		cancel()
		return nil, err
	}
	l.c = c
	c.Connect()
	l.spawn(l.recheckTrust)
	return l, nil
}

// close disconnects and waits for everything the link started.
func (l *link) close() {
	l.stop()
	l.c.Close()
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.dropAll()
	l.wg.Wait()
}

// spawn runs f on a goroutine the link owns (close waits for it), unless
// the link is closing.
func (l *link) spawn(f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		f()
	}()
	return true
}

func (l *link) status() (string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.state == client.Registered {
		return string(l.state), ""
	}
	return string(l.state), l.lastErr
}

// stateChanged follows the connection: a lost connection ends every
// session and stream (devices verify and resubscribe from their cursors);
// a new registration tells the confirmed devices online that the hub is back.
func (l *link) stateChanged(s client.State) {
	l.mu.Lock()
	l.state = s
	if s == client.Registered {
		l.lastErr = ""
	}
	l.mu.Unlock()
	switch s {
	case client.Disconnected:
		l.dropAll()
	case client.Registered:
		l.m.log.Info("gateway: registered", "url", l.url, "hub_id", l.hubID)
		l.spawn(l.announce)
	}
}

// announce sends hub_online to every confirmed device the gateway lists.
func (l *link) announce() {
	ctx, cancel := context.WithTimeout(l.ctx, 10*time.Second)
	defer cancel()
	online, err := l.c.ListDevices(ctx)
	if err != nil {
		l.m.log.Debug("gateway: list devices", "err", err)
		return
	}
	confirmed, err := l.m.opts.Devices.Devices()
	if err != nil {
		l.m.log.Warn("gateway: read trusted devices", "err", err)
		return
	}
	known := map[string]bool{}
	for _, d := range confirmed {
		known[d.ID] = true
	}
	for _, d := range online {
		if known[d.DeviceID] {
			_, _ = l.c.Send(d.DeviceID, wire.ActionHubOnline, map[string]string{"hubId": l.hubID})
		}
	}
}

// receive takes one message from the gateway. Requests are served on their
// own goroutines (a verify may wait minutes for the user); anything else
// from a device is refused unless it verified, and otherwise ignored.
func (l *link) receive(m wire.RoutedMessage) {
	if m.Action != wire.ActionRequest {
		if !l.verified(m) {
			l.reply(m.From, "error", map[string]string{"code": wire.CodeUnauthorized,
				"message": "Device not verified. Verify with this hub first.", "messageId": m.ID})
		}
		return
	}
	var req struct {
		RequestID string          `json:"requestId"`
		Method    string          `json:"method"`
		Params    json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(m.Payload, &req); err != nil || req.RequestID == "" || req.Method == "" {
		l.respond(m.From, rpc.Response{RequestID: req.RequestID, Err: rpc.Errorf(rpc.CodeInvalidParams, "a request payload is {requestId, method, params}")})
		return
	}
	select {
	case l.slots <- struct{}{}:
	default:
		l.respond(m.From, rpc.Response{RequestID: req.RequestID, Err: rpc.Errorf(rpc.CodeRPCError, "the hub is busy: %d requests in flight", maxInFlight)})
		return
	}
	if !l.spawn(func() {
		defer func() { <-l.slots }()
		resp := l.serve(m, rpc.Request{Type: rpc.TypeRequest, RequestID: req.RequestID, Method: req.Method, Params: req.Params})
		if _, done := resp.Payload.(answered); done {
			return
		}
		resp.RequestID = req.RequestID
		l.respond(m.From, resp)
	}) {
		<-l.slots
	}
}

// serve answers one request: verify; or, for a verified device whose rights
// allow the method, the link's own methods and the hub's RPC.
func (l *link) serve(m wire.RoutedMessage, req rpc.Request) rpc.Response {
	if req.Method == MethodVerify {
		return l.verify(m, req.Params)
	}
	s := l.session(m)
	if s == nil {
		return rpc.Response{Err: rpc.Errorf(wire.CodeUnauthorized, "Device not verified")}
	}
	// The trust file is the authority: a device revoked or changed by
	// another process is caught here.
	d, ok, err := l.m.opts.Devices.Lookup(s.device)
	if err != nil {
		return rpc.Response{Err: rpc.Errorf(rpc.CodeRPCError, "reading trusted devices: %v", err)}
	}
	if !ok {
		l.forget(s.device)
		return rpc.Response{Err: rpc.Errorf(wire.CodeUnauthorized, "Device not authorized")}
	}
	if err := allowed(d.Rights, req.Method); err != nil {
		return rpc.Response{Err: err}
	}
	ctx := context.WithValue(ipc.WithClient(l.ctx, "gateway:"+s.device), requestIDKey{}, req.RequestID)
	switch req.Method {
	case MethodSubscribe:
		return l.subscribe(ctx, m, s, req.Params)
	case MethodUnsubscribe:
		return l.unsubscribe(m.From, req.Params)
	case MethodGetHubInfo:
		return rpc.Response{OK: true, Payload: l.hubInfo(ctx, d.Rights)}
	}
	return l.m.opts.RPC.CallRouted(ctx, req)
}

// verifyParams is verify's params (the SDK sends {token, meta}).
type verifyParams struct {
	Token string            `json:"token"`
	Meta  map[string]string `json:"meta"`
}

// verifyResult is verify's answer (the SDK's VerifyResult plus rights).
type verifyResult struct {
	HubID       string         `json:"hubId"`
	AgentID     string         `json:"agentId"`
	IsNewDevice bool           `json:"isNewDevice"`
	Rights      devices.Rights `json:"rights"`
}

// verify: a confirmed device presents the token it paired with; a new
// device presents a pairing token and waits for the hub's user. Either
// way the verification holds for the device's current gateway connection.
func (l *link) verify(m wire.RoutedMessage, raw json.RawMessage) rpc.Response {
	var p verifyParams
	if raw != nil {
		if err := json.Unmarshal(raw, &p); err != nil {
			return rpc.Response{Err: rpc.Errorf(rpc.CodeInvalidParams, "verify params are {token, meta}: %v", err)}
		}
	}
	p.Meta = boundedMeta(p.Meta)
	d, err := l.m.opts.Devices.Authenticate(m.From, p.Token)
	switch {
	case err == nil:
		l.admit(m, d.Rights)
		return rpc.Response{OK: true, Payload: verifyResult{HubID: l.hubID, Rights: d.Rights}}
	case errors.Is(err, devices.ErrBadToken):
		return rpc.Response{Err: rpc.Errorf(wire.CodeUnauthorized, "Device not authorized")}
	case !errors.Is(err, devices.ErrUnknownDevice):
		return rpc.Response{Err: rpc.Errorf(rpc.CodeRPCError, "reading trusted devices: %v", err)}
	}
	if p.Token == "" {
		return rpc.Response{Err: rpc.Errorf(wire.CodeUnauthorized, "Device not authorized")}
	}
	pairing, err := l.m.opts.Devices.Redeemable(p.Token)
	if err != nil {
		return rpc.Response{Err: rpc.Errorf(wire.CodeUnauthorized, "Invalid or expired token")}
	}
	ok, rights, err := l.m.await(m.From, p.Token, pairing, p.Meta, l.ctx.Done())
	switch {
	case errors.Is(err, devices.ErrBadToken):
		return rpc.Response{Err: rpc.Errorf(wire.CodeUnauthorized, "Invalid or expired token")}
	case err != nil:
		return rpc.Response{Err: rpc.Errorf(wire.CodeRejected, "%v", err)}
	case !ok:
		return rpc.Response{Err: rpc.Errorf(wire.CodeRejected, "Connection rejected by the hub's user")}
	}
	l.admit(m, rights)
	return rpc.Response{OK: true, Payload: verifyResult{HubID: l.hubID, IsNewDevice: true, Rights: rights}}
}

// admit records a verified device on the connection the message came from,
// ending what an earlier connection of it had open.
func (l *link) admit(m wire.RoutedMessage, rights devices.Rights) {
	l.mu.Lock()
	var old []*stream
	if s := l.sessions[m.From]; s != nil {
		old = takeStreams(s)
	}
	l.sessions[m.From] = &session{device: m.From, conn: m.FromConn, rights: rights, subs: map[string]*stream{}}
	warn := m.FromConn == "" && !l.unbound
	l.unbound = l.unbound || m.FromConn == ""
	l.mu.Unlock()
	closeStreams(old)
	if warn {
		l.m.log.Warn("gateway: this gateway does not bind messages to connections (not an Agent Hub gateway): a device's session ends only when the gateway no longer lists it, checked every few seconds", "url", l.url)
	}
}

// session returns the device's session if m comes from the connection it
// verified on.
func (l *link) session(m wire.RoutedMessage) *session {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.sessions[m.From]
	if s == nil || s.conn != m.FromConn {
		return nil
	}
	return s
}

func (l *link) verified(m wire.RoutedMessage) bool { return l.session(m) != nil }

// forget ends a device's session and streams (revoked).
func (l *link) forget(device string) {
	l.mu.Lock()
	var sts []*stream
	if s := l.sessions[device]; s != nil {
		sts = takeStreams(s)
	}
	delete(l.sessions, device)
	l.mu.Unlock()
	closeStreams(sts)
}

func (l *link) setRights(device string, rights devices.Rights) {
	l.mu.Lock()
	if s := l.sessions[device]; s != nil {
		s.rights = rights
	}
	l.mu.Unlock()
}

// dropAll ends every session (the connection is gone).
func (l *link) dropAll() {
	l.mu.Lock()
	var sts []*stream
	for _, s := range l.sessions {
		sts = append(sts, takeStreams(s)...)
	}
	l.sessions = map[string]*session{}
	l.mu.Unlock()
	closeStreams(sts)
}

// recheckTrust ends the sessions of devices no longer in the trust file,
// and those checkPresence finds gone.
func (l *link) recheckTrust() {
	t := time.NewTicker(trustRecheck)
	defer t.Stop()
	for {
		select {
		case <-l.ctx.Done():
			return
		case <-t.C:
		}
		l.mu.Lock()
		ids := make([]string, 0, len(l.sessions))
		for id := range l.sessions {
			ids = append(ids, id)
		}
		l.mu.Unlock()
		for _, id := range ids {
			if _, ok, err := l.m.opts.Devices.Lookup(id); err == nil && !ok {
				l.m.log.Info("gateway: device no longer trusted; its session ends", "device", id)
				l.forget(id)
			}
		}
		l.checkPresence()
	}
}

// checkPresence ends the sessions verified without a connection — behind a
// gateway that sets no fromConn (not Agent Hub's: multica's, say) — whose
// device the gateway no longer lists. Such a gateway never says that a
// device id changed hands, so whoever registers a departed device's id
// would ride its session; this narrows that to the time between two
// checks (Agent Hub's gateway stamps every message with the sender's
// connection, which closes it: docs/gateway.md, Limits).
func (l *link) checkPresence() {
	l.mu.Lock()
	var unbound []string
	for id, s := range l.sessions {
		if s.conn == "" {
			unbound = append(unbound, id)
		}
	}
	l.mu.Unlock()
	if len(unbound) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(l.ctx, trustRecheck)
	defer cancel()
	listed, err := l.c.ListDevices(ctx)
	if err != nil {
		l.m.log.Debug("gateway: list-devices for the presence check", "err", err)
		return
	}
	present := make(map[string]bool, len(listed))
	for _, d := range listed {
		present[d.DeviceID] = true
	}
	for _, id := range unbound {
		if !present[id] {
			l.m.log.Info("gateway: device left the gateway; its session ends", "device", id)
			l.forget(id)
		}
	}
}

// hubInfo is getHubInfo's answer (multica's GetHubInfoResult plus rights).
func (l *link) hubInfo(ctx context.Context, rights devices.Rights) map[string]any {
	info := map[string]any{"hubId": l.hubID, "url": l.url, "connectionState": string(client.Registered), "rights": rights}
	resp := l.m.opts.RPC.Call(ctx, rpc.Request{Type: rpc.TypeRequest, RequestID: "hubinfo", Method: rpc.MethodListSessions})
	if v, ok := resp.Payload.([]any); ok {
		info["agentCount"] = len(v)
	} else if b, err := json.Marshal(resp.Payload); err == nil && resp.OK {
		var list []json.RawMessage
		if json.Unmarshal(b, &list) == nil {
			info["agentCount"] = len(list)
		}
	}
	return info
}

// respond sends a response to device to.
func (l *link) respond(to string, resp rpc.Response) {
	l.reply(to, wire.ActionResponse, rpc.RoutedPayload(resp, l.m.log))
}

func (l *link) reply(to, action string, payload any) {
	if _, err := l.c.Send(to, action, payload); err != nil {
		l.m.log.Debug("gateway: reply not sent", "to", to, "action", action, "err", err)
	}
}

// boundedMeta keeps at most 8 meta fields of at most 256 bytes each (they
// are shown to the user and stored).
func boundedMeta(meta map[string]string) map[string]string {
	if len(meta) == 0 {
		return nil
	}
	out := map[string]string{}
	for k, v := range meta {
		if len(out) == 8 {
			break
		}
		if len(k) > 64 {
			continue
		}
		if len(v) > 256 {
			v = strings.ToValidUTF8(v[:256], "")
		}
		out[k] = v
	}
	return out
}

// errRights builds the FORBIDDEN answer.
func errRights(method string, rights devices.Rights) *rpc.Error {
	return rpc.Errorf(wire.CodeForbidden, "%s is not allowed to a %s device", method, rights)
}
