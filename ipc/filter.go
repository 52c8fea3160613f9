package ipc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Filter presets accepted in place of a filter object (seed 001 §3.3).
const (
	PresetChat = "preset:chat"
	PresetFull = "preset:full"
)

// ChatTypes is what preset:chat resolves to: token deltas, message
// lifecycle, tool events, route.decided, turn lifecycle (with llm.call_failed
// so errors are visible), delegation and compaction. Catalog order.
var ChatTypes = []string{
	TypeTurnStarted, TypeRouteDecided, TypeLLMCallFailed, TypeLLMCallStalled,
	TypeToolCalled, TypeToolCompleted, TypeToolFailed,
	TypeToolApprovalRequested, TypeToolApprovalResolved,
	TypeTurnCompleted, TypeTurnCancelled,
	TypeDelegateStarted, TypeDelegateCompleted, TypeDelegateFailed,
	TypeCompactionStarted, TypeCompactionComplete, TypeMCPServerStatus, TypeTurnUndone,
	TypeSessionBranched, TypeSessionForked, TypeTodoUpdated,
	TypeMessageStart, TypeMessageReset, TypeTextDelta, TypeThinkingDelta,
	TypeToolUseStart, TypeToolUseInputDelta, TypeToolUseEnd, TypeToolOutputDelta,
	TypeMessageComplete,
}

// Filter is a normalised subscription filter, as echoed in
// subscribe_ack.resolved_filter. A nil EventTypes matches every type
// (including types this build does not know); a nil Actors matches every
// actor. IncludeWorkerSessions adds the events of every descendant
// (worker) session of the subscribed session.
type Filter struct {
	EventTypes            []string `json:"event_types"`
	Actors                []string `json:"actors"`
	IncludeWorkerSessions bool     `json:"include_worker_sessions"`

	types  map[string]bool
	actors map[string]bool
}

// FilterError is a rejected filter; Offending is the string at fault.
type FilterError struct {
	Offending string
	Message   string
}

// Error implements error.
func (e *FilterError) Error() string { return e.Message }

// ParseFilter decodes and validates a subscribe frame's filter: a preset
// string ("preset:chat", "preset:full") or an object. An absent/null filter
// matches everything. Validation is strict: an event type outside both
// families, an actor outside Actors, a wrong JSON type or an unknown preset
// is a *FilterError naming the offending string.
func ParseFilter(raw json.RawMessage) (Filter, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Filter{}.normalise(), nil
	}
	if raw[0] == '"' {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return Filter{}, &FilterError{Offending: string(raw), Message: "filter: malformed string"}
		}
		switch name {
		case PresetFull:
			return Filter{EventTypes: allTypes()}.normalise(), nil
		case PresetChat:
			return Filter{EventTypes: slices.Clone(ChatTypes)}.normalise(), nil
		}
		return Filter{}, &FilterError{Offending: name, Message: fmt.Sprintf("filter: unknown preset %q (want %q or %q or an object)", name, PresetChat, PresetFull)}
	}
	var obj struct {
		EventTypes            json.RawMessage `json:"event_types"`
		Actors                json.RawMessage `json:"actors"`
		IncludeWorkerSessions *bool           `json:"include_worker_sessions"`
	}
	if raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return Filter{}, &FilterError{Offending: truncate(string(raw)), Message: "filter: must be a preset string or an object, got " + truncate(string(raw))}
	}
	var f Filter
	var err error
	if f.EventTypes, err = stringList("event_types", obj.EventTypes); err != nil {
		return Filter{}, err
	}
	if f.Actors, err = stringList("actors", obj.Actors); err != nil {
		return Filter{}, err
	}
	if obj.IncludeWorkerSessions != nil {
		f.IncludeWorkerSessions = *obj.IncludeWorkerSessions
	}
	for _, t := range f.EventTypes {
		if _, ok := TierOf(t); !ok {
			return Filter{}, &FilterError{Offending: t, Message: fmt.Sprintf("filter: unknown event type %q", t)}
		}
	}
	for _, a := range f.Actors {
		if !slices.Contains(Actors, a) {
			return Filter{}, &FilterError{Offending: a, Message: fmt.Sprintf("filter: unknown actor %q", a)}
		}
	}
	return f.normalise(), nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// stringList decodes null/absent (nil) or an array of strings.
func stringList(field string, raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &FilterError{Offending: truncate(string(raw)), Message: fmt.Sprintf("filter: %s must be an array of strings or null, got %s", field, truncate(string(raw)))}
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		var s string
		if err := json.Unmarshal(it, &s); err != nil {
			return nil, &FilterError{Offending: truncate(string(it)), Message: fmt.Sprintf("filter: %s entry %s is not a string", field, truncate(string(it)))}
		}
		out = append(out, s)
	}
	return out, nil
}

func allTypes() []string {
	return append(slices.Clone(BusTypes), StreamingTypes...)
}

// normalise sorts lists into catalog order, drops duplicates and builds the
// lookup sets.
func (f Filter) normalise() Filter {
	if f.EventTypes != nil {
		set := map[string]bool{}
		for _, t := range f.EventTypes {
			set[t] = true
		}
		f.EventTypes = f.EventTypes[:0:0]
		for _, t := range allTypes() {
			if set[t] {
				f.EventTypes = append(f.EventTypes, t)
			}
		}
		f.types = set
	}
	if f.Actors != nil {
		set := map[string]bool{}
		for _, a := range f.Actors {
			set[a] = true
		}
		f.Actors = f.Actors[:0:0]
		for _, a := range Actors {
			if set[a] {
				f.Actors = append(f.Actors, a)
			}
		}
		f.actors = set
	}
	return f
}

// Match reports whether an event of this type and actor passes the filter
// (sessions are matched by the subscription).
func (f *Filter) Match(eventType, actor string) bool {
	if f.EventTypes != nil && !f.types[eventType] {
		return false
	}
	if f.Actors != nil && !f.actors[actor] {
		return false
	}
	return true
}
