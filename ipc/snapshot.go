package ipc

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

// StatusStreaming is the status of the in-flight partial assistant message a
// snapshot appends (never stored).
const StatusStreaming = "streaming"

// maxPartialScan bounds the backward walk that rebuilds an in-flight message.
const maxPartialScan = 200_000

// snapshot builds the snapshot frame as of head, inside the subscriber's read
// transaction:
//
//	{"type":"snapshot","session":{…store.Session…, "id", "current_turn_id",
//	 "current_turn_status":"in_flight"|null, "routing_policy_version"},
//	 "messages":[the newest SnapshotMessages messages, oldest→newest, plus the
//	 in-flight partial assistant message (status "streaming", rebuilt from the
//	 streaming events in the log) appended when one is in flight],
//	 "snapshot_at_event_id": id|null, "epoch": "…"}
//
// It also returns the in-flight partial message, if any.
func (b *Bus) snapshot(tx StoreView, sess store.Session, head ulid.ULID) ([]byte, *store.Message, error) {
	msgs, _, err := PathMessagesBefore(tx, sess.ID, "", b.opts.SnapshotMessages)
	if err != nil {
		return nil, nil, err
	}
	var inFlight *store.Message
	if sess.CurrentTurnID != "" || sess.StreamingMessageID != "" {
		partial, ok, err := rebuildPartial(tx, sess, func(err error) {
			b.log.Warn("ipc: snapshot skipped an event it could not read", "session", sess.ID, "err", err)
		})
		if err != nil {
			return nil, nil, err
		}
		if ok {
			msgs = append(msgs, partial)
			inFlight = &partial
		}
	}
	routing := ""
	if b.opts.RoutingPolicyVersion != nil {
		routing = b.opts.RoutingPolicyVersion()
	}
	frame, err := EncodeSnapshot(sess, msgs, head, b.db.Epoch(), routing, b.opts.RoutingPolicyVersion != nil)
	return frame, inFlight, err
}

// EncodeSnapshot encodes the canonical snapshot frame of session sess
// with msgs as of event head, in epoch, with the routing policy version
// when hasRouting (pure: the drift test and the dialect goldens feed it
// fixed values).
func EncodeSnapshot(sess store.Session, msgs []store.Message, head ulid.ULID, epoch, routing string, hasRouting bool) ([]byte, error) {
	if msgs == nil {
		msgs = []store.Message{}
	}
	sj, err := json.Marshal(sess)
	if err != nil {
		return nil, fmt.Errorf("encode session: %w", err)
	}
	sj = sj[:len(sj)-1] // reopen the object to add the snapshot fields
	sj = append(sj, `,"id":`...)
	sj = appendQuoted(sj, sess.ID)
	if sess.CurrentTurnID == "" {
		sj = append(sj, `,"current_turn_id":null,"current_turn_status":null`...)
	} else {
		sj = append(sj, `,"current_turn_status":"in_flight"`...)
	}
	sj = append(sj, `,"routing_policy_version":`...)
	if hasRouting {
		sj = appendQuoted(sj, routing)
	} else {
		sj = append(sj, "null"...)
	}
	sj = append(sj, '}')
	var at *string
	if head != (ulid.ULID{}) {
		h := head.String()
		at = &h
	}
	return json.Marshal(struct {
		Type              string          `json:"type"`
		Session           json.RawMessage `json:"session"`
		Messages          []store.Message `json:"messages"`
		SnapshotAtEventID *string         `json:"snapshot_at_event_id"`
		Epoch             string          `json:"epoch"`
	}{"snapshot", sj, msgs, at, epoch})
}

// rebuildPartial finds the assistant message being streamed in sess (the
// session's StreamingMessageID, else the newest message.start not followed
// by its message.complete within the current turn) and rebuilds its content
// from the streaming events. An event whose payload does not decode is
// skipped and reported to skipped (the rest of the message still shows).
func rebuildPartial(tx StoreView, sess store.Session, skipped func(error)) (store.Message, bool, error) {
	target := sess.StreamingMessageID
	var recs []store.EventRecord
	found, scanned := false, 0
	err := tx.EventsBefore(sess.ID, ulid.ULID{}, func(r store.EventRecord) error {
		if scanned++; scanned > maxPartialScan {
			return store.ErrStop
		}
		switch r.Type {
		case TypeMessageComplete:
			if target == "" || r.Group == target {
				return store.ErrStop // the newest message is complete
			}
		case TypeMessageStart:
			if target == "" || r.Group == target {
				target = r.Group
				recs = append(recs, r)
				found = true
				return store.ErrStop
			}
		case TypeTurnStarted, TypeTurnCompleted, TypeTurnCancelled:
			if target == "" {
				return store.ErrStop // no message started in this turn
			}
		}
		if r.Streaming && r.Group != "" {
			recs = append(recs, r)
		}
		return nil
	})
	if err != nil || !found {
		return store.Message{}, false, err
	}
	slices.Reverse(recs)
	m := store.Message{ID: target, SessionID: sess.ID, Offset: int64(PathLen(tx, sess.ID)),
		Role: store.RoleAssistant, Status: StatusStreaming, Content: []store.ContentBlock{}}
	content := NewContentBuilder(nil)
	for _, r := range recs {
		if r.Group != target {
			continue
		}
		var env struct {
			TurnID  *string         `json:"turn_id"`
			TS      Timestamp       `json:"ts"`
			Payload json.RawMessage `json:"payload"`
		}
		if err := json.Unmarshal(r.Data, &env); err != nil {
			return store.Message{}, false, fmt.Errorf("decode event %s: %w", r.ID, err)
		}
		if r.Type == TypeMessageStart {
			p, err := decodePayload[MessageStart](r.Type, env.Payload)
			if err != nil {
				skipped(fmt.Errorf("event %s: %w", r.ID, err))
			}
			m.Model, m.CreatedAt = p.Model, env.TS.Time
			if env.TurnID != nil {
				m.TurnID = *env.TurnID
			}
			continue
		}
		if err := content.Apply(r.Type, env.Payload); err != nil {
			skipped(fmt.Errorf("event %s: %w", r.ID, err))
		}
	}
	m.Content, m.Retries = content.Content(), content.retries
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now().UTC()
	}
	return m, true, nil
}
