package settings

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
	b, err := os.ReadFile(filepath.Join(dir, File))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Keys set, replaced and cleared through updateSettings live in the vault
// only.
func TestKeysThroughUpdate(t *testing.T) {
	dir := t.TempDir()
	vault := secrets.OpenFile(dir)
	ss := NewService(dir, Settings{}, vault, Status{})
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
}

func TestApprovalModeSetting(t *testing.T) {
	ss := NewService(t.TempDir(), Settings{}, nil, Status{})
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
