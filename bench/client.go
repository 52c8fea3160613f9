package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// client reads one WebSocket stream as a dashboard would: decode every
// frame, keep the text deltas' latencies (receive time minus the stamp in
// the text), stop at turn.completed.
type client struct {
	c       *websocket.Conn
	sse     *sseClient   // a peer's Server-Sent Events stream instead (peer.go)
	frames  *frameSource // frames from a gateway device or a Socket.io socket instead (gateway.go)
	closeFn func()       // closes the frames' socket (nil: nothing to close)
}

// result is what one client saw of one burst.
type result struct {
	deltas    int
	latencies []time.Duration
	firstSent time.Time // the first delta's stamp
	last      time.Time // the last delta's receipt
	repeated  int       // deltas whose event id was not above the previous one (a duplicate or out of order)
	err       error     // why the stream ended early (nil: turn.completed)
}

func dial(ctx context.Context, url, token string) (*client, error) {
	opts := &websocket.DialOptions{}
	if token != "" {
		opts.HTTPHeader = http.Header{"Authorization": {"Bearer " + token}}
	}
	c, _, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	c.SetReadLimit(-1)
	return &client{c: c}, nil
}

// subscribe sends Agent Hub's subscribe frame (preset:chat, live only) and
// waits for the ack.
func (cl *client) subscribe(ctx context.Context) error {
	if err := cl.c.Write(ctx, websocket.MessageText, []byte(`{"type":"subscribe","filter":"preset:chat","since":null,"snapshot":false}`)); err != nil {
		return err
	}
	for {
		_, b, err := cl.c.Read(ctx)
		if err != nil {
			return err
		}
		var f wireFrame
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
		switch f.Type {
		case "subscribe_ack":
			return nil
		case "subscribe_error", "error":
			return fmt.Errorf("subscribe: %s", b)
		}
	}
}

// read collects one burst of want deltas until turn.completed.
func (cl *client) read(ctx context.Context, want int) result {
	if cl.sse != nil {
		return cl.sse.read(want)
	}
	r := result{latencies: make([]time.Duration, 0, want)}
	prevID := ""
	for {
		var b []byte
		var err error
		if cl.frames != nil {
			b, err = cl.frames.next(ctx)
		} else {
			_, b, err = cl.c.Read(ctx)
		}
		if err != nil {
			r.err = err
			return r
		}
		now := time.Now()
		var f wireFrame
		if err := json.Unmarshal(b, &f); err != nil {
			r.err = fmt.Errorf("frame not JSON: %w", err)
			return r
		}
		if f.Type == "ping" {
			continue // the heartbeat: events flowing keep it quiet
		}
		if f.Event == nil {
			continue
		}
		switch f.Event.Type {
		case "text.delta":
			if id := f.Event.ID; id != "" { // ULIDs (the floors' ids have their width): increasing
				if id <= prevID {
					r.repeated++
				}
				prevID = id
			}
			r.stampLatency(f.Event.Payload.Text, now)
		case "turn.completed":
			return r
		}
	}
}

func (cl *client) close() {
	if cl.sse != nil {
		cl.sse.close()
		return
	}
	if cl.frames != nil {
		if cl.closeFn != nil {
			cl.closeFn()
		}
		return
	}
	_ = cl.c.CloseNow()
}

// stampLatency parses a delta's text (a send time in unix nanoseconds and
// a space) and records the delta in r; false if it is not a stamp.
func (r *result) stampLatency(text string, now time.Time) bool {
	stamp, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
	if err != nil {
		return false
	}
	sent := time.Unix(0, stamp)
	if r.deltas == 0 {
		r.firstSent = sent
	}
	r.deltas++
	r.last = now
	r.latencies = append(r.latencies, now.Sub(sent))
	return true
}
