package agent

import (
	"regexp"
	"strings"
	"sync"
)

// MintedCallPrefix starts every tool_use_id the app mints. A provider id
// with this prefix is never kept, so a minted id cannot be claimed by a
// provider (or a model that chooses its own ids).
const MintedCallPrefix = "ahcall_"

// keptCallID is the shape of a provider id the app keeps as its own: what
// both providers accept back and what names an output file as is.
var keptCallID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// CallIDs hands out the tool_use_ids of one session's tool calls: the id
// every event, stored message, tool card, output file and approval of the
// call uses. The provider's id is kept when it is well formed and new to
// the session; a missing, malformed or repeated one (a server that numbers
// its calls per response, or gives two calls one id) is replaced by a
// minted id (MintedCallPrefix + a ULID), and the provider's id is kept on
// the content block (store.ContentBlock.ProviderID) for the provider's next
// request. Safe for concurrent use.
type CallIDs struct {
	mu     sync.Mutex
	used   map[string]bool
	load   func() ([]string, error)
	loaded bool
	mint   bool
}

// NewCallIDs returns the namer of a session. load, called once before the
// first id is handed out, lists the ids the session already holds (its
// stored tool calls and results, every branch); nil means none. With
// alwaysMint every call gets a minted id (worker sessions: their calls are
// shown in their ancestors' views too, so their ids must be unique across
// the tree). When load fails, every id is minted.
func NewCallIDs(load func() ([]string, error), alwaysMint bool) *CallIDs {
	return &CallIDs{used: map[string]bool{}, load: load, mint: alwaysMint}
}

// Assign returns the id of a call the provider named providerID ("" when
// it sent none) and records it as used.
func (c *CallIDs) Assign(providerID string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.loaded {
		c.loaded = true
		if c.load != nil {
			ids, err := c.load()
			if err != nil {
				c.mint = true
			}
			for _, id := range ids {
				c.used[id] = true
			}
		}
	}
	id := providerID
	if c.mint || !keptCallID.MatchString(id) || strings.HasPrefix(id, MintedCallPrefix) || c.used[id] {
		id = MintedCallPrefix + NewID()
	}
	c.used[id] = true
	return id
}
