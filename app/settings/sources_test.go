package settings

import (
	"encoding/json"
	"testing"
)

func TestValueSourcesEnvAndFlagsWinOverSettings(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-from-env", "OPENAI_BASE_URL": " "}
	s := Settings{AnthropicAPIKey: "sk-file", OpenAIAPIKey: "sk-openai", Model: "openai:gpt-4.1"}
	got := ValueSources(s, Flags{Model: "anthropic:claude-sonnet-4-6"}, func(k string) string { return env[k] })
	want := map[string]string{
		"model": SourceFlag, "approval_mode": SourceDefault,
		"anthropic_api_key": SourceEnv, "anthropic_base_url": SourceDefault,
		"openai_api_key": SourceSettings, "openai_base_url": SourceDefault, // blank env counts as unset
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("sources[%s] = %q, want %q", k, got[k], v)
		}
	}
}

func TestSettingsViewCarriesSources(t *testing.T) {
	ss := NewService(t.TempDir(), Settings{}, nil, Status{})
	ss.SetSources(func(s Settings) map[string]string {
		return ValueSources(s, Flags{}, func(string) string { return "" })
	})
	out, err := ss.Update(json.RawMessage(`{"anthropic_api_key":"sk-ant-1234"}`))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Sources map[string]string `json:"sources"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	if v.Sources["anthropic_api_key"] != SourceSettings || v.Sources["model"] != SourceDefault {
		t.Fatalf("sources = %v", v.Sources)
	}
	// The page echoes the view back, sources included: accepted and ignored.
	if _, err := ss.Update(out); err != nil {
		t.Fatalf("echoing the view back: %v", err)
	}
}
