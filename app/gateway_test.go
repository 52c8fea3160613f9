package app

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/ipc"
	"agenthub/ipc/devices"
	"agenthub/ipc/rpc"
)

// TestGetInfoThroughTheGateway: the window and the dashboard get the whole
// Info; a device through a gateway never sees the dashboard URL (its
// token), the data dir or the log file.
func TestGetInfoThroughTheGateway(t *testing.T) {
	in, err := Open(testConfig(t, t.TempDir()), OpenOptions{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	call := func(client string) string {
		resp := in.RPC.Call(ipc.WithClient(context.Background(), client), rpc.Request{Type: rpc.TypeRequest, RequestID: "1", Method: MethodGetInfo})
		if !resp.OK {
			t.Fatalf("getInfo: %v", resp.Err)
		}
		b, _ := json.Marshal(resp.Payload)
		return string(b)
	}
	// The data dir as it stands inside the JSON (a Windows path's
	// backslashes escaped).
	quoted, _ := json.Marshal(in.Config.DataDir)
	dataDir := strings.Trim(string(quoted), `"`)
	local := call("dashboard")
	if !strings.Contains(local, in.Dashboard.URL()) || !strings.Contains(local, dataDir) {
		t.Fatalf("local getInfo lacks the dashboard URL or data dir: %s", local)
	}
	remote := call("gateway:laptop")
	if strings.Contains(remote, "token=") || strings.Contains(remote, dataDir) {
		t.Fatalf("getInfo through the gateway leaks: %s", remote)
	}
}

// TestNoGatewayStartsNothing: without --gateway or gateway_url the link is
// off, and a gateway URL the rules refuse leaves it off too.
func TestNoGatewayStartsNothing(t *testing.T) {
	in, err := Open(testConfig(t, t.TempDir()), OpenOptions{Headless: true})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if st := in.Gateway.Status(); st.State != "off" || st.URL != "" {
		t.Fatalf("status without a gateway: %+v", st)
	}
	// Nothing is written either: the device listing a page polls reads the
	// trust file without making a hub id.
	if _, err := in.Gateway.List(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(in.Config.DataDir, devices.File)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s without a gateway: %v", devices.File, err)
	}
	in.configureGateway("http://192.0.2.7:7800") // plain http off loopback, no --gateway-insecure
	if st := in.Gateway.Status(); st.State != "off" {
		t.Fatalf("an insecure gateway was connected: %+v", st)
	}
}

func TestGatewayFlags(t *testing.T) {
	var out, errb strings.Builder
	if _, err := ParseFlags([]string{"--gateway", "http://192.0.2.7:7800"}, t.TempDir(), nil, &out, &errb); err == nil || !strings.Contains(errb.String(), "--gateway-insecure") {
		t.Fatalf("plain http off loopback accepted: %v %s", err, errb.String())
	}
	cfg, err := ParseFlags([]string{"--gateway", "http://192.0.2.7:7800", "--gateway-insecure"}, t.TempDir(), nil, &out, &errb)
	if err != nil || !cfg.GatewaySet || !cfg.GatewayInsecure {
		t.Fatalf("--gateway-insecure: %+v %v", cfg, err)
	}
}
