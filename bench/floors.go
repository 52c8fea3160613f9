package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The floors run as their own processes (this binary with the role
// "push", "relay" or "durable") so their CPU is measured from /proc like
// Agent Hub's. All speak the same frames as Agent Hub's dashboard stream — an event
// envelope per text delta and a turn.completed at the end — so the
// clients and their decoding cost are identical.
//
//   push:  a bare Go WebSocket push — the deltas are generated in process
//          (stamped at send) and written to every client; no provider, no log.
//   relay: SSE → parse → WebSocket — it streams the fake provider's answer,
//          decodes each SSE data line and writes one frame per delta to every
//          client; no log, no fsync.
//   durable: the relay with Agent Hub's durability rule and nothing else —
//          each delta is committed to a bbolt log with fsync (Agent Hub's
//          store, one writer committing everything pending per transaction)
//          before any client sees it (durable.go).

// floor is the state of a floor process: its connected clients.
type floor struct {
	mu      sync.Mutex
	clients []*websocket.Conn
	seq     int
	log     *durableLog // the durable floor's log (nil for the others)
	sio     *sioFloor   // floor (d)'s Socket.io server (nil for the others)
}

func (f *floor) ws(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	f.mu.Lock()
	f.clients = append(f.clients, c)
	f.mu.Unlock()
	// Read (and drop) client frames so control frames are answered; the
	// connection ends when the client closes it.
	c.CloseRead(context.Background())
}

// broadcast writes one encoded frame to every client, in turn.
func (f *floor) broadcast(b []byte) {
	if f.sio != nil {
		f.sio.broadcast(b)
		return
	}
	f.mu.Lock()
	cs := f.clients
	f.mu.Unlock()
	for _, c := range cs {
		_ = c.Write(context.Background(), websocket.MessageText, b)
	}
}

// deltaFrame encodes a text.delta event frame the way Agent Hub does:
// one json.Marshal of the envelope. Its id has a ULID's width and, like
// one, increases in string order (the clients check that).
func (f *floor) deltaFrame(text string) []byte {
	f.seq++
	b, _ := json.Marshal(wireFrame{Type: "event", Event: &wireEvent{
		ID: fmt.Sprintf("%026d", f.seq), SessionID: "s", Type: "text.delta",
		Payload: wirePayload{MessageID: "m", Text: text}}})
	return b
}

func (f *floor) endFrame() []byte {
	b, _ := json.Marshal(wireFrame{Type: "event", Event: &wireEvent{Type: "turn.completed", SessionID: "s"}})
	return b
}

// runFloor serves a floor until the process is killed. It prints
// "listening ADDR" once it accepts connections.
func runFloor(role, upstream, dataDir string) error {
	f := &floor{}
	if role == "durable" {
		l, err := openDurableLog(dataDir, f)
		if err != nil {
			return err
		}
		defer l.close()
		f.log = l
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", f.ws)
	if role == "sio" {
		f.sio = newSioFloor()
		mux.Handle("/ws/", f.sio.handler())
	}
	mux.HandleFunc("/clients", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		n := len(f.clients)
		f.mu.Unlock()
		if f.sio != nil {
			n = f.sio.clients()
		}
		fmt.Fprint(w, n)
	})
	mux.HandleFunc("/reset", func(w http.ResponseWriter, r *http.Request) {
		if f.sio != nil {
			f.sio.reset()
		}
		f.mu.Lock()
		for _, c := range f.clients {
			_ = c.CloseNow()
		}
		f.clients = nil
		f.mu.Unlock()
	})
	mux.HandleFunc("/go", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		rate, _ := strconv.Atoi(r.URL.Query().Get("rate"))
		switch role {
		case "push":
			go f.push(n, rate)
		case "relay", "sio":
			go f.relay(upstream)
		case "durable":
			go f.durableRelay(upstream)
		}
		w.WriteHeader(http.StatusAccepted)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stdout, "listening %s\n", ln.Addr())
	return http.Serve(ln, mux)
}

func (f *floor) push(n, rate int) {
	pace := newPacer(rate)
	for range n {
		pace.wait()
		f.broadcast(f.deltaFrame(strconv.FormatInt(time.Now().UnixNano(), 10) + " "))
	}
	f.broadcast(f.endFrame())
}

// relay streams one answer from the fake provider and relays its deltas.
func (f *floor) relay(upstream string) {
	streamAnswer(upstream, func(text string) { f.broadcast(f.deltaFrame(text)) }, func() { f.broadcast(f.endFrame()) })
}

// streamAnswer streams one answer from the fake provider, decodes each SSE
// data line and calls delta for every text delta and end at message_stop.
func streamAnswer(upstream string, delta func(text string), end func()) {
	body := strings.NewReader(`{"model":"claude-sonnet-4-6","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"go"}]}`)
	res, err := http.Post(upstream+"/v1/messages", "application/json", body)
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		return
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Delta struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"delta"`
		}
		if json.Unmarshal([]byte(line), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "content_block_delta":
			delta(ev.Delta.Text)
		case "message_stop":
			end()
		}
	}
}
