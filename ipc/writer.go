package ipc

import (
	"encoding/binary"
	"math/rand/v2"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// run is the single log writer: it takes everything pending (up to
// maxBatch), assigns ids, commits one transaction and hands the batch to
// the publisher. After its input closes it drains, waits for the
// publisher, commits any warnings that produced, and stops the publisher.
func (b *Bus) run() {
	defer b.wg.Done()
	defer close(b.writerDone)
	defer close(b.pub)
	closed := false
	for {
		batch := b.takeInternal()
		if len(batch) == 0 {
			if closed {
				if b.syncPublisher(); len(b.peekInternal()) > 0 {
					continue
				}
				return
			}
			select {
			case r, ok := <-b.in:
				if !ok {
					closed = true
					continue
				}
				batch = append(batch, r)
			case <-b.wake:
				continue
			}
		}
		n := 0
		for _, r := range batch {
			n += len(r.drafts)
		}
	drain:
		for !closed && n < maxBatch {
			select {
			case r, ok := <-b.in:
				if !ok {
					closed = true
					break drain
				}
				batch = append(batch, r)
				n += len(r.drafts)
			default:
				break drain
			}
		}
		b.commitBatch(batch)
	}
}

// addInternal queues events the bus emits itself and wakes the writer.
func (b *Bus) addInternal(r *request) {
	b.internalMu.Lock()
	b.internal = append(b.internal, r)
	b.internalMu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *Bus) takeInternal() []*request {
	b.internalMu.Lock()
	defer b.internalMu.Unlock()
	r := b.internal
	b.internal = nil
	return r
}

func (b *Bus) peekInternal() []*request {
	b.internalMu.Lock()
	defer b.internalMu.Unlock()
	return b.internal
}

// built is one request's events ready to commit. frames[i] is the event
// frame of records[i] ({"type":"event","event":<envelope>}); records[i].Data
// is the envelope inside it (no copy) and ids[i*26:(i+1)*26] its id text.
// All requests of a batch share the backing arrays (a few allocations per
// batch, not per event). events is set only for Commit requests (Emit
// callers never see their envelopes).
type built struct {
	req     *request
	records []store.EventRecord
	ids     string
	frames  [][]byte
	events  []Event
	ops     []store.Op
}

// id returns the id text of event i.
func (it *built) id(i int) string { return it.ids[i*ulid.EncodedSize : (i+1)*ulid.EncodedSize] }

// event returns event i as an Event, from what the writer had before
// encoding it (no decode).
func (it *built) event(i int) *Event {
	r, p := &it.records[i], &it.req.drafts[i]
	return &Event{ID: r.ID, Type: r.Type, SessionID: r.SessionID, TurnID: p.turnID,
		TS: Timestamp{time.UnixMilli(int64(r.ID.Time())).UTC()}, Actor: r.Actor, Payload: p.payload, decoded: p.value}
}

func (b *Bus) commitBatch(batch []*request) {
	items, records, ops := b.build(batch)
	err := b.db.Commit(records, ops)
	if err == nil {
		b.commits.Add(1)
		b.committed.Add(int64(len(records)))
		b.handOver(items)
		return
	}
	if len(items) == 1 {
		b.fail(items[0], err)
		return
	}
	// One bad request must not sink the others: commit them one by one.
	for _, it := range items {
		if err := b.db.Commit(it.records, it.ops); err != nil {
			b.fail(it, err)
			continue
		}
		b.handOver([]built{it})
	}
}

func (b *Bus) fail(it built, err error) {
	if it.req.done == nil {
		b.log.Error("ipc: emitted event not committed", "type", it.records[0].Type, "session", it.records[0].SessionID, "err", err)
	}
	finish(it, err)
}

func finish(it built, err error) {
	if it.req.done == nil {
		return
	}
	if err != nil {
		it.req.done <- result{err: err}
		return
	}
	it.req.done <- result{events: it.events}
}

const (
	framePre  = `{"type":"event","event":`
	framePost = `}`
	// envelopeFixed bounds the envelope's fixed bytes: id, ts, punctuation.
	envelopeFixed = len(`{"id":"`) + ulid.EncodedSize + len(`",`) + len(`,"ts":"`) + len(TimeFormat) + 2 + len(`",`)
)

// build assigns ids and timestamps and encodes the envelopes of a batch:
// every frame in one buffer, every id text in one string.
func (b *Bus) build(batch []*request) (items []built, records []store.EventRecord, ops []store.Op) {
	n, nops, size := 0, 0, 0
	for _, r := range batch {
		n += len(r.drafts)
		for _, p := range r.drafts {
			nops += len(p.ops)
			size += len(framePre) + envelopeFixed + len(p.mid) + len(p.tail) + len(framePost)
		}
	}
	items = make([]built, len(batch))
	records = make([]store.EventRecord, n)
	frames := make([][]byte, n)
	idText := make([]byte, n*ulid.EncodedSize)
	if nops > 0 {
		ops = make([]store.Op, 0, nops)
	}
	buf := make([]byte, 0, size)
	k := 0
	for i, r := range batch {
		m := len(r.drafts)
		it := built{req: r, records: records[k : k+m : k+m], frames: frames[k : k+m : k+m]}
		if r.done != nil {
			it.events = make([]Event, m)
		}
		for j, p := range r.drafts {
			id := b.nextID(b.opts.Now())
			ts := time.UnixMilli(int64(id.Time())).UTC()
			text := idText[(k+j)*ulid.EncodedSize : (k+j+1)*ulid.EncodedSize]
			_ = id.MarshalTextTo(text) // cannot fail: the slice has the right length
			start := len(buf)
			buf = append(buf, framePre...)
			env := len(buf)
			buf = append(buf, `{"id":"`...)
			buf = append(buf, text...)
			buf = append(buf, `",`...)
			buf = append(buf, p.mid...)
			buf = append(buf, `,"ts":"`...)
			buf = ts.AppendFormat(buf, TimeFormat)
			buf = append(buf, `",`...)
			buf = append(buf, p.tail...)
			envEnd := len(buf)
			buf = append(buf, framePost...)
			it.frames[j] = buf[start:len(buf):len(buf)]
			it.records[j] = store.EventRecord{
				ID: id, SessionID: p.sessionID, Type: p.typ, Streaming: p.streaming, Data: buf[env:envEnd:envEnd],
				Actor: p.actor, Group: p.group, Closes: p.closes,
			}
			if it.events != nil {
				it.events[j] = *it.event(j)
			}
			if len(p.ops) > 0 {
				it.ops = append(it.ops, p.ops...)
				ops = append(ops, p.ops...)
			}
		}
		items[i] = it
		k += m
	}
	ids := string(idText)
	k = 0
	for i := range items {
		m := len(items[i].records)
		items[i].ids = ids[k*ulid.EncodedSize : (k+m)*ulid.EncodedSize]
		k += m
	}
	return items, records, ops
}

// nextID returns an id strictly greater than every id before it: its time is
// max(now, last) and within one millisecond the 80-bit entropy is
// incremented (a fresh random value starts each new millisecond).
func (b *Bus) nextID(now time.Time) ulid.ULID {
	ms := ulid.Timestamp(now)
	lastMS := b.last.Time()
	var id ulid.ULID
	if ms <= lastMS && b.last != (ulid.ULID{}) {
		id = b.last
		if !incEntropy(&id) { // 2^80 ids in one ms: move to the next ms
			_ = id.SetTime(lastMS + 1)
			randomEntropy(&id)
		}
	} else {
		_ = id.SetTime(max(ms, lastMS))
		randomEntropy(&id)
	}
	b.last = id
	return id
}

func randomEntropy(id *ulid.ULID) {
	// Keep the top bit clear so increments within a millisecond rarely overflow.
	binary.BigEndian.PutUint16(id[6:8], uint16(rand.Uint32())&0x7fff)
	binary.BigEndian.PutUint64(id[8:16], rand.Uint64())
}

// incEntropy adds one to the entropy bytes; false on overflow.
func incEntropy(id *ulid.ULID) bool {
	for i := 15; i >= 6; i-- {
		id[i]++
		if id[i] != 0 {
			return true
		}
	}
	return false
}

// pruneLoop applies retention every PruneInterval until Close.
func (b *Bus) pruneLoop() {
	defer b.wg.Done()
	t := time.NewTicker(b.opts.PruneInterval)
	defer t.Stop()
	for {
		select {
		case <-b.stopPrune:
			return
		case <-t.C:
			n, err := b.db.Prune(b.opts.Now(), b.opts.EventRetention, b.opts.DeltaRetention)
			if err != nil {
				b.log.Error("ipc: retention prune failed", "err", err)
			} else if n > 0 {
				b.log.Debug("ipc: pruned events", "count", n)
			}
		}
	}
}
