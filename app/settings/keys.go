package settings

import (
	"errors"
	"fmt"

	"agenthub/app/secrets"
)

// apiKeys lists the settings fields that hold API keys, with the name each
// is stored under in the vault. settings.json keeps "secret:NAME" there.
func apiKeys(s *Settings) []struct {
	name string
	v    *string
} {
	return []struct {
		name string
		v    *string
	}{{"anthropic_api_key", &s.AnthropicAPIKey}, {"openai_api_key", &s.OpenAIAPIKey}}
}

// diskForm stores s's plain keys in the vault and returns s as
// settings.json keeps it: references instead of keys ("" deletes a key).
func diskForm(v secrets.Vault, s Settings) (Settings, error) {
	disk := s.Clone()
	for _, k := range apiKeys(&disk) {
		ref, err := secrets.Stash(v, k.name, *k.v)
		if err != nil {
			return Settings{}, fmt.Errorf("settings: store %s in the %s: %w", k.name, v.Where(), err)
		}
		*k.v = ref
	}
	return disk, nil
}

// hasPlainKeys reports whether settings.json holds a key in plain text.
func hasPlainKeys(s Settings) bool {
	for _, k := range apiKeys(&s) {
		if *k.v != "" && !secrets.IsRef(*k.v) {
			return true
		}
	}
	return false
}

// resolveKeys replaces the references in s by the stored keys. A
// reference the vault cannot answer is cleared (the provider is then not
// configured from settings) and reported.
func resolveKeys(v secrets.Vault, s *Settings) error {
	var errs []error
	for _, k := range apiKeys(s) {
		key, err := secrets.Resolve(v, *k.v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", k.name, err))
			key = ""
		}
		*k.v = key
	}
	return errors.Join(errs...)
}

// LoadKeys is the start-up half: plain keys found in settings.json move to
// the vault (and the file is rewritten with references), then references
// are resolved for the providers. moved reports whether keys moved.
func LoadKeys(dir string, v secrets.Vault, s *Settings) (moved bool, err error) {
	if hasPlainKeys(*s) {
		disk, err := diskForm(v, *s)
		if err != nil {
			return false, err
		}
		if err := Save(dir, disk); err != nil {
			return false, err
		}
		*s, moved = disk, true
	}
	return moved, resolveKeys(v, s)
}
