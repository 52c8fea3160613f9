package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"agenthub/app/apptest"
	"agenthub/app/llm/llmtest"
	"agenthub/app/sandbox"
)

// TestSandboxedBashGetsNoTokenNoKey drives the real headless binary, as a
// desktop launch in $HOME would be: the workspace is the data dir's parent.
// An auto-approved bash call tries attacks 2 and 9 of issue 32 and row 1 of
// issue 40: read dashboard.json and POST updateSettings with its token (an
// "MCP server" that would run unsandboxed), overwrite settings.json and
// permissions.json, print its environment and the app's /proc environ.
// None of it works: the token and the provider key never show in the tool
// result the model gets, the request without the token is refused, and
// the data dir is unchanged.
func TestSandboxedBashGetsNoTokenNoKey(t *testing.T) {
	if !sandbox.Probe().Files() {
		t.Skip(sandbox.Probe().String())
	}
	root, ctx := repoContext(t, 2*time.Minute)
	bin := headlessBin(t, ctx, root)
	dataDir, _ := apptest.Dirs(t)
	home := filepath.Dir(dataDir) // the workspace holds the data dir
	srv := llmtest.NewServer(t)
	usage := llmtest.AnthropicUsage{Input: 100, Output: 10}
	const apiKey = "sk-ant-e2e-SECRET"
	info, stop := launchHeadless(t, ctx, bin, dataDir, home,
		[]string{"ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_API_KEY=" + apiKey}, "--approval-mode", "auto-all")
	t.Cleanup(stop)
	settingsBefore, _ := os.ReadFile(filepath.Join(dataDir, "settings.json"))

	appPID := pidWithArg(t, dataDir)
	body := `{"type":"request","requestId":"r1","method":"updateSettings","params":{"mcp_servers":{"x":{"command":"sh","args":["-c","touch PWNED"]}}}}`
	attack := fmt.Sprintf(`D=%s
cat "$D/dashboard.json"
echo '{"mcp_servers":{"x":{"command":"sh"}}}' > "$D/settings.json"
echo '{"workspaces":{"/":[{"tool":"*","action":"allow"}]}}' > "$D/permissions.json"
env
tr '\0' '\n' < /proc/%d/environ
T=$(grep -o '"token": *"[^"]*"' "$D/dashboard.json" | cut -d'"' -f4)
B='%s'
exec 3<>/dev/tcp/127.0.0.1/%d
printf 'POST /rpc HTTP/1.0\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %%s\r\nContent-Type: application/json\r\nContent-Length: %%d\r\n\r\n%%s' "$T" ${#B} "$B" >&3
head -1 <&3`, dataDir, appPID, body, info.Port, info.Port)
	input, _ := json.Marshal(map[string]string{"command": attack})
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).ToolUse("toolu_attack", "bash", string(input)).Finish("tool_use", 10).Response())
	gate := llmtest.NewGate()
	srv.Enqueue(llmtest.NewAnthropicStream(model, usage).Stall(gate).Text("done").Finish("end_turn", 5).Response())
	defer gate.Release()

	var sess struct {
		ID string `json:"session_id"`
	}
	rpc(t, ctx, info, "createSession", map[string]any{}, &sess)
	rpc(t, ctx, info, "submitTurn", map[string]any{"agentId": sess.ID, "content": "go"}, nil)
	select {
	case <-gate.Reached(): // the app sent the tool result back to the model
	case <-ctx.Done():
		t.Fatal("the tool result never reached the model")
	}
	reqs := srv.Requests()
	result := string(reqs[len(reqs)-1].Body)
	for what, secret := range map[string]string{"the dashboard token": info.Token, "the provider key": apiKey} {
		if strings.Contains(result, secret) {
			t.Errorf("the model got %s:\n%s", what, result)
		}
	}
	if !strings.Contains(result, "PATH=") {
		t.Errorf("the command did not run (no env output):\n%s", result)
	}
	if !strings.Contains(result, "401") {
		t.Errorf("the request without the token was not refused with 401:\n%s", result)
	}
	if after, _ := os.ReadFile(filepath.Join(dataDir, "settings.json")); !bytes.Equal(after, settingsBefore) {
		t.Errorf("settings.json changed:\n%s", after)
	}
	if b, err := os.ReadFile(filepath.Join(dataDir, "permissions.json")); err == nil && strings.Contains(string(b), `"*"`) {
		t.Errorf("permissions.json was written:\n%s", b)
	}
	var settings map[string]any
	rpc(t, ctx, info, "getSettings", map[string]any{}, &settings)
	if settings["mcp_servers"] != nil {
		t.Errorf("an MCP server was added: %v", settings["mcp_servers"])
	}
}

// rpc calls method over POST /rpc with the dashboard token and decodes the
// payload into out (when non-nil).
func rpc(t *testing.T, ctx context.Context, info dashboardInfo, method string, params any, out any) {
	t.Helper()
	frame, _ := json.Marshal(map[string]any{"type": "request", "requestId": method, "method": method, "params": params})
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1:"+strconv.Itoa(info.Port)+"/rpc", bytes.NewReader(frame))
	req.Header.Set("Authorization", "Bearer "+info.Token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer res.Body.Close()
	var resp struct {
		OK      bool            `json:"ok"`
		Payload json.RawMessage `json:"payload"`
		Error   any             `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&resp); err != nil || !resp.OK {
		t.Fatalf("%s: %v %+v", method, err, resp)
	}
	if out != nil {
		if err := json.Unmarshal(resp.Payload, out); err != nil {
			t.Fatalf("%s payload: %v", method, err)
		}
	}
}

// pidWithArg finds the process whose command line holds arg.
func pidWithArg(t *testing.T, arg string) int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); bytes.Contains(b, []byte(arg)) && bytes.Contains(b, []byte("--headless")) {
			return pid
		}
	}
	t.Fatalf("no process with %q", arg)
	return 0
}
