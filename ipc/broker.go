package ipc

import (
	"errors"
	"slices"
	"sync"

	"agenthub/store"
)

// broker is the set of live subscriptions, indexed so that publishing an
// event visits only the subscriptions that can want it: those of the
// event's session, plus those that include worker sessions (checked
// against the session tree). Idle subscribers of other sessions cost a
// commit nothing. Only the publisher goroutine publishes.
type broker struct {
	mu        sync.Mutex
	subs      map[*Subscription]struct{}
	bySession map[string][]*Subscription // subscriptions without include_worker_sessions
	trees     []*Subscription            // subscriptions with include_worker_sessions
	touched   []*Subscription            // publish's reusable list of subs with frames (under mu)
}

func (br *broker) init() {
	br.subs = map[*Subscription]struct{}{}
	br.bySession = map[string][]*Subscription{}
}

func (br *broker) add(s *Subscription) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if _, ok := br.subs[s]; ok {
		return
	}
	br.subs[s] = struct{}{}
	if s.filter.IncludeWorkerSessions {
		br.trees = append(br.trees, s)
	} else {
		br.bySession[s.sessionID] = append(br.bySession[s.sessionID], s)
	}
}

func (br *broker) remove(s *Subscription) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if _, ok := br.subs[s]; !ok {
		return
	}
	delete(br.subs, s)
	drop := func(list []*Subscription) []*Subscription {
		if i := slices.Index(list, s); i >= 0 {
			list = slices.Delete(list, i, i+1)
		}
		return list
	}
	if s.filter.IncludeWorkerSessions {
		br.trees = drop(br.trees)
		return
	}
	if list := drop(br.bySession[s.sessionID]); len(list) > 0 {
		br.bySession[s.sessionID] = list
	} else {
		delete(br.bySession, s.sessionID)
	}
}

// watched returns the sessions with a live subscription (the subscribed
// session of a subscription that includes workers).
func (br *broker) watched() []string {
	br.mu.Lock()
	defer br.mu.Unlock()
	out := make([]string, 0, len(br.bySession)+len(br.trees))
	for id := range br.bySession {
		out = append(out, id)
	}
	for _, s := range br.trees {
		out = append(out, s.sessionID)
	}
	return out
}

func (br *broker) all() []*Subscription {
	br.mu.Lock()
	defer br.mu.Unlock()
	out := make([]*Subscription, 0, len(br.subs))
	for s := range br.subs {
		out = append(out, s)
	}
	return out
}

// sessionTree caches session → parent for include_worker_sessions.
type sessionTree struct {
	db     StoreReader
	mu     sync.RWMutex
	parent map[string]string
}

func (t *sessionTree) init(db Store) {
	t.db = StoreReader{db}
	t.parent = map[string]string{}
}

func (t *sessionTree) set(id, parent string) {
	t.mu.Lock()
	t.parent[id] = parent
	t.mu.Unlock()
}

func (t *sessionTree) parentOf(id string) string {
	t.mu.RLock()
	p, ok := t.parent[id]
	t.mu.RUnlock()
	if ok {
		return p
	}
	s, err := t.db.Session(id)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "" // transient read error: do not cache
	}
	t.set(id, s.ParentSessionID)
	return s.ParentSessionID
}

// descends reports whether id is root or a (transitive) worker of root.
func (t *sessionTree) descends(id, root string) bool {
	for depth := 0; id != "" && depth < 64; depth++ {
		if id == root {
			return true
		}
		id = t.parentOf(id)
	}
	return false
}

// descendants returns root and every session below it, as stored in tx.
func descendants(tx StoreView, root string) ([]string, error) {
	ss, err := tx.Sessions()
	if err != nil {
		return nil, err
	}
	children := map[string][]string{}
	for _, s := range ss {
		if s.ParentSessionID != "" {
			children[s.ParentSessionID] = append(children[s.ParentSessionID], s.ID)
		}
	}
	out := []string{root}
	seen := map[string]bool{root: true}
	for i := 0; i < len(out); i++ {
		for _, c := range children[out[i]] {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out, nil
}
