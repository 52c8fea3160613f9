package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/secrets"
	"agenthub/app/settings"
)

// A plain-text key found in settings.json moves into the vault on start:
// the file keeps a reference, the providers still get the key, getSettings
// masks it and says where keys are kept.
func TestKeysMoveOutOfSettingsOnStart(t *testing.T) {
	dir := t.TempDir()
	if err := settings.Save(dir, settings.Settings{AnthropicAPIKey: "sk-ant-plain-9876", Model: "anthropic:claude-sonnet-4-6"}); err != nil {
		t.Fatal(err)
	}
	vault := secrets.OpenFile(dir)
	inst, err := Open(testConfig(t, dir), OpenOptions{Vault: vault})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	b, err := os.ReadFile(filepath.Join(dir, settings.File))
	if err != nil {
		t.Fatal(err)
	}
	if f := string(b); strings.Contains(f, "sk-ant-plain") || !strings.Contains(f, `"secret:anthropic_api_key"`) {
		t.Fatalf("settings.json after start: %s", f)
	}
	if got, _ := vault.Get("anthropic_api_key"); got != "sk-ant-plain-9876" {
		t.Fatalf("vault holds %q", got)
	}
	if got := inst.settings.Current().AnthropicAPIKey; got != "sk-ant-plain-9876" {
		t.Fatalf("the providers get %q", got)
	}
	if st := settings.DetectProvider(inst.settings.Current(), nil); !st.Configured {
		t.Fatal("the moved key no longer configures the provider")
	}
	view, err := inst.settings.Masked()
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(view, &v); err != nil {
		t.Fatalf("getSettings is not one object: %s", view)
	}
	if v["anthropic_api_key"] != "••••9876" || !strings.Contains(v["keys_stored_in"].(string), "secrets.json") ||
		!strings.Contains(v["sandbox"].(string), "bash sandbox") || v["approval_mode"] != "ask" {
		t.Fatalf("getSettings %s", view)
	}
}

// settings.json names a key the vault does not have (a keyring reset): the
// reference is reported, not fatal.
func TestDanglingKeyReference(t *testing.T) {
	other := t.TempDir()
	if err := settings.Save(other, settings.Settings{AnthropicAPIKey: "secret:anthropic_api_key"}); err != nil {
		t.Fatal(err)
	}
	inst, err := Open(testConfig(t, other), OpenOptions{Vault: secrets.OpenFile(other)})
	if err != nil {
		t.Fatalf("a dangling reference stopped the start: %v", err)
	}
	defer inst.Close()
	view, _ := inst.settings.Masked()
	if !strings.Contains(string(view), "enter the key again") || settings.DetectProvider(inst.settings.Current(), nil).Configured {
		t.Fatalf("getSettings %s", view)
	}
}
