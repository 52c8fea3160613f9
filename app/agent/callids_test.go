package agent_test

import (
	"errors"
	"strings"
	"testing"

	"agenthub/app/agent"
)

// CallIDs keep a provider's id only when it is well formed, not of the
// minted shape and new to the session; everything else gets a fresh minted
// id, and no id is handed out twice.
func TestCallIDs(t *testing.T) {
	ids := agent.NewCallIDs(func() ([]string, error) { return []string{"toolu_old"}, nil }, false)
	minted := func(id string) bool { return strings.HasPrefix(id, agent.MintedCallPrefix) }
	seen := map[string]bool{}
	for _, c := range []struct {
		provider string
		keep     bool
	}{
		{"toolu_01A", true},
		{"toolu_01A", false}, // repeated in the session
		{"toolu_old", false}, // held by a stored message
		{"", false},          // missing
		{"call/../x", false}, // not [A-Za-z0-9_-]
		{strings.Repeat("a", 65), false},
		{agent.MintedCallPrefix + "01J0000000000000000000000", false}, // a claimed minted id
		{"ZyXw12345", true}, // Mistral's 9-char ids stay
	} {
		got := ids.Assign(c.provider)
		if seen[got] {
			t.Fatalf("Assign(%q) = %q, handed out before", c.provider, got)
		}
		seen[got] = true
		if kept := got == c.provider; kept != c.keep || (!kept && !minted(got)) {
			t.Fatalf("Assign(%q) = %q, want kept=%v", c.provider, got, c.keep)
		}
	}
	if got := agent.NewCallIDs(nil, true).Assign("toolu_new"); !minted(got) {
		t.Fatalf("a worker's namer kept %q", got)
	}
	failing := agent.NewCallIDs(func() ([]string, error) { return nil, errors.New("disk") }, false)
	if got := failing.Assign("toolu_new"); !minted(got) {
		t.Fatalf("a namer that could not read the session kept %q", got)
	}
}
