// Package settings is the user's configuration: DATA_DIR/settings.json
// (0600, written atomically, never overwritten when it could not be read),
// the API keys it refers to in the vault (app/secrets), where each value
// in effect comes from (flag, environment, file, default) and the live
// Service the hub reads and getSettings/updateSettings change.
package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"agenthub/app/llm"
	"agenthub/app/mcp"
	"agenthub/atomicfile"
)

// File is the settings file's name inside the data dir.
const File = "settings.json"

// Settings is the persisted user configuration (DATA_DIR/settings.json,
// mode 0600). Unknown fields in the file are ignored; new fields must be
// optional so older files keep loading.
type Settings struct {
	// Provider is the default provider ("anthropic" or "openai").
	Provider string `json:"provider,omitempty"`
	// Model is the default model as "provider:model".
	Model string `json:"model,omitempty"`
	// AnthropicAPIKey and AnthropicBaseURL configure the Anthropic provider.
	AnthropicAPIKey  string `json:"anthropic_api_key,omitempty"`
	AnthropicBaseURL string `json:"anthropic_base_url,omitempty"`
	// OpenAIAPIKey and OpenAIBaseURL configure any OpenAI-compatible endpoint.
	OpenAIAPIKey  string `json:"openai_api_key,omitempty"`
	OpenAIBaseURL string `json:"openai_base_url,omitempty"`
	// DashboardEnabled turns the dashboard port on in desktop mode.
	DashboardEnabled bool `json:"dashboard_enabled,omitempty"`
	// DashboardListen overrides the dashboard address when --listen is not given.
	DashboardListen string `json:"dashboard_listen,omitempty"`
	// Prices overrides entries of the model price table (USD per million
	// tokens), keyed by model name without the provider prefix.
	Prices map[string]llm.Price `json:"prices,omitempty"`
	// ThinkingBudget is the extended-thinking budget in tokens for models
	// that support it; 0 leaves thinking off.
	ThinkingBudget int `json:"thinking_budget,omitempty"`
	// ApprovalMode is the approval mode of new sessions (ask, auto-edits,
	// auto-all, plan; --approval-mode wins over it); "" means ask.
	ApprovalMode string `json:"approval_mode,omitempty"`
	// MCPServers are the MCP servers whose tools the agent may call, by
	// name (docs/mcp.md).
	MCPServers map[string]mcp.ServerConfig `json:"mcp_servers,omitempty"`
	// GatewayURL connects the hub to a gateway as a device (docs/gateway.md);
	// --gateway wins over it. "" means no gateway.
	GatewayURL string `json:"gateway_url,omitempty"`
	// AutoTitle names sessions after their first completed turn with one
	// LLM call; nil means on.
	AutoTitle *bool `json:"auto_title,omitempty"`
	// ToolEnv adds variables to the environment of bash commands, which
	// otherwise get only PATH, HOME, LANG, LC_*, TERM, USER, LOGNAME,
	// SHELL, Go's settings and their own TMPDIR and caches — never the
	// app's (docs/permissions.md).
	ToolEnv map[string]string `json:"tool_env,omitempty"`
}

// checkToolEnv validates tool_env: names as a shell writes them, values
// without NUL; TMPDIR and the names the sandbox sets are its own.
func checkToolEnv(env map[string]string) error {
	for name, v := range env {
		ok := name != ""
		for i, r := range name {
			ok = ok && (r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9')
		}
		if !ok {
			return fmt.Errorf("tool_env: %q is not a variable name", name)
		}
		if strings.ContainsRune(v, 0) {
			return fmt.Errorf("tool_env[%q]: the value holds a NUL byte", name)
		}
		if name == "TMPDIR" || strings.HasPrefix(name, "AGENTHUB_") {
			return fmt.Errorf("tool_env: %s is set by Agent Hub", name)
		}
	}
	return nil
}

// Load reads DIR/settings.json. A missing file yields zero Settings
// and no error; unreadable or malformed JSON is an error naming the file.
func Load(dir string) (Settings, error) {
	path := filepath.Join(dir, File)
	var s Settings
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, &FileError{Path: path, Err: err}
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return Settings{}, &FileError{Path: path, Err: fmt.Errorf("invalid JSON: %w", err)}
	}
	return s, nil
}

// FileError says settings.json could not be read. The file is left as
// it is: Agent Hub never overwrites a settings file it could not read.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return fmt.Sprintf("settings %s: %v", e.Path, e.Err) }

// Unwrap returns Err.
func (e *FileError) Unwrap() error { return e.Err }

// Save writes s to DIR/settings.json with mode 0600, atomically
// (temporary file then rename), so a crash never leaves a torn file.
func Save(dir string, s Settings) error {
	return atomicfile.WriteJSON(filepath.Join(dir, File), s, 0o600)
}

// ProviderStatus says whether an LLM provider is configured and where from.
type ProviderStatus struct {
	// Configured is true when at least one provider has credentials or an endpoint.
	Configured bool `json:"configured"`
	// Providers lists the configured providers ("anthropic", "openai"), in that order.
	Providers []string `json:"providers"`
	// Source says where each provider's configuration came from, e.g.
	// "anthropic: env ANTHROPIC_API_KEY"; never contains a secret.
	Sources []string `json:"sources"`
}

// DetectProvider reports the configured providers: ANTHROPIC_API_KEY, or
// OPENAI_API_KEY / OPENAI_BASE_URL, in the environment (via getenv), or the
// corresponding keys / base URLs in settings. Environment wins for Source.
func DetectProvider(s Settings, getenv func(string) string) ProviderStatus {
	st := ProviderStatus{Providers: []string{}, Sources: []string{}}
	add := func(provider, source string) {
		st.Configured = true
		st.Providers = append(st.Providers, provider)
		st.Sources = append(st.Sources, provider+": "+source)
	}
	env := func(k string) bool { return getenv != nil && strings.TrimSpace(getenv(k)) != "" }
	switch {
	case env("ANTHROPIC_API_KEY"):
		add("anthropic", "env ANTHROPIC_API_KEY")
	case strings.TrimSpace(s.AnthropicAPIKey) != "":
		add("anthropic", "settings anthropic_api_key")
	}
	switch {
	case env("OPENAI_API_KEY"):
		add("openai", "env OPENAI_API_KEY")
	case env("OPENAI_BASE_URL"):
		add("openai", "env OPENAI_BASE_URL")
	case strings.TrimSpace(s.OpenAIAPIKey) != "":
		add("openai", "settings openai_api_key")
	case strings.TrimSpace(s.OpenAIBaseURL) != "":
		add("openai", "settings openai_base_url")
	}
	return st
}
