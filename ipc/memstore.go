package ipc

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oklog/ulid/v2"

	"agenthub/store"
)

// MemoryStore is the in-memory twin of the bbolt store: the same log and
// state with the same meaning (ipc/storetest pins it), nothing on disk. It
// is what most ipc tests run on, and a Store for a process that needs no
// durability. Every commit publishes a new immutable snapshot, so a View
// never blocks a commit nor sees one half done. The zero value is not
// usable; call NewMemoryStore.
type MemoryStore struct {
	epoch string
	mu    sync.Mutex // serialises Commit and Prune
	state atomic.Pointer[memState]
}

var _ Store = (*MemoryStore)(nil)

// NewMemoryStore returns an empty store with a fresh epoch (floor zero).
func NewMemoryStore() *MemoryStore {
	m := &MemoryStore{epoch: ulid.MustNew(ulid.Now(), rand.Reader).String()}
	m.state.Store(&memState{
		sessions: map[string]store.Session{},
		messages: map[string]memMessages{},
		turns:    map[string]map[string]store.Turn{},
		sessEv:   map[string][]store.EventRecord{},
		groups:   map[string]ulid.ULID{},
	})
	return m
}

// Epoch returns the store's epoch id, fixed for its lifetime.
func (m *MemoryStore) Epoch() string { return m.epoch }

// EpochFloor is always zero: a memory store's epoch begins empty.
func (m *MemoryStore) EpochFloor() ulid.ULID { return ulid.ULID{} }

// View runs fn on the newest committed snapshot.
func (m *MemoryStore) View(fn func(StoreView) error) error { return fn(m.state.Load()) }

// Commit appends events and applies ops on a copy of the newest snapshot
// and publishes the copy only if all of it succeeded.
func (m *MemoryStore) Commit(events []store.EventRecord, ops []store.Op) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	next := m.state.Load().clone()
	if err := next.appendEvents(events); err != nil {
		return fmt.Errorf("ipc: memory store: commit %d events, %d ops: %w", len(events), len(ops), err)
	}
	for i, op := range ops {
		if err := next.apply(op); err != nil {
			return fmt.Errorf("ipc: memory store: commit %d events, %d ops: op %d: %w", len(events), len(ops), i, err)
		}
	}
	m.state.Store(next)
	return nil
}

// Prune deletes what retention allows (Store.Prune) in one step.
func (m *MemoryStore) Prune(now time.Time, eventRetention, deltaRetention time.Duration) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	next := m.state.Load().clone()
	n := next.prune(ulid.Timestamp(now.Add(-eventRetention)), ulid.Timestamp(now.Add(-deltaRetention)))
	m.state.Store(next)
	return n, nil
}

// memMessages is one session's messages by offset, with an id index.
type memMessages struct {
	byOffset []store.Message
	offset   map[string]int
}

// memState is one immutable snapshot. clone copies the top-level maps;
// whatever a commit changes below them it copies before writing (event
// slices are only appended to, beyond the length older snapshots see).
type memState struct {
	sessions map[string]store.Session
	messages map[string]memMessages
	turns    map[string]map[string]store.Turn
	events   []store.EventRecord            // ascending ids
	sessEv   map[string][]store.EventRecord // per session, ascending ids
	groups   map[string]ulid.ULID           // streaming group → its closing event
	last     ulid.ULID                      // newest id ever committed
	pruned   ulid.ULID                      // newest id retention deleted
}

var _ StoreView = (*memState)(nil)

func (s *memState) clone() *memState {
	c := *s
	c.sessions = maps(s.sessions)
	c.messages = maps(s.messages)
	c.turns = maps(s.turns)
	c.sessEv = maps(s.sessEv)
	c.groups = maps(s.groups)
	return &c
}

func maps[K comparable, V any](m map[K]V) map[K]V {
	c := make(map[K]V, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (s *memState) appendEvents(events []store.EventRecord) error {
	for i := range events {
		r := events[i]
		if r.ID.Compare(s.last) <= 0 {
			return fmt.Errorf("event %d: id %s is not greater than the newest id %s", i, r.ID, s.last)
		}
		if r.SessionID == "" || r.Type == "" {
			return fmt.Errorf("event %s: session id and type are required", r.ID)
		}
		s.last = r.ID
		r.Data = slices.Clone(r.Data) // the caller may reuse its buffer
		s.events = append(s.events, r)
		s.sessEv[r.SessionID] = append(s.sessEv[r.SessionID], r)
		if r.Closes != "" {
			s.groups[r.Closes] = r.ID
		}
	}
	return nil
}

func (s *memState) apply(op store.Op) error {
	if err := op.Check(); err != nil {
		return err
	}
	// Records are stored as bbolt stores them: through JSON, so a reader
	// gets the same values (and never the caller's slices).
	if err := storedForm(&op); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	notFound := func(sid string) error { return fmt.Errorf("%s: session %s: %w", op, sid, store.ErrNotFound) }
	switch op.Kind {
	case store.OpPutSession:
		s.sessions[op.Session.ID] = op.Session
	case store.OpDeleteSession:
		delete(s.sessions, op.SessionID)
		delete(s.messages, op.SessionID)
		delete(s.turns, op.SessionID)
	case store.OpPutMessage:
		m := op.Message
		m.Turn, m.Siblings = nil, nil // joined or computed on every read, as store.DB does
		if _, ok := s.sessions[m.SessionID]; !ok {
			return notFound(m.SessionID)
		}
		old := s.messages[m.SessionID]
		ms := memMessages{byOffset: slices.Clone(old.byOffset), offset: maps(old.offset)}
		if off, ok := ms.offset[m.ID]; ok {
			m.Offset = int64(off)
			ms.byOffset[off] = m
		} else {
			m.Offset = int64(len(ms.byOffset))
			ms.offset[m.ID] = len(ms.byOffset)
			ms.byOffset = append(ms.byOffset, m)
		}
		s.messages[m.SessionID] = ms
	case store.OpPutTurn:
		t := op.Turn
		if _, ok := s.sessions[t.SessionID]; !ok {
			return notFound(t.SessionID)
		}
		ts := maps(s.turns[t.SessionID])
		ts[t.ID] = t
		s.turns[t.SessionID] = ts
	}
	return nil
}

// storedForm replaces op's record by its JSON round trip.
func storedForm(op *store.Op) error {
	switch op.Kind {
	case store.OpPutSession:
		return roundTrip(&op.Session)
	case store.OpPutMessage:
		return roundTrip(&op.Message)
	case store.OpPutTurn:
		return roundTrip(&op.Turn)
	}
	return nil
}

func roundTrip[T any](v *T) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		return err
	}
	*v = out
	return nil
}

// prune keeps the events retention allows, in new slices (older snapshots
// keep theirs), and forgets groups closed before the event cut.
func (s *memState) prune(eventCut, deltaCut uint64) int {
	dead := func(r *store.EventRecord) bool {
		if r.ID.Time() < eventCut {
			return true
		}
		if r.Streaming && r.Group != "" {
			if g, ok := s.groups[r.Group]; ok {
				return g.Time() < deltaCut
			}
		}
		return false
	}
	var kept []store.EventRecord
	n := 0
	for i := range s.events {
		if dead(&s.events[i]) {
			n++
			if s.events[i].ID.Compare(s.pruned) > 0 {
				s.pruned = s.events[i].ID
			}
			continue
		}
		kept = append(kept, s.events[i])
	}
	if n > 0 {
		s.events = kept
		for sid, evs := range s.sessEv {
			s.sessEv[sid] = slices.DeleteFunc(slices.Clone(evs), func(r store.EventRecord) bool { return dead(&r) })
		}
	}
	for g, id := range s.groups {
		if id.Time() < eventCut {
			delete(s.groups, g)
		}
	}
	return n
}

// Session implements StoreView.
func (s *memState) Session(id string) (store.Session, error) {
	sess, ok := s.sessions[id]
	if !ok {
		return sess, fmt.Errorf("session %s: %w", id, store.ErrNotFound)
	}
	return sess, nil
}

// Sessions implements StoreView.
func (s *memState) Sessions() ([]store.Session, error) {
	out := make([]store.Session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		out = append(out, sess)
	}
	slices.SortFunc(out, func(a, b store.Session) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Message implements StoreView.
func (s *memState) Message(sessionID, id string) (store.Message, error) {
	ms := s.messages[sessionID]
	if off, ok := ms.offset[id]; ok {
		return s.withTurn(ms.byOffset[off]), nil
	}
	return store.Message{}, fmt.Errorf("message %s in session %s: %w", id, sessionID, store.ErrNotFound)
}

// MessageCount implements StoreView.
func (s *memState) MessageCount(sessionID string) int { return len(s.messages[sessionID].byOffset) }

// Messages implements StoreView.
func (s *memState) Messages(sessionID string, offset, limit int) ([]store.Message, int, error) {
	all := s.messages[sessionID].byOffset
	offset = min(max(offset, 0), len(all))
	end := len(all)
	if limit > 0 {
		end = min(end, offset+limit)
	}
	if offset == end {
		return nil, len(all), nil
	}
	return s.withTurns(slices.Clone(all[offset:end])), len(all), nil
}

// withTurn joins the outcome of the turn a user message started onto it.
func (s *memState) withTurn(m store.Message) store.Message {
	if m.Role == store.RoleUser && m.TurnID != "" {
		if t, ok := s.turns[m.SessionID][m.TurnID]; ok {
			m.Turn = t.Outcome()
		}
	}
	return m
}

func (s *memState) withTurns(ms []store.Message) []store.Message {
	for i := range ms {
		ms[i] = s.withTurn(ms[i])
	}
	return ms
}

// MessagesBefore implements StoreView.
func (s *memState) MessagesBefore(sessionID, beforeID string, limit int) ([]store.Message, bool, error) {
	if limit <= 0 {
		limit = 50
	}
	ms := s.messages[sessionID]
	end := len(ms.byOffset)
	if beforeID != "" {
		off, ok := ms.offset[beforeID]
		if !ok {
			return nil, false, fmt.Errorf("message %s in session %s: %w", beforeID, sessionID, store.ErrNotFound)
		}
		end = off
	}
	start := max(end-limit, 0)
	if start == end {
		return nil, false, nil
	}
	return s.withTurns(slices.Clone(ms.byOffset[start:end])), start > 0, nil
}

// Turns implements StoreView.
func (s *memState) Turns(sessionID string) ([]store.Turn, error) {
	var out []store.Turn
	for _, t := range s.turns[sessionID] {
		out = append(out, t)
	}
	sortTurns(out)
	return out, nil
}

// TurnsWithStatus implements StoreView.
func (s *memState) TurnsWithStatus(status ...string) ([]store.Turn, error) {
	var out []store.Turn
	for _, ts := range s.turns {
		for _, t := range ts {
			if slices.Contains(status, t.Status) {
				out = append(out, t)
			}
		}
	}
	sortTurns(out)
	return out, nil
}

func sortTurns(ts []store.Turn) {
	slices.SortFunc(ts, func(a, b store.Turn) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// after returns the index of the first event of evs with id > id.
func after(evs []store.EventRecord, id ulid.ULID) int {
	return sort.Search(len(evs), func(i int) bool { return evs[i].ID.Compare(id) > 0 })
}

// EventsAfter implements StoreView: a merge of the sessions' lists.
func (s *memState) EventsAfter(sessionIDs []string, from ulid.ULID, fn func(store.EventRecord) error) error {
	var heads [][]store.EventRecord
	seen := map[string]bool{}
	for _, sid := range sessionIDs {
		if seen[sid] {
			continue
		}
		seen[sid] = true
		if evs := s.sessEv[sid]; len(evs) > 0 {
			if rest := evs[after(evs, from):]; len(rest) > 0 {
				heads = append(heads, rest)
			}
		}
	}
	for len(heads) > 0 {
		low := 0
		for i := 1; i < len(heads); i++ {
			if heads[i][0].ID.Compare(heads[low][0].ID) < 0 {
				low = i
			}
		}
		if err := fn(heads[low][0]); err != nil {
			return err
		}
		if heads[low] = heads[low][1:]; len(heads[low]) == 0 {
			heads = slices.Delete(heads, low, low+1)
		}
	}
	return nil
}

// EventsBefore implements StoreView.
func (s *memState) EventsBefore(sessionID string, before ulid.ULID, fn func(store.EventRecord) error) error {
	evs := s.sessEv[sessionID]
	end := len(evs)
	if before != (ulid.ULID{}) {
		end = sort.Search(len(evs), func(i int) bool { return evs[i].ID.Compare(before) >= 0 })
	}
	for i := end - 1; i >= 0; i-- {
		if err := fn(evs[i]); err != nil {
			if errors.Is(err, store.ErrStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

// Event implements StoreView.
func (s *memState) Event(id ulid.ULID) (store.EventRecord, error) {
	i := sort.Search(len(s.events), func(i int) bool { return s.events[i].ID.Compare(id) >= 0 })
	if i < len(s.events) && s.events[i].ID == id {
		return s.events[i], nil
	}
	return store.EventRecord{}, fmt.Errorf("event %s: %w", id, store.ErrNotFound)
}

// PrunedThrough implements StoreView.
func (s *memState) PrunedThrough() ulid.ULID { return s.pruned }

// LastEventID implements StoreView.
func (s *memState) LastEventID() ulid.ULID { return s.last }
