package app

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"agenthub/ipc"
)

// tool_env is set through updateSettings (replacing the map), persisted,
// shown by getSettings, and refuses names a shell would not take and the
// ones Agent Hub sets itself; getSettings lists the sandbox's protections.
func TestToolEnvSetting(t *testing.T) {
	dir := t.TempDir()
	ss := newSettingsService(dir, Settings{}, nil, settingsStatus{Sandbox: "bash sandbox: test", SandboxProtections: []string{"one", "two"}})
	out, err := ss.Update(json.RawMessage(`{"tool_env": {"NPM_TOKEN": "t0k", "JAVA_HOME": "/opt/jdk"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		ToolEnv     map[string]string `json:"tool_env"`
		Protections []string          `json:"sandbox_protections"`
	}
	if err := json.Unmarshal(out, &v); err != nil || v.ToolEnv["NPM_TOKEN"] != "t0k" || len(v.Protections) != 2 {
		t.Fatalf("view %s: %v", out, err)
	}
	if again, err := LoadSettings(dir); err != nil || again.ToolEnv["JAVA_HOME"] != "/opt/jdk" {
		t.Fatalf("persisted: %+v %v", again.ToolEnv, err)
	}
	for _, bad := range []string{`{"A=B": "x"}`, `{"1X": "x"}`, `{"TMPDIR": "/x"}`, `{"AGENTHUB_TOOL_CALL": "x"}`, `{"X": "a\u0000b"}`} {
		if _, err := ss.Update(json.RawMessage(`{"tool_env": ` + bad + `}`)); !errors.Is(err, ipc.ErrInvalidInput) || !strings.Contains(err.Error(), "tool_env") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := ss.Update(json.RawMessage(`{"tool_env": {}}`)); err != nil || ss.Current().ToolEnv != nil {
		t.Fatalf("cleared: %v %v", ss.Current().ToolEnv, err)
	}
	// A client may echo the read-only status back.
	if _, err := ss.Update(json.RawMessage(`{"sandbox_protections": ["x"], "sandbox": "y"}`)); err != nil {
		t.Fatal(err)
	}
}

// The sandbox hides the data dir, the runtime dir (session bus, keyring)
// and the ssh agent's directory — but never the temp dir the calls' own
// TMPDIRs live in, nor the home directory.
func TestHiddenDirs(t *testing.T) {
	data, run, agent := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"XDG_RUNTIME_DIR": run, "SSH_AUTH_SOCK": agent + "/agent.1", "HOME": "/home/u"}
	got := hiddenDirs(data, func(k string) string { return env[k] }, 1000)
	if strings.Join(got, " ") != strings.Join([]string{data, run, agent}, " ") {
		t.Fatalf("hidden %q", got)
	}
	env["SSH_AUTH_SOCK"] = os.TempDir() + "/agent.1" // directly in the temp dir: not hidden
	env["XDG_RUNTIME_DIR"] = "/home/u"
	if got := hiddenDirs(data, func(k string) string { return env[k] }, 1000); len(got) != 1 || got[0] != data {
		t.Fatalf("hidden %q, want only the data dir", got)
	}
}
