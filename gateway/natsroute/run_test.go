package natsroute

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"agenthub/gateway"
	"agenthub/gateway/natsroute/natstest"
	"agenthub/gateway/wire"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// documentedConfig is the nats-server configuration docs/gateway.md gives
// for a fleet, with its files, ports and key made real in dir: cluster
// keeps (or drops) the cluster block. It returns the config file, the
// client port and the gateways' nkey seed file.
func documentedConfig(t *testing.T, dir string, cluster bool) (conf string, port int, seed string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "gateway.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- fleet-nats-config -->\n```\n(.*?)```\n<!-- /fleet-nats-config -->").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/gateway.md has no fleet-nats-config block")
	}
	cfg := string(m[1])
	files, err := natstest.WriteTLS(dir)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := kp.PublicKey()
	raw, _ := kp.Seed()
	seed = filepath.Join(dir, "gateway.nk")
	if err := os.WriteFile(seed, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	cfg = regexp.MustCompile(`nkey: "U[A-Z0-9]+"`).ReplaceAllString(cfg, fmt.Sprintf("nkey: %q", pub))
	cfg = strings.NewReplacer(
		"/etc/nats/tls/server.pem", files.Cert, "/etc/nats/tls/server-key.pem", files.Key,
		"/etc/nats/tls/route.pem", files.Cert, "/etc/nats/tls/route-key.pem", files.Key,
		"/etc/nats/tls/ca.pem", files.CA, "/var/lib/nats", filepath.Join(dir, "js"),
		"0.0.0.0:4222", fmt.Sprintf("127.0.0.1:%d", port), "0.0.0.0:6222", "127.0.0.1:-1",
	).Replace(cfg)
	if !cluster {
		i := strings.Index(cfg, "\ncluster {")
		if i < 0 {
			t.Fatal("no cluster block in the documented config")
		}
		cfg = cfg[:i+1]
	}
	conf = filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return conf, port, seed
}

// TestDocumentedFleet: the nats-server configuration of docs/gateway.md
// parses as a whole (cluster with route TLS included), and a node run
// from it (without the cluster block, one node) serves a fleet: two
// gateways started as `agenthub gateway --nats tls://… --nats-nkey …
// --nats-ca … --websocket-only` join it and route between them; a client
// without the gateways' key is refused by NATS; each instance stops when
// its context ends and releases its devices.
func TestDocumentedFleet(t *testing.T) {
	dir := t.TempDir()
	conf, _, _ := documentedConfig(t, dir, true)
	if _, err := server.ProcessConfigFile(conf); err != nil {
		t.Fatalf("the documented config: %v", err)
	}
	conf, port, seed := documentedConfig(t, t.TempDir(), false)
	o, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	o.NoLog, o.NoSigs = true, true
	ns, err := server.NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	if !ns.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	url := fmt.Sprintf("tls://127.0.0.1:%d", port)
	ca := filepath.Join(filepath.Dir(conf), "ca.pem")
	if nc, err := nats.Connect(url, nats.RootCAs(ca)); err == nil {
		nc.Close()
		t.Fatal("NATS let in a client without the gateways' key")
	}

	urls := make([]string, 2)
	for i := range urls {
		var out strings.Builder
		cfg, err := gateway.ParseFlags([]string{"--listen", "127.0.0.1:0", "--websocket-only",
			"--nats", url, "--nats-nkey", seed, "--nats-ca", ca, "--nats-replicas", "1"}, &out, &out)
		if err != nil {
			t.Fatalf("flags: %v: %s", err, out.String())
		}
		urls[i] = runInstance(t, cfg)
	}
	hub := dial(t, urls[0], "hub-1", wire.TypeHub)
	phone := dial(t, urls[1], "phone-1", wire.TypeClient)
	hub.ready(t)
	phone.ready(t)
	sendN(t, phone, "hub-1", 0, 20)
	expectN(t, hub, 0, 20)
	sendN(t, hub, "phone-1", 0, 20)
	expectN(t, phone, 0, 20)
}

// runInstance runs Run with cfg until the test ends (then checks it
// returned cleanly) and returns the URL it printed.
func runInstance(t *testing.T, cfg gateway.Config) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Run(ctx, cfg, nil, pw, testLog(t))
		_ = pw.CloseWithError(io.EOF)
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	if err != nil {
		t.Fatalf("Run printed no URL: %v", err)
	}
	return strings.TrimPrefix(strings.TrimSpace(line), "gateway: ")
}
