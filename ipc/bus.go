package ipc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// Options configures a Bus. Zero values take the defaults in brackets.
type Options struct {
	ClientQueue int // per-subscriber live queue bound [1000]
	// ClientStall is --client-stall [5s]: a subscriber whose consumer takes
	// nothing for this long is closed with client_too_slow. Overflowing
	// ClientQueue alone never closes anyone (it switches to catch-up).
	ClientStall      time.Duration
	ReplayLimit      int           // max events one replay may send [10000]
	Heartbeat        time.Duration // idle ping interval for transports [30s]
	SnapshotMessages int           // messages in a snapshot [50]
	Logger           *slog.Logger  // [slog.Default()]
	// EventRetention / DeltaRetention are --event-retention [168h] and
	// --delta-retention [1h]; PruneInterval is how often the Bus prunes [1m];
	// negative disables pruning.
	EventRetention time.Duration
	DeltaRetention time.Duration
	PruneInterval  time.Duration
	// RoutingPolicyVersion, if set, supplies the snapshot's
	// session.routing_policy_version (null otherwise).
	RoutingPolicyVersion func() string
	// Now is the writer's clock [time.Now]; tests use it to step the clock.
	Now func() time.Time
	// Dialects makes the encoders of the dialects a subscription may ask
	// for besides the canonical one (ipc/dialect.New()); nil: canonical only.
	Dialects Dialects
}

func (o *Options) defaults() {
	if o.ClientQueue <= 0 {
		o.ClientQueue = 1000
	}
	if o.ClientStall <= 0 {
		o.ClientStall = 5 * time.Second
	}
	if o.ReplayLimit <= 0 {
		o.ReplayLimit = 10000
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 30 * time.Second
	}
	if o.SnapshotMessages <= 0 {
		o.SnapshotMessages = 50
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.EventRetention <= 0 {
		o.EventRetention = 168 * time.Hour
	}
	if o.DeltaRetention <= 0 {
		o.DeltaRetention = time.Hour
	}
	if o.PruneInterval == 0 {
		o.PruneInterval = time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// ErrClosed is returned by Emit, Commit and Subscribe after Close.
var ErrClosed = errors.New("ipc: bus closed")

// maxBatch bounds one group commit (the "bounded window"), and inBuffer
// the drafts waiting for the writer (Emit blocks beyond it). Both bound the
// memory a burst holds in flight: with 8192 and 4096 a 100k-delta burst
// grew the hub's heap to ~60 MB; with these it peaks near 40 MB at the same
// rate (a commit of 1,024 deltas still takes well under a millisecond of
// the ~10 ms they take to arrive).
const (
	maxBatch = 1024
	inBuffer = 1024
)

// Bus is the single ordered log writer plus the broker: every event goes
// through it, gets its id here (strictly increasing), is committed to bbolt
// in a group with everything else pending, and only then is published to
// matching subscribers.
type Bus struct {
	db   Store
	opts Options
	log  *slog.Logger

	mu     sync.RWMutex // guards closed against sends on in
	closed bool
	in     chan *request

	last ulid.ULID // writer-only: newest id assigned

	// The publisher goroutine publishes committed batches (in commit order)
	// while the writer commits the next one. Events the bus emits itself
	// (handler warnings) wait in internal; wake tells an idle writer.
	pub        chan pubJob
	pubBusy    atomic.Int64 // batches handed to the publisher and not yet published
	internalMu sync.Mutex
	internal   []*request
	wake       chan struct{}

	broker broker
	tree   sessionTree

	commits, committed atomic.Int64 // transactions and events written

	stopPrune  chan struct{}
	writerDone chan struct{}
	wg         sync.WaitGroup // writer, pruner, subscription pumps
}

type request struct {
	drafts []prepared
	done   chan result // nil for Emit
	one    [1]prepared // backing store of drafts for single-draft requests
}

// single wraps one prepared draft in a request with one allocation.
func single(p prepared) *request {
	r := &request{}
	r.one[0] = p
	r.drafts = r.one[:]
	return r
}

type result struct {
	events []Event
	err    error
}

// prepared is a validated draft with everything but id and ts encoded.
type prepared struct {
	typ, sessionID, actor string
	turnID                *string
	mid                   []byte // `"type":…,"session_id":…,"turn_id":…`
	tail                  []byte // `"actor":…,"payload":…}`
	payload               json.RawMessage
	value                 any // a streaming draft's payload value (Event.decoded for dialect subscribers)
	streaming             bool
	group, closes         string
	ops                   []store.Op
}

// NewBus starts the log writer (seeded with the newest id in db) and the
// retention pruner. Close stops them. The caller keeps ownership of db and
// closes it (if it needs closing) after Bus.Close.
func NewBus(db Store, opts Options) (*Bus, error) {
	opts.defaults()
	var last ulid.ULID
	err := db.View(func(v StoreView) error { last = v.LastEventID(); return nil })
	if err != nil {
		return nil, fmt.Errorf("ipc: read newest event id: %w", err)
	}
	b := &Bus{
		db: db, opts: opts, log: opts.Logger,
		in:         make(chan *request, inBuffer),
		last:       last,
		stopPrune:  make(chan struct{}),
		writerDone: make(chan struct{}),
		pub:        make(chan pubJob, 2),
		wake:       make(chan struct{}, 1),
	}
	b.broker.init()
	b.tree.init(db)
	b.wg.Add(2)
	go b.run()
	go b.publisher()
	if opts.PruneInterval > 0 {
		b.wg.Add(1)
		go b.pruneLoop()
	}
	return b, nil
}

// Store returns the store the bus writes to. Only the bus writes to it.
func (b *Bus) Store() Store { return b.db }

// Reader reads the bus's store one call at a time (history, sessions).
func (b *Bus) Reader() StoreReader { return StoreReader{b.db} }

// Stats reports how many transactions the writer committed and how many
// events they held (events/commits is the mean group-commit size).
func (b *Bus) Stats() (commits, events int64) { return b.commits.Load(), b.committed.Load() }

// Watched returns the ids of the sessions someone is subscribed to now
// (a session may appear more than once).
func (b *Bus) Watched() []string { return b.broker.watched() }

// Options returns the effective options (defaults filled in).
func (b *Bus) Options() Options { return b.opts }

// Emit validates d and enqueues it for the writer, returning at once (it
// blocks only while the writer's input is full). Drafts emitted by one
// goroutine keep their order. A commit failure of an emitted draft is
// logged, not returned; use Commit when the caller must know.
func (b *Bus) Emit(d Draft) error {
	p, err := prepare(d)
	if err != nil {
		return err
	}
	return b.send(single(p))
}

// Commit validates ds and returns once they are durable (one transaction,
// consecutive ids) and published, with their envelopes. If ctx ends first
// Commit returns ctx.Err() and the drafts may still be committed.
func (b *Bus) Commit(ctx context.Context, ds ...Draft) ([]Event, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	req := &request{drafts: make([]prepared, len(ds)), done: make(chan result, 1)}
	for i, d := range ds {
		p, err := prepare(d)
		if err != nil {
			return nil, fmt.Errorf("draft %d: %w", i, err)
		}
		req.drafts[i] = p
	}
	if err := b.send(req); err != nil {
		return nil, err
	}
	select {
	case r := <-req.done:
		return r.events, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *Bus) send(r *request) error {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return ErrClosed
	}
	b.in <- r
	return nil
}

// Close stops accepting drafts, waits for the writer to commit everything
// already enqueued, stops the pruner and ends every subscription. It does not
// close the store. Calling Close twice is harmless.
func (b *Bus) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	close(b.in)
	b.mu.Unlock()
	<-b.writerDone
	close(b.stopPrune)
	for _, s := range b.broker.all() {
		s.Close()
	}
	b.wg.Wait()
	return nil
}

// prepare validates a draft and pre-encodes everything but id and ts.
func prepare(d Draft) (prepared, error) {
	switch {
	case d.Type == "":
		return prepared{}, errors.New("ipc: draft has no type")
	case d.SessionID == "":
		return prepared{}, fmt.Errorf("ipc: %s draft has no session id", d.Type)
	case !slices.Contains(Actors, d.Actor):
		return prepared{}, fmt.Errorf("ipc: %s draft has invalid actor %q", d.Type, d.Actor)
	}
	var payload []byte
	switch v := d.Payload.(type) {
	case nil:
		payload = []byte("{}")
	case json.RawMessage:
		if !json.Valid(v) {
			return prepared{}, fmt.Errorf("ipc: %s draft: payload is not valid JSON", d.Type)
		}
		payload = v
	default:
		var err error
		if payload, err = json.Marshal(v); err != nil {
			return prepared{}, fmt.Errorf("ipc: %s draft: marshal payload: %w", d.Type, err)
		}
	}
	p := prepared{typ: d.Type, sessionID: d.SessionID, actor: d.Actor, payload: payload, ops: d.Ops}
	switch d.Payload.(type) {
	case TextDelta, ThinkingDelta, ToolUseInputDelta, ToolOutputDelta:
		// Flat values the emitter cannot change after Emit: the hot
		// path's payloads, handed to dialect encoders without a decode.
		p.value = d.Payload
	}
	tier, _ := TierOf(d.Type)
	p.streaming = tier == TierStreaming
	if d.TurnID != "" {
		t := d.TurnID
		p.turnID = &t
	}
	p.group, p.closes = groupOf(d.Type, d.Payload, payload)
	// mid and tail share one buffer sized for the common (no escaping) case.
	buf := make([]byte, 0, 64+len(d.Type)+len(d.SessionID)+len(d.TurnID)+len(d.Actor)+len(payload))
	buf = appendJSONString(buf, "type", d.Type)
	buf = append(buf, ',')
	buf = appendJSONString(buf, "session_id", d.SessionID)
	buf = append(buf, `,"turn_id":`...)
	if p.turnID == nil {
		buf = append(buf, "null"...)
	} else {
		buf = appendQuoted(buf, *p.turnID)
	}
	midEnd := len(buf)
	buf = appendJSONString(buf, "actor", d.Actor)
	buf = append(buf, `,"payload":`...)
	buf = append(buf, payload...)
	buf = append(buf, '}')
	p.mid, p.tail = buf[:midEnd:midEnd], buf[midEnd:]
	return p, nil
}

// appendQuoted appends s as a JSON string: printable ASCII without quote or
// backslash is copied as is, anything else goes through encoding/json.
func appendQuoted(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // cannot fail for a string
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendJSONString(b []byte, key, val string) []byte {
	b = append(b, '"')
	b = append(b, key...)
	b = append(b, `":`...)
	return appendQuoted(b, val)
}

// RecordOf is the record the log writer stores for ev: its JSON, its tier
// and its retention group. It is how an event from elsewhere (a recorded
// trace) goes into a Store as the bus would have committed it.
func RecordOf(ev Event) (store.EventRecord, error) {
	data, err := json.Marshal(ev)
	if err != nil {
		return store.EventRecord{}, fmt.Errorf("ipc: record of %s event %s: %w", ev.Type, ev.ID, err)
	}
	tier, _ := TierOf(ev.Type)
	group, closes := groupOf(ev.Type, nil, ev.Payload)
	return store.EventRecord{ID: ev.ID, SessionID: ev.SessionID, Type: ev.Type, Actor: ev.Actor,
		Streaming: tier == TierStreaming, Data: data, Group: group, Closes: closes}, nil
}

// groupOf returns the streaming group an event belongs to and the group it
// closes (see store.EventRecord).
func groupOf(typ string, v any, payload []byte) (group, closes string) {
	switch typ {
	case TypeMessageStart, TypeMessageReset, TypeTextDelta, TypeThinkingDelta, TypeToolUseStart,
		TypeToolUseInputDelta, TypeToolUseEnd, TypeMessageComplete,
		TypeToolOutputDelta, TypeToolCompleted, TypeToolFailed:
	default:
		return "", ""
	}
	type groupIDs struct {
		MessageID string `json:"message_id"`
		ToolUseID string `json:"tool_use_id"`
	}
	var ids groupIDs
	switch p := v.(type) { // the common payloads, without re-decoding
	case TextDelta:
		ids.MessageID = p.MessageID
	case *TextDelta:
		ids.MessageID = p.MessageID
	case ThinkingDelta:
		ids.MessageID = p.MessageID
	case ToolUseInputDelta:
		ids.MessageID = p.MessageID
	case ToolOutputDelta:
		ids.ToolUseID = p.ToolUseID
	default:
		var dec groupIDs                  // separate so ids does not escape on the fast paths
		_ = json.Unmarshal(payload, &dec) // missing ids simply mean no group
		ids = dec
	}
	switch typ {
	case TypeToolOutputDelta:
		return ids.ToolUseID, ""
	case TypeToolCompleted, TypeToolFailed:
		return "", ids.ToolUseID
	case TypeMessageComplete:
		return ids.MessageID, ids.MessageID
	}
	return ids.MessageID, ""
}
