package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"agenthub/ipc/dashboard"
	"agenthub/ipc/devices"
	"agenthub/ipc/gatewaylink"
)

// hubRPCTimeout bounds one call to the running hub.
const hubRPCTimeout = 10 * time.Second

// hubRPC calls method on the hub running on dataDir — through its
// dashboard: POST /rpc on 127.0.0.1 at the port, with the token, of
// DATA_DIR/dashboard.json — and decodes the answer's payload into out. The
// token never goes anywhere but loopback, whatever the file says.
func hubRPC(ctx context.Context, dataDir, method string, params, out any) error {
	b, err := os.ReadFile(filepath.Join(dataDir, dashboard.InfoFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no hub with a dashboard runs on %s: answer in its window (a desktop hub has one only when enabled in Settings or given --listen)", dataDir)
	}
	if err != nil {
		return err
	}
	var info dashboard.Info
	if err := json.Unmarshal(b, &info); err != nil || info.Port <= 0 || info.Port > 65535 || info.Token == "" {
		return fmt.Errorf("%s: not a dashboard info file (%v)", dashboard.InfoFileName, err)
	}
	body, err := json.Marshal(map[string]any{"type": "request", "requestId": "agenthub-devices", "method": method, "params": params})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, hubRPCTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:"+strconv.Itoa(info.Port)+"/rpc", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+info.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("the hub on %s does not answer (%w): is it running?", dataDir, err)
	}
	defer resp.Body.Close()
	var answer struct {
		OK      bool            `json:"ok"`
		Payload json.RawMessage `json:"payload"`
		Error   *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&answer); err != nil {
		return fmt.Errorf("the hub's answer to %s (%s): %w", method, resp.Status, err)
	}
	if !answer.OK {
		if answer.Error != nil {
			return fmt.Errorf("%s: %s", answer.Error.Code, answer.Error.Message)
		}
		return fmt.Errorf("%s failed (%s)", method, resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(answer.Payload, out)
}

// listPending prints the devices waiting for the running hub's user.
func listPending(dataDir string, out io.Writer) error {
	var v gatewaylink.DevicesView
	if err := hubRPC(context.Background(), dataDir, gatewaylink.MethodListDevices, nil, &v); err != nil {
		return err
	}
	if len(v.Pending) == 0 {
		fmt.Fprintln(out, "no device waits to be allowed")
		return nil
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DEVICE\tRIGHTS\tUNTIL\tAGENT")
	for _, p := range v.Pending {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.DeviceID, p.Rights, p.ExpiresAt.Local().Format(time.TimeOnly), p.Meta["userAgent"])
	}
	return tw.Flush()
}

// answerPending allows (with rights, or the token's when "") or denies a
// device waiting for the running hub's user.
func answerPending(dataDir, deviceID string, allow bool, rights devices.Rights, out io.Writer) error {
	params := map[string]any{"deviceId": deviceID, "allow": allow}
	if rights != "" {
		params["rights"] = rights
	}
	if err := hubRPC(context.Background(), dataDir, gatewaylink.MethodAnswerDevice, params, nil); err != nil {
		return err
	}
	if allow {
		fmt.Fprintf(out, "allowed %s\n", deviceID)
	} else {
		fmt.Fprintf(out, "denied %s\n", deviceID)
	}
	return nil
}
