package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"
)

// make bench PEER=opencode: opencode (npm opencode-ai, `opencode serve`)
// measured the same way as Agent Hub — the same fake provider (its
// OpenAI-compatible side), stamped deltas, the same clients' arithmetic —
// as a row of the report, not a target. Its clients read the server's
// event stream (GET /event, Server-Sent Events) and take the session's
// message.part.delta events; session.idle ends a burst.

// opencodeVersion is the peer measured (pinned so reports compare).
const opencodeVersion = "1.18.33"

// installOpencode installs opencode-ai into dir (once) and returns the
// path of its server binary.
func installOpencode(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "node_modules", "opencode-linux-x64", "bin", "opencode")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "opencode-ai@"+opencodeVersion)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm install opencode-ai@%s: %w\n%s", opencodeVersion, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("opencode-ai installed but %s is missing: %w", bin, err)
	}
	return bin, nil
}

type opencodeTarget struct {
	*proc
	base    string
	prov    *provider
	session string
	logs    *os.File // its stderr
}

func (o *opencodeTarget) stop() {
	o.proc.stop()
	_ = o.logs.Close()
}

var opencodeLine = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// startOpencode runs `opencode serve` in a scratch workspace whose
// opencode.json points it at the fake provider, with its own HOME (its
// config, data and package cache stay in root).
func startOpencode(ctx context.Context, bin, upstream, root string, prov *provider) (*opencodeTarget, error) {
	ws, home := filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"bench": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "bench",
			"options": map[string]any{"baseURL": upstream + "/v1", "apiKey": "bench-key"},
			"models":  map[string]any{"m": map[string]any{"name": "m"}},
		}},
		"model": "bench/m", "small_model": "bench/m", "share": "disabled", "autoupdate": false,
	}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(ws, "opencode.json"), b, 0o600); err != nil {
		return nil, err
	}
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
	logs, err := os.Create(filepath.Join(root, "opencode.log")) // its warnings, kept out of the bench's output
	if err != nil {
		return nil, err
	}
	p, m, err := startProcIn(ctx, ws, logs, opencodeLine, env, bin, "serve", "--hostname", "127.0.0.1", "--port", "0")
	if err != nil {
		_ = logs.Close()
		return nil, err
	}
	return &opencodeTarget{proc: p, base: m[1], prov: prov, logs: logs}, nil
}

func (o *opencodeTarget) name() string { return "opencode " + opencodeVersion }

func (o *opencodeTarget) call(ctx context.Context, path string, body, out any) error {
	return callJSON(ctx, http.MethodPost, o.base+path, "", body, out)
}

// connect creates a fresh session and opens n event streams.
func (o *opencodeTarget) connect(ctx context.Context, n int) ([]*client, error) {
	var s struct {
		ID string `json:"id"`
	}
	if err := o.call(ctx, "/session", map[string]any{}, &s); err != nil {
		return nil, err
	}
	o.session = s.ID
	var cls []*client
	for range n {
		sc, err := dialSSE(ctx, o.base+"/event", s.ID)
		if err != nil {
			return nil, err
		}
		cls = append(cls, &client{sse: sc})
	}
	return cls, nil
}

func (o *opencodeTarget) fire(ctx context.Context, b burst) error {
	o.prov.enqueue(b)
	return o.call(ctx, "/session/"+o.session+"/prompt_async", map[string]any{
		"parts": []map[string]string{{"type": "text", "text": "bench"}},
		"model": map[string]string{"providerID": "bench", "modelID": "m"},
	}, nil)
}

func (o *opencodeTarget) release(cls []*client) { closeAll(cls) }

// sseClient reads one peer's event stream for one session.
type sseClient struct {
	res     *http.Response
	sc      *bufio.Scanner
	session string
}

func dialSSE(ctx context.Context, url, session string) (*sseClient, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, res.Status)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	return &sseClient{res: res, sc: sc, session: session}, nil
}

// peerEvent is the part of an opencode event the bench reads.
type peerEvent struct {
	Type       string `json:"type"`
	Properties struct {
		SessionID string `json:"sessionID"`
		Field     string `json:"field"`
		Delta     string `json:"delta"`
	} `json:"properties"`
}

// read collects the session's text deltas until session.idle.
func (s *sseClient) read(want int) result {
	r := result{latencies: make([]time.Duration, 0, want)}
	for s.sc.Scan() {
		line := s.sc.Bytes()
		if !bytes.HasPrefix(line, []byte("data: ")) {
			continue
		}
		now := time.Now()
		var ev peerEvent
		if err := json.Unmarshal(line[len("data: "):], &ev); err != nil {
			r.err = fmt.Errorf("event not JSON: %w", err)
			return r
		}
		if ev.Properties.SessionID != s.session {
			continue
		}
		switch ev.Type {
		case "message.part.delta":
			if ev.Properties.Field == "text" {
				r.stampLatency(ev.Properties.Delta, now)
			}
		case "session.idle":
			if r.deltas > 0 {
				return r
			}
		}
	}
	r.err = fmt.Errorf("event stream ended: %v", s.sc.Err())
	return r
}

func (s *sseClient) close() { _ = s.res.Body.Close() }

// measurePeer installs and starts the peer and runs peerRuns(p) on it, 1
// and 10 clients, into rep. A peer that cannot be installed or started is
// written in the report, not fatal.
func (rep *report) measurePeer(ctx context.Context, peer, upstream, root string, prov *provider, p plan) error {
	if peer != "opencode" {
		return fmt.Errorf("unknown peer %q (the one measured is opencode)", peer)
	}
	dir := filepath.Join(os.TempDir(), "agenthub-bench-opencode-"+opencodeVersion) // kept: npm install once
	bin, err := installOpencode(ctx, dir)
	var o *opencodeTarget
	if err == nil {
		o, err = startOpencode(ctx, bin, upstream, filepath.Join(root, "opencode"), prov)
	}
	if err != nil {
		rep.peerErr = err.Error()
		return nil
	}
	defer o.stop()
	rep.peer = o.name()
	rep.idleRSS[o.name()] = rss(o.pid())
	for _, n := range []int{1, 10} {
		for _, b := range peerRuns(p) {
			r, err := best(ctx, o, b, n, 1)
			if err != nil {
				rep.peerErr = err.Error()
				return nil
			}
			rep.runs[key(r)] = r
		}
	}
	return nil
}

// peerRuns are the runs of plan p a peer gets: the paced run and the two
// smaller unpaced bursts.
func peerRuns(p plan) []burst {
	runs := []burst{p.paced}
	for _, n := range p.bursts[:min(2, len(p.bursts))] {
		runs = append(runs, burst{n: n})
	}
	return runs
}

// writePeer: the peer's runs beside Agent Hub's, when one was measured.
func (rep *report) writePeer(p func(format string, a ...any)) {
	if rep.peer == "" && rep.peerErr == "" {
		return
	}
	hub := rep.names[2]
	p("## Peer: %s (`make bench PEER=opencode`)", rep.peer)
	p("")
	if rep.peerErr != "" {
		p("Not measured in this run: %s", short(rep.peerErr))
		p("")
		if rep.peer == "" {
			return
		}
	}
	p("`opencode serve` from npm `opencode-ai@%s`, in a scratch workspace whose `opencode.json` points it at the", opencodeVersion)
	p("same fake provider's OpenAI-compatible endpoint (its title call gets a short fixed answer); a fresh")
	p("session per run; its clients read `GET /event` (Server-Sent Events) and take the session's")
	p("`message.part.delta` events, stamped as above. A report row, not a target. CPU is the opencode process's.")
	p("")
	p("| run | clients | path | rate (slowest client) | delivered | p50 | p99 | CPU per 1k deltas |")
	p("|---|---|---|---|---|---|---|---|")
	for _, n := range []int{1, 10} {
		for _, b := range peerRuns(rep.plan) {
			what := fmt.Sprintf("%d deltas unpaced", b.n)
			if b.rate > 0 {
				what = fmt.Sprintf("%d deltas at %d/s", b.n, b.rate)
			}
			for _, t := range []string{hub, rep.peer} {
				r, ok := rep.runs[runKey{t, b.n, b.rate, n}]
				if !ok {
					continue
				}
				p("| %s | %d | %s | %.0f deltas/s | %.1f%% | %s | %s | %s |", what, n, t, r.rate(), r.deliveredPct(),
					ms(pct(r.latencies, 50)), ms(pct(r.latencies, 99)), ms(r.cpuPer1k()))
			}
		}
	}
	p("")
}
