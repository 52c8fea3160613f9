package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/gateway/client"
	"agenthub/gateway/client/clienttest"
	"agenthub/gateway/wire"
)

// proc is a process of the binary under test that the test may kill -9.
type proc struct {
	t      *testing.T
	cmd    *exec.Cmd
	exited chan error
	log    apptest.Buffer
	once   sync.Once
	name   string
}

// start runs bin with args and returns it with its stdout.
func start(t *testing.T, ctx context.Context, name, bin string, env []string, args ...string) (*proc, io.Reader) {
	t.Helper()
	p := &proc{t: t, cmd: exec.CommandContext(ctx, bin, args...), exited: make(chan error, 1), name: name}
	p.cmd.Env = append(apptest.Env(), env...)
	p.cmd.Stderr = &p.log
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(p.stop)
	return p, stdout
}

// kill ends it with SIGKILL (no clean shutdown) and waits.
func (p *proc) kill() {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.exited
		p.report()
	})
}

// stop interrupts it, waits (killing it after 10 s) and shows its log if
// the test failed.
func (p *proc) stop() {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		p.report()
	})
}

func (p *proc) report() {
	if p.t.Failed() {
		p.t.Logf("%s log:\n%s", p.name, p.log.String())
	}
}

// startGatewayProc runs `agenthub gateway --listen listen` (and extra
// flags) and returns it with the URL it printed.
func startGatewayProc(t *testing.T, ctx context.Context, bin, listen string, extra ...string) (*proc, string) {
	t.Helper()
	p, stdout := start(t, ctx, "gateway", bin, nil, append([]string{"gateway", "--listen", listen}, extra...)...)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "gateway: "); ok {
			go func() { _, _ = io.Copy(io.Discard, stdout) }()
			return p, url
		}
	}
	p.stop()
	t.Fatalf("the gateway exited without printing its URL: %s", p.log.String())
	return nil, ""
}

// startHubProc runs the headless hub on dataDir/workspace against the fake
// provider, connected to gatewayURL, and returns it with its dashboard.
func startHubProc(t *testing.T, ctx context.Context, bin, dataDir, workspace, providerURL, gatewayURL string, extra ...string) (*proc, dashboardInfo) {
	t.Helper()
	return startHubProcEnv(t, ctx, bin, dataDir, workspace, providerURL, gatewayURL, nil, extra...)
}

// startHubProcEnv is startHubProc with env added to the hub's environment.
func startHubProcEnv(t *testing.T, ctx context.Context, bin, dataDir, workspace, providerURL, gatewayURL string, env []string, extra ...string) (*proc, dashboardInfo) {
	t.Helper()
	p, stdout := start(t, ctx, "hub", bin, append([]string{"ANTHROPIC_BASE_URL=" + providerURL, "ANTHROPIC_API_KEY=test-key"}, env...),
		append([]string{"--headless", "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--workspace", workspace,
			"--model", "anthropic:" + model, "--gateway", gatewayURL}, extra...)...)
	return p, waitDashboard(t, stdout, dataDir)
}

// rpcLocal calls an RPC method on the hub's dashboard (POST /rpc) and
// decodes its payload into out.
func rpcLocal(t *testing.T, info dashboardInfo, method string, params, out any) {
	t.Helper()
	var resp struct {
		OK      bool            `json:"ok"`
		Payload json.RawMessage `json:"payload"`
		Error   *client.RPCError
	}
	newDashClient(t, info).http("POST", "/rpc", map[string]any{"type": "request", "requestId": "t", "method": method, "params": params}, &resp)
	if !resp.OK {
		t.Fatalf("%s: %v", method, resp.Error)
	}
	if out != nil {
		if err := json.Unmarshal(resp.Payload, out); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
}

// device is a client device written from the seeds' SDK protocol
// (gateway/client): it verifies with a hub by token and keeps what
// arrives.
type device struct {
	*client.Client
	t        *testing.T
	hubID    string
	token    string
	msgs     chan wire.RoutedMessage
	verified chan client.VerifyResult
}

// pairDevice mints a token on the hub (its user's side), connects a device
// that verifies with it and allows it as the hub's user does.
func pairDevice(t *testing.T, ctx context.Context, info dashboardInfo, gatewayURL, id string) *device {
	t.Helper()
	var pv struct {
		Token string `json:"token"`
		HubID string `json:"hubId"`
	}
	rpcLocal(t, info, "pairDevice", map[string]any{"rights": "full"}, &pv)
	d := connectDevice(t, gatewayURL, id, pv.HubID, pv.Token)
	awaitPending(t, ctx, info, id)
	rpcLocal(t, info, "answerDevice", map[string]any{"deviceId": id, "allow": true}, nil)
	d.awaitVerified(ctx)
	return d
}

// awaitPending waits until device id asks the hub's user to be allowed.
func awaitPending(t *testing.T, ctx context.Context, info dashboardInfo, id string) {
	t.Helper()
	for {
		var list struct {
			Pending []struct {
				DeviceID string `json:"deviceId"`
			} `json:"pending"`
		}
		rpcLocal(t, info, "listDevices", nil, &list)
		for _, p := range list.Pending {
			if p.DeviceID == id {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never asked to be allowed", id)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// connectDevice connects a device that verifies with hubID by token after
// every registration.
func connectDevice(t *testing.T, gatewayURL, id, hubID, token string) *device {
	t.Helper()
	d := &device{t: t, hubID: hubID, token: token, msgs: make(chan wire.RoutedMessage, 1<<16), verified: make(chan client.VerifyResult, 16)}
	d.Client = clienttest.Connect(t, client.Options{URL: gatewayURL, DeviceID: id, DeviceType: wire.TypeClient, HubID: hubID, Token: token,
		ReconnectDelay: 50 * time.Millisecond, ReconnectDelayMax: 500 * time.Millisecond, ConnectTimeout: 2 * time.Second},
		client.Callbacks{
			OnMessage:  func(m wire.RoutedMessage) { d.msgs <- m },
			OnVerified: func(r client.VerifyResult) { d.verified <- r },
		})
	return d
}

func (d *device) awaitVerified(ctx context.Context) {
	d.t.Helper()
	select {
	case <-d.verified:
	case <-ctx.Done():
		d.t.Fatalf("%s never verified", d.DeviceID())
	}
}

// call is one RPC to the hub, decoded into out.
func (d *device) call(ctx context.Context, method string, params, out any) error {
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	raw, err := d.Request(rctx, d.hubID, method, params)
	if err != nil {
		return err
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

func (d *device) must(ctx context.Context, method string, params, out any) {
	d.t.Helper()
	if err := d.call(ctx, method, params, out); err != nil {
		d.t.Fatalf("%s: %v", method, err)
	}
}

// subscribe opens a canonical preset:full subscription of sid after since
// ("" = live only) and returns its id.
func (d *device) subscribe(ctx context.Context, sid, since string) string {
	d.t.Helper()
	params := map[string]any{"agentId": sid, "dialect": "canonical", "filter": "preset:full"}
	if since != "" {
		params["since"] = since
	}
	var ack struct {
		Type           string `json:"type"`
		SubscriptionID string `json:"subscriptionId"`
	}
	d.must(ctx, "subscribe", params, &ack)
	if ack.Type != "subscribe_ack" || ack.SubscriptionID == "" {
		d.t.Fatalf("subscribe: %+v", ack)
	}
	return ack.SubscriptionID
}

// gwEvent is one canonical event a subscription delivered.
type gwEvent struct {
	Sub  string
	ID   string
	Type string
	Text string
}

// next returns the next event of subscription sub; hub_online and other
// subscriptions' frames are skipped (hubOnline reports the former).
func (d *device) next(ctx context.Context, sub string) (gwEvent, error) {
	for {
		select {
		case m := <-d.msgs:
			if m.Action != wire.ActionStream {
				if m.Action == wire.ActionHubOnline {
					return gwEvent{Type: wire.ActionHubOnline}, nil
				}
				continue
			}
			f, err := clienttest.DecodeFrame(m)
			if err != nil {
				return gwEvent{}, err
			}
			if f.Sub != sub || f.Type != "event" {
				continue
			}
			return gwEvent{Sub: sub, ID: f.ID, Type: f.EventType, Text: f.Text}, nil
		case <-ctx.Done():
			return gwEvent{}, errors.New("no frame before the deadline")
		}
	}
}

// until reads sub's events into got until one of type typ (inclusive).
func (d *device) until(ctx context.Context, sub, typ string, got *[]gwEvent) {
	d.t.Helper()
	for {
		ev, err := d.next(ctx, sub)
		if err != nil {
			d.t.Fatalf("waiting for %s: %v (got %d events)", typ, err, len(*got))
		}
		if ev.Type == wire.ActionHubOnline {
			continue
		}
		*got = append(*got, ev)
		if ev.Type == typ {
			return
		}
	}
}
