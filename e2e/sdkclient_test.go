package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/llm/llmtest"
)

// TestGatewaySDKProtocolClient drives Agent Hub through the gateway with a
// client written from multica's published SDK protocol on the npm
// socket.io-client (sdkclient.e2e.mjs) — not with gateway/client, which the
// hub's own link shares — so a misreading of the protocol common to both
// Go sides cannot pass unseen. The gateway serves TLS itself
// (--tls-cert/--tls-key, a certificate made here); the hub trusts it
// through SSL_CERT_FILE and the Node client through NODE_EXTRA_CA_CERTS, as
// docs/gateway.md tells a user with a private CA to do.
func TestGatewaySDKProtocolClient(t *testing.T) {
	root, node, ctx := nodeTest(t, "socket.io-client", 2*time.Minute)
	srv := llmtest.NewServer(t)
	srv.AnswerTitles("SDK protocol")
	srv.Enqueue(llmtest.NewAnthropicStream(model, llmtest.AnthropicUsage{Input: 100, Output: 10}).BeginText().
		TextDelta("Hello ").TextDelta("from the ").TextDelta("SDK's side.").EndBlock().Finish("end_turn", 10).Response())
	certFile, keyFile := selfSignedCert(t)
	bin := headlessBin(t, ctx, root)
	_, gwURL := startGatewayProc(t, ctx, bin, "127.0.0.1:0", "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(gwURL, "https://") {
		t.Fatalf("a gateway with --tls-cert printed %q", gwURL)
	}
	dataDir, ws := apptest.Dirs(t)
	_, info := startHubProcEnv(t, ctx, bin, dataDir, ws, srv.URL, gwURL, []string{"SSL_CERT_FILE=" + certFile})
	// The SDK sends its verify once, right after it registered: the hub
	// must be at the gateway by then (a verify to a hub not yet there is a
	// send_error the SDK's request does not hear).
	awaitHubRegistered(t, ctx, info)
	var pv struct {
		Token string `json:"token"`
		HubID string `json:"hubId"`
	}
	rpcLocal(t, info, "pairDevice", map[string]any{"rights": "full"}, &pv)
	t.Setenv("E2E_GATEWAY", gwURL)
	t.Setenv("E2E_HUB_ID", pv.HubID)
	t.Setenv("E2E_TOKEN", pv.Token)
	t.Setenv("NODE_EXTRA_CA_CERTS", certFile)
	allow := func(id string) func() string {
		return func() string {
			awaitPending(t, ctx, info, id)
			rpcLocal(t, info, "answerDevice", map[string]any{"deviceId": id, "allow": true}, nil)
			return "allowed"
		}
	}
	runScenarioWith(t, ctx, root, node, "sdkclient.e2e.mjs", dashboardInfo{}, nil, actions{
		"allow sdk-laptop": allow("sdk-laptop"),
		// The read-only device is allowed from a terminal, as on a server hub.
		"allow sdk-phone": func() string {
			awaitPending(t, ctx, info, "sdk-phone")
			out, err := exec.CommandContext(ctx, bin, "devices", "allow", "sdk-phone", "--data-dir", dataDir).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "allowed sdk-phone") {
				t.Errorf("agenthub devices allow: %v %s", err, out)
			}
			return "allowed"
		},
		"pair read-only": func() string {
			var ro struct {
				Token string `json:"token"`
			}
			rpcLocal(t, info, "pairDevice", map[string]any{"rights": "read-only"}, &ro)
			return ro.Token
		},
	})
}

// awaitHubRegistered waits until the hub's link is registered at its
// gateway (listDevices' gateway state).
func awaitHubRegistered(t *testing.T, ctx context.Context, info dashboardInfo) {
	t.Helper()
	for {
		var v struct {
			Gateway struct {
				State string `json:"state"`
			} `json:"gateway"`
		}
		rpcLocal(t, info, "listDevices", nil, &v)
		if v.Gateway.State == "registered" {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the hub never registered at its gateway (state %q)", v.Gateway.State)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// selfSignedCert writes a certificate for 127.0.0.1 (its own CA) and its
// key as PEM files and returns their paths.
func selfSignedCert(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "agenthub test gateway"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
