package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"

	"agenthub/app/llm"
	"agenthub/app/mcp"
	"agenthub/app/permission"
	"agenthub/app/secrets"
	"agenthub/ipc"
	"agenthub/ipc/dashboard"
	"agenthub/ipc/gatewaylink"
)

// Service owns the live Settings: it serves the hub's view
// (hub.Settings), persists every change to DATA_DIR/settings.json (0600) and
// tells its listener so providers and prices follow the new values. Safe for
// concurrent use.
type Service struct {
	dir string
	// vault keeps the API keys; cur holds them resolved, settings.json
	// references (settings_keys.go).
	vault secrets.Vault
	// status is what getSettings reports besides the settings:
	// keys_stored_in, sandbox and a key that could not be read.
	status Status

	// sources reports where each overridable value comes from (nil: no
	// "sources" in the view).
	sources func(Settings) map[string]string

	mu       sync.Mutex
	cur      Settings
	onChange func(Settings) // called with the new settings after a save; may be nil
}

// Status is the read-only part of the getSettings answer.
type Status struct {
	KeysStoredIn       string   `json:"keys_stored_in"`
	Sandbox            string   `json:"sandbox"`
	SandboxProtections []string `json:"sandbox_protections"`
	KeysError          string   `json:"keys_error,omitempty"`
}

// NewService serves s, loaded from dir, with its keys already
// resolved from vault (nil: kept in settings.json, tests only).
func NewService(dir string, s Settings, vault secrets.Vault, status Status) *Service {
	return &Service{dir: dir, cur: s, vault: vault, status: status}
}

// ApprovalMode implements hub.ApprovalSettings: the settings' mode for new
// sessions (ask when unset or invalid).
func (ss *Service) ApprovalMode() permission.Mode {
	m, err := permission.ParseMode(ss.Current().ApprovalMode)
	if err != nil {
		return permission.ModeAsk
	}
	return m
}

// Current returns a copy of the current settings.
func (ss *Service) Current() Settings {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.cur.Clone()
}

// SetSources installs the report of where each overridable value comes
// from (ValueSources; before any client can read the settings). Without
// one the view has no "sources".
func (ss *Service) SetSources(fn func(Settings) map[string]string) {
	ss.mu.Lock()
	ss.sources = fn
	ss.mu.Unlock()
}

// SetListener installs the change listener (before any Update can run).
func (ss *Service) SetListener(fn func(Settings)) {
	ss.mu.Lock()
	ss.onChange = fn
	ss.mu.Unlock()
}

// AddListener chains fn after the current change listener (before any
// Update can run): both are called, in that order, after each save.
func (ss *Service) AddListener(fn func(Settings)) {
	ss.mu.Lock()
	prev := ss.onChange
	ss.onChange = func(s Settings) {
		if prev != nil {
			prev(s)
		}
		fn(s)
	}
	ss.mu.Unlock()
}

// DefaultModel implements hub.Settings.
func (ss *Service) DefaultModel() string {
	return ss.Current().Model
}

// maxThinkingBudget bounds the thinking budget a user may set (tokens).
const maxThinkingBudget = 128000

// ThinkingBudget implements hub.ThinkingSettings: the settings' thinking
// budget in tokens, 0 for off.
func (ss *Service) ThinkingBudget() int {
	return ss.Current().ThinkingBudget
}

// AutoTitle implements hub.TitleSettings: on unless auto_title is false.
func (ss *Service) AutoTitle() bool {
	a := ss.Current().AutoTitle
	return a == nil || *a
}

// Masked implements hub.Settings: the settings as JSON with API keys
// masked, plus where keys are kept and what the sandbox enforces.
func (ss *Service) Masked() (json.RawMessage, error) {
	return ss.view(ss.Current())
}

// view is s masked, with the status fields.
func (ss *Service) view(s Settings) (json.RawMessage, error) {
	if s.ApprovalMode == "" {
		s.ApprovalMode = string(permission.ModeAsk)
	}
	if s.AutoTitle == nil {
		on := true
		s.AutoTitle = &on
	}
	b, err := maskedJSON(s)
	if err != nil {
		return nil, err
	}
	status := struct {
		Status
		Sources map[string]string `json:"sources,omitempty"`
	}{Status: ss.status}
	ss.mu.Lock()
	sources := ss.sources
	ss.mu.Unlock()
	if sources != nil {
		status.Sources = sources(s)
	}
	st, err := json.Marshal(status)
	if err != nil {
		return nil, err
	}
	// Both are objects: join them.
	return append(append(b[:len(b)-1:len(b)-1], ','), st[1:]...), nil
}

// settingsPatch is the subset of Settings a client may change. A nil field
// is left as it is; an API key equal to its masked form is left as it is
// (the page echoes back what getSettings showed).
type settingsPatch struct {
	Provider         *string              `json:"provider"`
	Model            *string              `json:"model"`
	AnthropicAPIKey  *string              `json:"anthropic_api_key"`
	AnthropicBaseURL *string              `json:"anthropic_base_url"`
	OpenAIAPIKey     *string              `json:"openai_api_key"`
	OpenAIBaseURL    *string              `json:"openai_base_url"`
	DashboardEnabled *bool                `json:"dashboard_enabled"`
	DashboardListen  *string              `json:"dashboard_listen"`
	Prices           map[string]llm.Price `json:"prices"`
	ThinkingBudget   *int                 `json:"thinking_budget"`
	ApprovalMode     *string              `json:"approval_mode"`
	AutoTitle        *bool                `json:"auto_title"`
	GatewayURL       *string              `json:"gateway_url"`
	// ToolEnv replaces the whole tool environment setting when present.
	ToolEnv map[string]string `json:"tool_env"`
	// MCPServers replaces the whole set of MCP servers when present.
	MCPServers map[string]mcp.ServerConfig `json:"mcp_servers"`
	// The read-only status fields getSettings adds are accepted and ignored,
	// so a client may send back what it got.
	KeysStoredIn       *string `json:"keys_stored_in"`
	Sandbox            *string `json:"sandbox"`
	SandboxProtections any     `json:"sandbox_protections"`
	KeysError          *string `json:"keys_error"`
	Sources            any     `json:"sources"`
}

// Update implements hub.Settings: it validates and merges a partial settings
// object, saves it and returns the result masked. Unknown fields and bad
// values are errors wrapping ipc.ErrInvalidInput; nothing is saved then.
func (ss *Service) Update(patch json.RawMessage) (json.RawMessage, error) {
	var p settingsPatch
	dec := json.NewDecoder(bytes.NewReader(patch))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: settings: %v", ipc.ErrInvalidInput, err)
	}
	ss.mu.Lock()
	next := ss.cur.Clone()
	if err := p.applyTo(&next); err != nil {
		ss.mu.Unlock()
		return nil, fmt.Errorf("%w: settings: %v", ipc.ErrInvalidInput, err)
	}
	if err := ss.save(next); err != nil {
		ss.mu.Unlock()
		return nil, err
	}
	ss.cur = next
	listener := ss.onChange
	ss.mu.Unlock()
	if listener != nil {
		listener(next.Clone())
	}
	return ss.view(next)
}

// save writes next to settings.json, its keys into the vault first.
func (ss *Service) save(next Settings) error {
	disk := next
	if ss.vault != nil {
		var err error
		if disk, err = diskForm(ss.vault, next); err != nil {
			return err
		}
	}
	return Save(ss.dir, disk)
}

// applyTo merges p into s after validating every field.
func (p settingsPatch) applyTo(s *Settings) error {
	if p.Provider != nil {
		v := strings.TrimSpace(*p.Provider)
		if v != "" && v != "anthropic" && v != "openai" {
			return fmt.Errorf("provider %q: want \"anthropic\" or \"openai\"", v)
		}
		s.Provider = v
	}
	if p.Model != nil {
		v := strings.TrimSpace(*p.Model)
		if v != "" {
			if _, _, err := llm.ParseModel(v); err != nil {
				return fmt.Errorf("model %q: %v", v, err)
			}
		}
		s.Model = v
	}
	setKey := func(dst *string, v *string) {
		if v == nil {
			return
		}
		nv := strings.TrimSpace(*v)
		if nv != "" && nv == maskSecret(*dst) {
			return // the masked value echoed back: keep the stored key
		}
		*dst = nv
	}
	setKey(&s.AnthropicAPIKey, p.AnthropicAPIKey)
	setKey(&s.OpenAIAPIKey, p.OpenAIAPIKey)
	if err := p.applyURLs(s); err != nil {
		return err
	}
	if p.DashboardEnabled != nil {
		s.DashboardEnabled = *p.DashboardEnabled
	}
	if p.DashboardListen != nil {
		v := strings.TrimSpace(*p.DashboardListen)
		if v != "" {
			if err := dashboard.ValidateAddr(v); err != nil {
				return fmt.Errorf("dashboard_listen: %v", err)
			}
		}
		s.DashboardListen = v
	}
	if p.ApprovalMode != nil {
		v := strings.TrimSpace(*p.ApprovalMode)
		if _, err := permission.ParseMode(v); err != nil {
			return err
		}
		s.ApprovalMode = v
	}
	if p.GatewayURL != nil {
		v := strings.TrimSpace(*p.GatewayURL)
		if v != "" {
			// The scheme/host check; whether plain http may leave this
			// machine is --gateway-insecure's, checked when it connects.
			if _, err := gatewaylink.ValidateURL(v, true); err != nil {
				return fmt.Errorf("gateway_url: %v", err)
			}
		}
		s.GatewayURL = v
	}
	if p.AutoTitle != nil {
		on := *p.AutoTitle
		s.AutoTitle = &on
	}
	if p.ThinkingBudget != nil {
		if *p.ThinkingBudget < 0 || *p.ThinkingBudget > maxThinkingBudget {
			return fmt.Errorf("thinking_budget %d: want 0 (off) to %d tokens", *p.ThinkingBudget, maxThinkingBudget)
		}
		s.ThinkingBudget = *p.ThinkingBudget
	}
	if p.MCPServers != nil {
		if err := mcp.Validate(p.MCPServers); err != nil {
			return err
		}
		s.MCPServers = p.MCPServers
		if len(s.MCPServers) == 0 {
			s.MCPServers = nil
		}
	}
	if p.ToolEnv != nil {
		if err := checkToolEnv(p.ToolEnv); err != nil {
			return err
		}
		s.ToolEnv = p.ToolEnv
		if len(s.ToolEnv) == 0 {
			s.ToolEnv = nil
		}
	}
	if p.Prices != nil {
		for model, pr := range p.Prices {
			if model == "" || pr.Input < 0 || pr.Output < 0 || pr.CacheRead < 0 || pr.CacheWrite < 0 {
				return fmt.Errorf("prices[%q]: prices must be non-negative and the model named", model)
			}
		}
		s.Prices = p.Prices
	}
	return nil
}

// applyURLs merges the provider base URLs after checking each is http(s).
func (p settingsPatch) applyURLs(s *Settings) error {
	for _, f := range []struct {
		dst  *string
		v    *string
		name string
	}{{&s.AnthropicBaseURL, p.AnthropicBaseURL, "anthropic_base_url"}, {&s.OpenAIBaseURL, p.OpenAIBaseURL, "openai_base_url"}} {
		if f.v == nil {
			continue
		}
		v := strings.TrimSpace(*f.v)
		if v != "" {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Errorf("%s %q: want an http(s) URL", f.name, v)
			}
		}
		*f.dst = v
	}
	return nil
}

// maskSecret shows the last four characters of a secret, "" for none.
func maskSecret(v string) string {
	if v == "" {
		return ""
	}
	if len(v) <= 8 {
		return "••••"
	}
	return "••••" + v[len(v)-4:]
}

// maskedJSON encodes s with its API keys masked.
func maskedJSON(s Settings) (json.RawMessage, error) {
	s.AnthropicAPIKey = maskSecret(s.AnthropicAPIKey)
	s.OpenAIAPIKey = maskSecret(s.OpenAIAPIKey)
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("settings: encode: %w", err)
	}
	return b, nil
}

// llmConfig is the provider configuration the settings describe
// (environment variables still take precedence inside llm).
func (s Settings) LLMConfig() llm.Config {
	return llm.Config{
		AnthropicAPIKey:  s.AnthropicAPIKey,
		AnthropicBaseURL: s.AnthropicBaseURL,
		OpenAIAPIKey:     s.OpenAIAPIKey,
		OpenAIBaseURL:    s.OpenAIBaseURL,
	}
}

// applyPrices resets the llm price table to its defaults plus s's overrides.
func (s Settings) ApplyPrices() {
	llm.ResetPrices()
	if len(s.Prices) > 0 {
		llm.SetPrices(s.Prices)
	}
}

// clone returns a deep copy of s.
func (s Settings) Clone() Settings {
	c := s
	if s.AutoTitle != nil {
		on := *s.AutoTitle
		c.AutoTitle = &on
	}
	if s.Prices != nil {
		c.Prices = make(map[string]llm.Price, len(s.Prices))
		for k, v := range s.Prices {
			c.Prices[k] = v
		}
	}
	c.ToolEnv = maps.Clone(s.ToolEnv)
	if s.MCPServers != nil {
		c.MCPServers = make(map[string]mcp.ServerConfig, len(s.MCPServers))
		for k, v := range s.MCPServers {
			v.Args = slices.Clone(v.Args)
			v.Env = maps.Clone(v.Env)
			v.Headers = maps.Clone(v.Headers)
			c.MCPServers[k] = v
		}
	}
	return c
}
