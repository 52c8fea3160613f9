package ipc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// SubscribeRequest is a subscribe frame plus the session it targets (from the
// connection's URL) and a name for warnings and logs.
type SubscribeRequest struct {
	SessionID string
	Filter    json.RawMessage // object, "preset:chat"/"preset:full", or empty for everything
	Since     *string         // cursor: replay events after it
	Snapshot  bool
	Name      string // e.g. "dashboard 127.0.0.1:53122"; shown in bus.handler_warning
	// Dialect is the subscribe frame's "dialect" ("" = canonical): event
	// frames are re-encoded by NewEncoder(Dialect); other frames (snapshot)
	// pass unchanged.
	Dialect string
	// KnownMessageIDs are the messages the client already holds (the
	// subscribe frame's additive known_message_ids, e.g. a reloaded page's
	// history): a dialect resume does not reopen them. nil: not said.
	KnownMessageIDs []string
}

// Subscription is one client's ordered frame stream: optional snapshot, the
// replayed events, then live events, with no gap and no duplicate at the
// seam. Live events are queued (at most ClientQueue events) from the moment
// of Subscribe; replayed events are read from bbolt and handed over at the
// consumer's pace, outside that queue. A full queue is never the end of a
// subscription: the queue is dropped and the missing events are read back
// from the log (see pump.go). Only a consumer that takes nothing for
// ClientStall is closed, with client_too_slow.
type Subscription struct {
	bus       *Bus
	name      string
	sessionID string
	filter    Filter
	ack       SubscribeAckFrame
	initial   []OutFrame // snapshot + replay
	seam      string     // live events with id <= seam are already covered
	enc       Encoder    // nil for the canonical dialect; pump-only

	queue subQueue    // live events handed over by the writer, in batches
	batch []OutFrame  // writer-only scratch: this commit's frames for s
	stall *time.Timer // pump-only: armed while send waits on a full hand-off buffer

	out  chan OutFrame
	done chan struct{}
	ctx  context.Context

	stopOnce sync.Once
	stop     chan struct{}
	errMu    sync.Mutex
	err      error
	failed   chan struct{}
	failOnce sync.Once
}

// Ack returns the subscribe_ack frame to send first (it is not in Frames).
func (s *Subscription) Ack() SubscribeAckFrame { return s.ack }

// Frames returns the ordered frames: the snapshot (if requested), replayed
// events, then live events. It is closed when the subscription ends.
func (s *Subscription) Frames() <-chan OutFrame { return s.out }

// Done is closed when the subscription has ended (Close, ctx, bus Close, or
// a consumer stalled for ClientStall).
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err returns why the subscription ended: a *SubscribeError with Code
// client_too_slow after a stalled consumer (the transport closes 1008 with
// Frame() as reason), ErrClosed/ctx error otherwise, nil while running.
func (s *Subscription) Err() error {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.err
}

// Close ends the subscription and releases its queue. Idempotent.
func (s *Subscription) Close() {
	s.stopOnce.Do(func() { close(s.stop) })
}

func (s *Subscription) setErr(err error) {
	s.errMu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.errMu.Unlock()
}

// fail ends the subscription with err (Bus.tooSlow).
func (s *Subscription) fail(err error) {
	s.setErr(err)
	s.failOnce.Do(func() { close(s.failed) })
}

// matches reports whether a live event belongs in this stream.
func (s *Subscription) matches(sessionID, typ, actor string) bool {
	if !s.filter.Match(typ, actor) {
		return false
	}
	if sessionID == s.sessionID {
		return true
	}
	return s.filter.IncludeWorkerSessions && s.bus.tree.descends(sessionID, s.sessionID)
}

var errReplayTooLarge = errors.New("replay too large")

// Subscribe validates req, registers the live queue, then in one read
// transaction checks the session and cursor and reads the snapshot and/or
// the replay. Errors are *SubscribeError: invalid_filter (naming the
// offending string), session_not_found (absent or deleted), cursor_expired
// (malformed, unknown, pruned or from an earlier epoch: the log was replaced or restored), replay_too_large
// (more than ReplayLimit matching events after the cursor), and
// invalid_filter for an unknown dialect. With Snapshot
// set, the snapshot replaces replay (Since is echoed but not replayed). The
// subscription lives until Close, ctx ends, the bus closes or its consumer stalls.
func (b *Bus) Subscribe(ctx context.Context, req SubscribeRequest) (*Subscription, error) {
	s, cursor, err := b.newSubscription(ctx, req)
	if err != nil {
		return nil, err
	}
	b.mu.RLock()
	closed := b.closed
	if !closed {
		b.wg.Add(1)     // the pump's; released below if Subscribe fails
		b.broker.add(s) // buffering of live events starts here
	}
	b.mu.RUnlock()
	if closed {
		return nil, ErrClosed
	}
	replayed := 0
	err = b.db.View(func(tx StoreView) error {
		replayed, err = b.initialFrames(tx, s, req, cursor)
		return err
	})
	if err != nil {
		b.broker.remove(s)
		b.wg.Done()
		var se *SubscribeError
		if errors.As(err, &se) {
			return nil, se
		}
		return nil, fmt.Errorf("ipc: subscribe to %s: %w", req.SessionID, err)
	}
	if len(s.initial) == 0 {
		// Nothing to hand over first: live at once (unless a burst already
		// overflowed the queue, in which case the pump catches up first).
		s.queue.markLive()
	}
	dialect := req.Dialect
	if dialect == "" {
		dialect = DialectCanonical
	}
	s.ack = SubscribeAckFrame{Type: "subscribe_ack", ResolvedFilter: s.filter, Since: req.Since,
		Snapshot: req.Snapshot, ReplayEventCount: replayed, Epoch: b.db.Epoch(), Dialect: dialect}
	go s.pump()
	return s, nil
}

// newSubscription validates req (filter, dialect, cursor syntax) and builds
// the subscription, not yet registered.
func (b *Bus) newSubscription(ctx context.Context, req SubscribeRequest) (*Subscription, ulid.ULID, error) {
	var cursor ulid.ULID
	filter, err := ParseFilter(req.Filter)
	if err != nil {
		return nil, cursor, &SubscribeError{Code: CodeInvalidFilter, Message: err.Error()}
	}
	enc, err := b.newEncoder(req.Dialect, req.SessionID)
	if err != nil {
		return nil, cursor, &SubscribeError{Code: CodeInvalidFilter, Message: err.Error()}
	}
	if w, ok := enc.(WorkerSessionsEncoder); ok && w.IncludesWorkerSessions() {
		filter.IncludeWorkerSessions = true
	}
	if req.Since != nil && !req.Snapshot {
		if cursor, err = ulid.ParseStrict(*req.Since); err != nil {
			return nil, cursor, &SubscribeError{Code: CodeCursorExpired, Message: fmt.Sprintf("cursor %q is not a valid event id; resubscribe with snapshot: true", truncate(*req.Since))}
		}
	}
	s := &Subscription{
		bus: b, name: req.Name, sessionID: req.SessionID, filter: filter, ctx: ctx, enc: enc,
		out:  make(chan OutFrame, outBuffer),
		done: make(chan struct{}), stop: make(chan struct{}), failed: make(chan struct{}),
	}
	var direct chan<- OutFrame
	if enc == nil {
		direct = s.out
	}
	s.queue.init(b.opts.ClientQueue, direct)
	if s.name == "" {
		s.name = "subscriber"
	}
	return s, cursor, nil
}

// initialFrames checks the session and reads what the subscriber gets
// before live events — the snapshot, or the replay after the cursor — into
// s.initial, all from one view. It returns the number of events replayed.
func (b *Bus) initialFrames(tx StoreView, s *Subscription, req SubscribeRequest, cursor ulid.ULID) (int, error) {
	sess, err := tx.Session(req.SessionID)
	if errors.Is(err, store.ErrNotFound) {
		return 0, &SubscribeError{Code: CodeSessionNotFound, Message: fmt.Sprintf("session %q not found", truncate(req.SessionID))}
	} else if err != nil {
		return 0, err
	}
	head := tx.LastEventID()
	if head != (ulid.ULID{}) {
		s.seam = head.String()
	}
	if req.Snapshot {
		snap, _, err := b.snapshot(tx, sess, head)
		if err != nil {
			return 0, err
		}
		if hs, ok := s.enc.(StoreSnapshotEncoder); ok {
			if snap, err = hs.SnapshotIn(tx, snap); err != nil {
				return 0, err
			}
		} else if s.enc != nil {
			if snap, err = s.enc.Snapshot(snap); err != nil {
				return 0, err
			}
		}
		s.initial = append(s.initial, OutFrame{Data: snap})
		return 0, b.resumeDialect(tx, s, req, head, false)
	}
	if req.Since == nil {
		return 0, nil
	}
	if err := b.checkCursor(tx, cursor); err != nil {
		return 0, err
	}
	if err := b.resumeDialect(tx, s, req, cursor, true); err != nil {
		return 0, err
	}
	return b.replay(tx, s, cursor)
}

// resumeDialect appends the frames that reopen what was in flight just
// after event at (zero: the newest) in s's dialect — an open message's
// content so far, with its start for a snapshot subscription (fromCursor
// false), or the running turn — so a dialect client resumes as a canonical
// one does (the canonical stream needs none: its snapshot holds the partial
// message and a cursor client kept its own). Nothing for canonical.
func (b *Bus) resumeDialect(tx StoreView, s *Subscription, req SubscribeRequest, at ulid.ULID, fromCursor bool) error {
	if s.enc == nil {
		return nil
	}
	rp, err := ResumePointAt(tx, s.sessionID, s.filter, at, fromCursor, req.KnownMessageIDs)
	if err != nil {
		return err
	}
	frames, err := s.enc.Resume(rp)
	if err != nil {
		return fmt.Errorf("ipc: resume %s in its dialect: %w", s.name, err)
	}
	for _, f := range frames {
		s.initial = append(s.initial, OutFrame{Data: f})
	}
	return nil
}

// ResumePointAt is the ResumePoint of a dialect subscription to sid with
// filter that resumes just after event at (zero: the newest) in tx, after
// the client's own cursor or not, the client holding the known messages
// (nil: it said nothing) — what the bus hands Encoder.Resume.
func ResumePointAt(tx StoreView, sid string, filter Filter, at ulid.ULID, fromCursor bool, known []string) (ResumePoint, error) {
	rp, err := resumeAt(tx, sid, at)
	if err != nil {
		return rp, err
	}
	rp.FromCursor = fromCursor
	if known != nil {
		rp.Known = make(map[string]bool, len(known))
		for _, id := range known {
			rp.Known[id] = true
		}
	}
	if rp.turnStart != (ulid.ULID{}) {
		rp.TurnEvents = turnEvents(tx, sid, filter, rp.turnStart, at)
	}
	return rp, nil
}

// turnEvents walks, for ResumePoint.TurnEvents, the events of session sid
// (and its workers' when filter includes them) from start through at
// (zero: the newest) that filter passes, decoded; undecodable ones are
// skipped.
func turnEvents(tx StoreView, sid string, filter Filter, start, at ulid.ULID) func(func(Event) error) error {
	return func(fn func(Event) error) error {
		sessions := []string{sid}
		if filter.IncludeWorkerSessions {
			var err error
			if sessions, err = descendants(tx, sid); err != nil {
				return err
			}
		}
		err := tx.EventsAfter(sessions, prevULID(start), func(r store.EventRecord) error {
			if at != (ulid.ULID{}) && r.ID.Compare(at) > 0 {
				return store.ErrStop
			}
			if !filter.Match(r.Type, r.Actor) {
				return nil
			}
			var ev Event
			if json.Unmarshal(r.Data, &ev) != nil {
				return nil
			}
			return fn(ev)
		})
		if errors.Is(err, store.ErrStop) {
			return nil
		}
		return err
	}
}

// replay appends the matching events after cursor to s.initial; more than
// ReplayLimit is replay_too_large.
func (b *Bus) replay(tx StoreView, s *Subscription, cursor ulid.ULID) (int, error) {
	sessions := []string{s.sessionID}
	if s.filter.IncludeWorkerSessions {
		var err error
		if sessions, err = descendants(tx, s.sessionID); err != nil {
			return 0, err
		}
	}
	replayed := 0
	err := tx.EventsAfter(sessions, cursor, func(r store.EventRecord) error {
		if !s.filter.Match(r.Type, r.Actor) {
			return nil
		}
		if replayed == b.opts.ReplayLimit {
			return errReplayTooLarge
		}
		replayed++
		s.initial = append(s.initial, OutFrame{EventID: r.ID.String(), Data: eventFrame(r.Data)})
		return nil
	})
	if errors.Is(err, errReplayTooLarge) {
		return replayed, &SubscribeError{Code: CodeReplayTooLarge, Message: fmt.Sprintf("Gap exceeds replay limit of %d events. Reconnect with snapshot: true.", b.opts.ReplayLimit)}
	}
	return replayed, err
}

// checkCursor: the cursor must be in the log, newer than the epoch floor
// and not older than anything retention deleted.
func (b *Bus) checkCursor(tx StoreView, c ulid.ULID) error {
	expired := func(why string) error {
		return &SubscribeError{Code: CodeCursorExpired, Message: fmt.Sprintf("cursor %s %s; resubscribe with snapshot: true", c, why)}
	}
	if _, err := tx.Event(c); errors.Is(err, store.ErrNotFound) {
		return expired("is not in the event log (unknown or pruned by retention)")
	} else if err != nil {
		return err
	}
	if c.Compare(b.db.EpochFloor()) <= 0 {
		return expired("is from before the current epoch (the database was replaced or restored from a copy)")
	}
	if c.Compare(tx.PrunedThrough()) < 0 {
		return expired("is older than events already pruned by retention")
	}
	return nil
}

// newEncoder returns the encoder of dialect for a subscription to
// sessionID: nil (the canonical frames as they are) for "" or
// "canonical", else the bus's Dialects' one.
func (b *Bus) newEncoder(dialect, sessionID string) (Encoder, error) {
	switch {
	case dialect == "" || dialect == DialectCanonical:
		return nil, nil
	case b.opts.Dialects == nil:
		return nil, UnknownDialect(dialect, []string{DialectCanonical})
	}
	return b.opts.Dialects.NewEncoder(dialect, sessionID)
}
