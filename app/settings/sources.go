package settings

import "strings"

// Where a setting's value comes from, as getSettings reports it in
// "sources" (Settings shows it next to each field).
const (
	// SourceEnv: an environment variable, which wins over settings.json.
	SourceEnv = "env"
	// SourceFlag: a command-line flag, which wins over settings.json.
	SourceFlag = "flag"
	// SourceSettings: settings.json (API keys: the keyring or key file it
	// refers to).
	SourceSettings = "settings"
	// SourceDefault: nothing set; the built-in default applies.
	SourceDefault = "default"
)

// Flags are the command-line values that override settings.json ("" for
// a flag not given).
type Flags struct {
	// Model is --model.
	Model string
	// ApprovalMode is --approval-mode.
	ApprovalMode string
}

// ValueSources reports, for each setting a flag or the environment can
// override, where the value in effect comes from: the environment (read
// through getenv) and flags win over s, as the provider registry and the
// hub apply them.
func ValueSources(s Settings, flags Flags, getenv func(string) string) map[string]string {
	env := func(k string) bool { return getenv != nil && strings.TrimSpace(getenv(k)) != "" }
	pick := func(envName, flag, fromFile string) string {
		switch {
		case envName != "" && env(envName):
			return SourceEnv
		case strings.TrimSpace(flag) != "":
			return SourceFlag
		case strings.TrimSpace(fromFile) != "":
			return SourceSettings
		}
		return SourceDefault
	}
	return map[string]string{
		"model":              pick("", flags.Model, s.Model),
		"approval_mode":      pick("", flags.ApprovalMode, s.ApprovalMode),
		"anthropic_api_key":  pick("ANTHROPIC_API_KEY", "", s.AnthropicAPIKey),
		"anthropic_base_url": pick("ANTHROPIC_BASE_URL", "", s.AnthropicBaseURL),
		"openai_api_key":     pick("OPENAI_API_KEY", "", s.OpenAIAPIKey),
		"openai_base_url":    pick("OPENAI_BASE_URL", "", s.OpenAIBaseURL),
	}
}
