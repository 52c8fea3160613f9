package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSettingsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s, err := Load(dir)
	if err != nil || !reflect.DeepEqual(s, Settings{}) {
		t.Fatalf("missing file: %+v %v", s, err)
	}
	want := Settings{Provider: "openai", Model: "openai:llama3.1", OpenAIBaseURL: "http://127.0.0.1:11434/v1", DashboardEnabled: true, DashboardListen: "127.0.0.1:0"}
	if err := Save(dir, want); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, File))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("settings.json mode %v %v, want 0600", st.Mode().Perm(), err)
	}
	got, err := Load(dir)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("round trip: %+v %v", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestSettingsMalformed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, File)
	if err := os.WriteFile(p, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	if err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("err %v, want one naming %s", err, p)
	}
	// Unknown fields from newer versions are ignored.
	if err := os.WriteFile(p, []byte(`{"model":"anthropic:x","future_field":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err := Load(dir); err != nil || s.Model != "anthropic:x" {
		t.Errorf("unknown field: %+v %v", s, err)
	}
}

func TestDetectProvider(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name      string
		s         Settings
		env       map[string]string
		providers []string
		sources   []string
	}{
		{"nothing", Settings{}, nil, []string{}, []string{}},
		{"anthropic env", Settings{}, map[string]string{"ANTHROPIC_API_KEY": "k"}, []string{"anthropic"}, []string{"anthropic: env ANTHROPIC_API_KEY"}},
		{"ollama env", Settings{}, map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}, []string{"openai"}, []string{"openai: env OPENAI_BASE_URL"}},
		{"blank env ignored", Settings{}, map[string]string{"ANTHROPIC_API_KEY": "  "}, []string{}, []string{}},
		{"settings", Settings{AnthropicAPIKey: "k", OpenAIAPIKey: "o"}, nil, []string{"anthropic", "openai"}, []string{"anthropic: settings anthropic_api_key", "openai: settings openai_api_key"}},
		{"env beats settings", Settings{OpenAIBaseURL: "http://x"}, map[string]string{"OPENAI_API_KEY": "k"}, []string{"openai"}, []string{"openai: env OPENAI_API_KEY"}},
	} {
		got := DetectProvider(tc.s, env(tc.env))
		if got.Configured != (len(tc.providers) > 0) || !reflect.DeepEqual(got.Providers, tc.providers) || !reflect.DeepEqual(got.Sources, tc.sources) {
			t.Errorf("%s: %+v", tc.name, got)
		}
		for _, src := range got.Sources {
			if strings.Contains(src, "k") && strings.HasSuffix(src, "k") {
				t.Errorf("%s: source leaks a secret: %q", tc.name, src)
			}
		}
	}
}
