package dashboard_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"agenthub/app/apptest"
	"agenthub/ipc"
	"agenthub/ipc/dashboard"
	"agenthub/ipc/dialect"
	"agenthub/ipc/rpc/hubtest"
	"agenthub/store"

	"github.com/coder/websocket"
)

// guard bounds waits so a broken test fails instead of hanging; it never
// synchronises anything.
const guard = 20 * time.Second

type fixture struct {
	t    testing.TB
	srv  *dashboard.Server
	api  *dashboard.API
	bus  *ipc.Bus
	hub  *hubtest.Hub
	base string
	tok  string
	logs *apptest.Buffer // log output from concurrent handlers
	mu   sync.Mutex
	skew time.Duration
}

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	f.skew += d
	f.mu.Unlock()
}

func newFixture(t testing.TB, opts ipc.Options) *fixture {
	t.Helper()
	return newFixtureWith(t, opts, dashboard.APIOptions{}, dashboard.Options{})
}

// newFixtureWith is newFixture with API and server options (Bus, Hub, Now,
// Addr, Logger and Assets are the fixture's).
func newFixtureWith(t testing.TB, opts ipc.Options, apiOpts dashboard.APIOptions, srvOpts dashboard.Options) *fixture {
	t.Helper()
	logs := &apptest.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := &fixture{t: t, logs: logs}
	// Registered before the hub's cleanup, so it runs after the hub, the bus
	// and the store have closed.
	t.Cleanup(func() {
		if f.tok == "" {
			return // the fixture never started
		}
		if strings.Contains(logs.String(), f.tok) {
			t.Errorf("the dashboard token appears in the logs")
		}
		if strings.Contains(logs.String(), "atk_") {
			t.Errorf("an attach token appears in the logs")
		}
	})
	opts.Dialects = dialect.New()
	opts.Logger = log
	h := hubtest.NewBolt(t, opts)
	bus := h.Bus
	f.bus, f.hub = bus, h
	now := func() time.Time {
		f.mu.Lock()
		defer f.mu.Unlock()
		return time.Now().Add(f.skew)
	}
	srvOpts.Addr, srvOpts.Logger, srvOpts.Now = "127.0.0.1:0", log, now
	srvOpts.Assets = fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>Agent Hub</title>")}}
	srv, err := dashboard.Listen(srvOpts)
	if err != nil {
		t.Fatal(err)
	}
	f.srv, f.base, f.tok = srv, srv.BaseURL(), srv.Token()
	apiOpts.Bus, apiOpts.Hub = bus, h
	apiOpts.Now = now
	api, err := dashboard.MountAPI(srv, apiOpts)
	if err != nil {
		t.Fatal(err)
	}
	f.api = api
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		api.Close()
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return f
}

// do sends a request with the bearer token (unless hdr overrides it).
func (f *fixture) do(method, path, body string, hdr ...string) (*http.Response, []byte) {
	f.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, f.base+path, rd)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.tok)
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
			continue
		}
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return v
}

type apiErr struct {
	Error struct{ Code, Message string }
}

func (f *fixture) wantError(resp *http.Response, body []byte, status int, code string) {
	f.t.Helper()
	if resp.StatusCode != status {
		f.t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	if code != "" {
		if e := decode[apiErr](f.t, body); e.Error.Code != code || e.Error.Message == "" {
			f.t.Fatalf("error %s, want code %s", body, code)
		}
	}
}

func (f *fixture) session() string {
	f.t.Helper()
	resp, b := f.do("POST", "/sessions", `{"title":"t"}`)
	if resp.StatusCode != http.StatusCreated {
		f.t.Fatalf("create: %d %s", resp.StatusCode, b)
	}
	return decode[store.Session](f.t, b).ID
}

// attach returns a fresh ws_url for session id.
func (f *fixture) attach(id string) string {
	f.t.Helper()
	resp, b := f.do("GET", "/sessions/"+id, "")
	if resp.StatusCode != 200 {
		f.t.Fatalf("attach: %d %s", resp.StatusCode, b)
	}
	return decode[dashboard.AttachResponse](f.t, b).WSURL
}

// dial opens the stream with the bearer token and no Origin (a non-browser client).
func (f *fixture) dial(wsURL string, hdr ...string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{"Authorization": {"Bearer " + f.tok}}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			h.Del(hdr[i])
		} else {
			h.Set(hdr[i], hdr[i+1])
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	return websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: h})
}

func (f *fixture) mustDial(id string) *websocket.Conn {
	f.t.Helper()
	c, _, err := f.dial(f.attach(id))
	if err != nil {
		f.t.Fatal(err)
	}
	c.SetReadLimit(-1)
	f.t.Cleanup(func() { _ = c.CloseNow() })
	return c
}

func send(t testing.TB, c *websocket.Conn, frame string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
		t.Fatal(err)
	}
}

// frame is a decoded server frame.
type frame struct {
	Type      string          `json:"type"`
	Code      string          `json:"code"`
	Message   string          `json:"message"`
	Nonce     string          `json:"nonce"`
	RequestID string          `json:"requestId"`
	OK        bool            `json:"ok"`
	Payload   json.RawMessage `json:"payload"`
	Error     *struct{ Code string }
	Event     *struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"event"`
	ReplayEventCount int    `json:"replay_event_count"`
	SnapshotAt       string `json:"snapshot_at_event_id"`
	raw              []byte
}

func recv(t testing.TB, c *websocket.Conn) frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	typ, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if typ != websocket.MessageText {
		t.Fatalf("binary frame")
	}
	f := decode[frame](t, b)
	f.raw = b
	return f
}

// recvType skips frames until one of type typ.
func recvType(t *testing.T, c *websocket.Conn, typ string) frame {
	t.Helper()
	for {
		if f := recv(t, c); f.Type == typ {
			return f
		}
	}
}
