package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agenthub/app/permission"
	"agenthub/app/secrets"
)

func readSettingsFile(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, SettingsFile))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A plain-text key found in settings.json moves into the vault on start:
// the file keeps a reference, the providers still get the key, getSettings
// masks it and says where keys are kept.
func TestKeysMoveOutOfSettingsOnStart(t *testing.T) {
	dir := t.TempDir()
	if err := SaveSettings(dir, Settings{AnthropicAPIKey: "sk-ant-plain-9876", Model: "anthropic:claude-sonnet-4-6"}); err != nil {
		t.Fatal(err)
	}
	vault := secrets.OpenFile(dir)
	inst, err := Open(testConfig(t, dir), OpenOptions{Vault: vault})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	if f := readSettingsFile(t, dir); strings.Contains(f, "sk-ant-plain") || !strings.Contains(f, `"secret:anthropic_api_key"`) {
		t.Fatalf("settings.json after start: %s", f)
	}
	if got, _ := vault.Get("anthropic_api_key"); got != "sk-ant-plain-9876" {
		t.Fatalf("vault holds %q", got)
	}
	if got := inst.settings.Current().AnthropicAPIKey; got != "sk-ant-plain-9876" {
		t.Fatalf("the providers get %q", got)
	}
	if st := DetectProvider(inst.settings.Current(), nil); !st.Configured {
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

// Keys set, replaced and cleared through updateSettings live in the vault
// only; a reference the vault cannot answer is reported, not fatal.
func TestKeysThroughUpdateAndADanglingReference(t *testing.T) {
	dir := t.TempDir()
	vault := secrets.OpenFile(dir)
	ss := newSettingsService(dir, Settings{}, vault, settingsStatus{})
	if _, err := ss.Update(json.RawMessage(`{"openai_api_key":"sk-openai-5555"}`)); err != nil {
		t.Fatal(err)
	}
	if f := readSettingsFile(t, dir); strings.Contains(f, "sk-openai") || !strings.Contains(f, `"secret:openai_api_key"`) {
		t.Fatalf("settings.json: %s", f)
	}
	if got, _ := vault.Get("openai_api_key"); got != "sk-openai-5555" || ss.Current().OpenAIAPIKey != "sk-openai-5555" {
		t.Fatalf("vault %q, live %q", got, ss.Current().OpenAIAPIKey)
	}
	if _, err := ss.Update(json.RawMessage(`{"openai_api_key":""}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := vault.Get("openai_api_key"); err == nil || strings.Contains(readSettingsFile(t, dir), "secret:") {
		t.Fatal("a cleared key stayed in the vault or the file")
	}

	// settings.json names a key the vault does not have (a keyring reset).
	other := t.TempDir()
	if err := SaveSettings(other, Settings{AnthropicAPIKey: "secret:anthropic_api_key"}); err != nil {
		t.Fatal(err)
	}
	inst, err := Open(testConfig(t, other), OpenOptions{Vault: secrets.OpenFile(other)})
	if err != nil {
		t.Fatalf("a dangling reference stopped the start: %v", err)
	}
	defer inst.Close()
	view, _ := inst.settings.Masked()
	if !strings.Contains(string(view), "enter the key again") || DetectProvider(inst.settings.Current(), nil).Configured {
		t.Fatalf("getSettings %s", view)
	}
}

func TestApprovalModeSetting(t *testing.T) {
	ss := newSettingsService(t.TempDir(), Settings{}, nil, settingsStatus{})
	if ss.ApprovalMode() != permission.ModeAsk {
		t.Fatalf("default %s", ss.ApprovalMode())
	}
	if _, err := ss.Update(json.RawMessage(`{"approval_mode":"auto-edits"}`)); err != nil {
		t.Fatal(err)
	}
	if ss.ApprovalMode() != permission.ModeAutoEdits {
		t.Fatalf("after update %s", ss.ApprovalMode())
	}
	if _, err := ss.Update(json.RawMessage(`{"approval_mode":"yolo"}`)); err == nil {
		t.Fatal("a bad mode was accepted")
	}
	// What getSettings returned may be sent back whole.
	view, _ := ss.Masked()
	if _, err := ss.Update(view); err != nil {
		t.Fatalf("echoing getSettings back: %v", err)
	}
}
