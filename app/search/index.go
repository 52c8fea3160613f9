// Package search is Agent Hub's full-text search over every message of
// every session: an in-memory inverted index (word → messages) kept in
// step with the store by wrapping its Commit, built from the store in the
// background at start. Hits are read back from the store for their
// snippets, so the index holds words and ids, never the text.
package search

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"agenthub/ipc"
	"agenthub/store"
)

// maxIndexedBytes bounds the text of one message that is indexed (a huge
// tool output is searchable by its first 64 KiB).
const maxIndexedBytes = 64 << 10

// doc is one indexed message.
type doc struct {
	session, message string
	dead             bool // deleted or replaced by a newer version
}

// Index is the inverted index. It implements ipc.Searcher (through Hub).
// Create it with Open; all methods are safe for concurrent use.
type Index struct {
	st  ipc.Store
	log *slog.Logger

	ready chan struct{} // closed when the initial build is done
	stop  chan struct{}
	done  sync.WaitGroup

	mu        sync.RWMutex
	loading   bool
	pending   [][]store.Op // commits seen while loading, applied after it
	docs      []doc
	byKey     map[string]uint32   // session "\x00" message → live doc
	bySession map[string][]uint32 // every doc of a session
	postings  map[string][]uint32 // word → docs, ascending
	seen      map[string]bool     // scratch of putLocked
	loadErr   error
}

// Open returns an index over st and the Store to hand the bus instead of
// st: the same store, whose successful commits also update the index. The
// index builds itself from st in the background; Search waits for that.
// Close stops the build.
func Open(st ipc.Store, log *slog.Logger) (*Index, ipc.Store) {
	if log == nil {
		log = slog.Default()
	}
	x := &Index{
		st: st, log: log, ready: make(chan struct{}), stop: make(chan struct{}), loading: true,
		byKey: map[string]uint32{}, bySession: map[string][]uint32{}, postings: map[string][]uint32{}, seen: map[string]bool{},
	}
	x.done.Add(1)
	go x.build()
	return x, indexedStore{Store: st, x: x}
}

// Close stops the initial build if it still runs and waits for it.
func (x *Index) Close() {
	select {
	case <-x.stop:
	default:
		close(x.stop)
	}
	x.done.Wait()
}

// Ready is closed once the initial build is done.
func (x *Index) Ready() <-chan struct{} { return x.ready }

// indexedStore is the Store whose commits feed the index.
type indexedStore struct {
	ipc.Store
	x *Index
}

// Commit implements ipc.Store.
func (s indexedStore) Commit(events []store.EventRecord, ops []store.Op) error {
	if err := s.Store.Commit(events, ops); err != nil {
		return err
	}
	s.x.commit(ops)
	return nil
}

func (x *Index) commit(ops []store.Op) {
	if !relevant(ops) {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.loading {
		x.pending = append(x.pending, ops)
		return
	}
	x.applyLocked(ops)
}

func relevant(ops []store.Op) bool {
	for _, op := range ops {
		if op.Kind == store.OpPutMessage || op.Kind == store.OpDeleteSession {
			return true
		}
	}
	return false
}

// build indexes every stored message, then the commits made meanwhile (a
// commit both in the build's view and pending is applied twice, which
// re-putting a message by id makes harmless).
func (x *Index) build() {
	defer x.done.Done()
	defer close(x.ready)
	err := x.st.View(func(v ipc.StoreView) error {
		sessions, err := v.Sessions()
		if err != nil {
			return err
		}
		for _, s := range sessions {
			select {
			case <-x.stop:
				return errors.New("search: index build stopped")
			default:
			}
			msgs, _, err := v.Messages(s.ID, 0, 0)
			if err != nil {
				return err
			}
			x.mu.Lock()
			for _, m := range msgs {
				x.putLocked(m)
			}
			x.mu.Unlock()
		}
		return nil
	})
	x.mu.Lock()
	defer x.mu.Unlock()
	if err != nil {
		x.loadErr = fmt.Errorf("search: building the index: %w", err)
		x.log.Error("search: building the index", "err", err)
	}
	for _, ops := range x.pending {
		x.applyLocked(ops)
	}
	x.pending, x.loading = nil, false
}

func (x *Index) applyLocked(ops []store.Op) {
	for _, op := range ops {
		switch op.Kind {
		case store.OpPutMessage:
			x.putLocked(op.Message)
		case store.OpDeleteSession:
			for _, d := range x.bySession[op.SessionID] {
				x.docs[d].dead = true
				delete(x.byKey, op.SessionID+"\x00"+x.docs[d].message)
			}
			delete(x.bySession, op.SessionID)
		}
	}
}

func (x *Index) putLocked(m store.Message) {
	key := m.SessionID + "\x00" + m.ID
	if old, ok := x.byKey[key]; ok {
		x.docs[old].dead = true
	}
	id := uint32(len(x.docs))
	x.docs = append(x.docs, doc{session: m.SessionID, message: m.ID})
	x.byKey[key] = id
	x.bySession[m.SessionID] = append(x.bySession[m.SessionID], id)
	seen := x.seen
	clear(seen)
	for w := range words(indexedText(m)) {
		if seen[w] {
			continue
		}
		seen[w] = true
		list, ok := x.postings[w]
		if !ok {
			w = strings.Clone(w) // do not keep the message's text alive
		}
		x.postings[w] = append(list, id)
	}
}

// indexedText is the text a message is found by: its text blocks (a tool
// result's output included), at most maxIndexedBytes.
func indexedText(m store.Message) string {
	var b strings.Builder
	for _, c := range m.Content {
		if c.Type == store.BlockText && c.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(c.Text)
		}
		if b.Len() >= maxIndexedBytes {
			break
		}
	}
	s := b.String()
	if len(s) > maxIndexedBytes {
		s = strings.ToValidUTF8(s[:maxIndexedBytes], "")
	}
	return s
}

// Search implements ipc.Searcher.
func (x *Index) Search(ctx context.Context, query string, limit int) ([]ipc.SearchHit, error) {
	if limit == 0 {
		limit = ipc.DefaultSearchLimit
	}
	if limit < 1 || limit > ipc.MaxSearchLimit {
		return nil, fmt.Errorf("limit %d: want 1 to %d: %w", limit, ipc.MaxSearchLimit, ipc.ErrInvalidInput)
	}
	if len(query) > ipc.MaxSearchQuery {
		return nil, fmt.Errorf("query longer than %d bytes: %w", ipc.MaxSearchQuery, ipc.ErrInvalidInput)
	}
	terms := slices.Collect(words(query))
	if len(terms) == 0 {
		return nil, fmt.Errorf("the query %q has no words to search for: %w", query, ipc.ErrInvalidInput)
	}
	select {
	case <-x.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	found := x.match(terms, limit)
	return x.hits(found, terms)
}

// match returns up to limit live docs containing every term (the last one
// also as a prefix), newest first.
func (x *Index) match(terms []string, limit int) []doc {
	x.mu.RLock()
	defer x.mu.RUnlock()
	lists := make([][]uint32, 0, len(terms))
	for i, t := range terms {
		var l []uint32
		if i == len(terms)-1 && len([]rune(t)) >= 2 {
			l = x.withPrefix(t)
		} else {
			l = x.postings[t]
		}
		if len(l) == 0 {
			return nil
		}
		lists = append(lists, l)
	}
	slices.SortFunc(lists, func(a, b []uint32) int { return len(a) - len(b) })
	var out []doc
	first := lists[0]
	for i := len(first) - 1; i >= 0 && len(out) < limit; i-- {
		d := first[i]
		if x.docs[d].dead || !inAll(lists[1:], d) {
			continue
		}
		out = append(out, x.docs[d])
	}
	return out
}

// withPrefix is the union of the postings of every word starting with p.
func (x *Index) withPrefix(p string) []uint32 {
	var out []uint32
	n := 0
	for w, l := range x.postings {
		if strings.HasPrefix(w, p) {
			out = append(out, l...)
			n++
		}
	}
	if n > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

func inAll(lists [][]uint32, d uint32) bool {
	for _, l := range lists {
		if _, ok := slices.BinarySearch(l, d); !ok {
			return false
		}
	}
	return true
}

// hits reads the found messages back for their snippets.
func (x *Index) hits(found []doc, terms []string) ([]ipc.SearchHit, error) {
	out := make([]ipc.SearchHit, 0, len(found))
	err := x.st.View(func(v ipc.StoreView) error {
		titles := map[string]string{}
		for _, d := range found {
			m, err := v.Message(d.session, d.message)
			if errors.Is(err, store.ErrNotFound) {
				continue // deleted since
			}
			if err != nil {
				return err
			}
			title, ok := titles[d.session]
			if !ok {
				if s, err := v.Session(d.session); err == nil {
					title = s.Title
				}
				titles[d.session] = title
			}
			out = append(out, ipc.SearchHit{
				SessionID: d.session, MessageID: d.message, Snippet: Snippet(indexedText(m), terms),
				Role: m.Role, Offset: m.Offset, SessionTitle: title, ToolUseID: m.ToolCallID,
			})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("search: reading hits: %w", err)
	}
	return out, nil
}
