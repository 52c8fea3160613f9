package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"agenthub/app/apptest"
)

// The window path of `make bench-desktop`: one unpaced burst streamed
// into the real webview of Agent Hub's desktop binary, once with the
// window transport as built (frames coalesced per animation frame) and
// once with one Wails event per frame (AGENTHUB_BENCH_EMIT=per-event), in
// the same build and the same run.

// pageReport is the part of smoketest.PageReport the bench reads.
type pageReport struct {
	Kind      string `json:"kind"`
	SessionID string `json:"session_id"`
	Running   bool   `json:"running"`
	Messages  []struct {
		Role   string `json:"role"`
		Status string `json:"status"`
		Text   string `json:"text"`
		Words  int    `json:"words"`
	} `json:"messages"`
	FrameStats *struct {
		Frames   int     `json:"frames"`
		MaxGapMS float64 `json:"max_gap_ms"`
	} `json:"frame_stats"`
}

type controlLine struct {
	Event  string      `json:"event"`
	ID     int         `json:"id"`
	Error  string      `json:"error"`
	Report *pageReport `json:"report"`
}

// control drives Agent Hub's test-control harness over the window's stdin
// and stdout.
type control struct {
	w       *window
	next    int
	reports []*pageReport
}

// do sends a command and waits for its ack, keeping reports read meanwhile.
func (c *control) do(ctx context.Context, cmd string, data any) error {
	c.next++
	line := map[string]any{"id": c.next, "cmd": cmd}
	if data != nil {
		line["data"] = data
	}
	b, _ := json.Marshal(line)
	if _, err := c.w.stdin.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("harness command %s: %w", cmd, err)
	}
	for {
		l, err := c.read(ctx)
		if err != nil {
			return fmt.Errorf("harness command %s: %w", cmd, err)
		}
		if l.Event == "ack" && l.ID == c.next {
			if l.Error != "" {
				return fmt.Errorf("harness command %s: %s", cmd, l.Error)
			}
			return nil
		}
	}
}

func (c *control) read(ctx context.Context) (controlLine, error) {
	select {
	case text, ok := <-c.w.lines:
		if !ok {
			return controlLine{}, fmt.Errorf("the app exited")
		}
		var l controlLine
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			return l, fmt.Errorf("harness line %q: %w", text, err)
		}
		if l.Event == "report" && l.Report != nil {
			c.reports = append(c.reports, l.Report)
		}
		return l, nil
	case <-ctx.Done():
		return controlLine{}, ctx.Err()
	}
}

// report waits for a page report of kind that satisfies ok.
func (c *control) report(ctx context.Context, kind string, ok func(*pageReport) bool) (*pageReport, error) {
	for {
		for i, r := range c.reports {
			if r.Kind == kind && ok(r) {
				c.reports = c.reports[i+1:]
				return r, nil
			}
		}
		c.reports = c.reports[:0]
		if _, err := c.read(ctx); err != nil {
			return nil, fmt.Errorf("waiting for a %q report: %w", kind, err)
		}
	}
}

// windowRun is one burst into the window.
type windowRun struct {
	mode                    string
	n                       int
	server                  time.Duration // first delta sent → a dashboard client has the last one
	rendered                time.Duration // first delta sent → the page painted the finished message
	frames                  int
	maxGap                  time.Duration
	pssBefore               int64
	pssAfter                int64
	partsBefore, partsAfter string // per process PSS
	settleWait              time.Duration
}

func (r windowRun) rate() float64 { return float64(r.n) / r.rendered.Seconds() }

// windowStream launches Agent Hub's desktop binary with the fake provider,
// opens a session in its window and streams one n-delta burst into it.
func windowStream(ctx context.Context, hubBin string, n int, perEvent bool, settle time.Duration) (windowRun, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	run := windowRun{mode: "coalesced (as built)", n: n, settleWait: settle}
	if perEvent {
		run.mode = "one EventsEmit per event"
	}
	win, err := launchWindow(ctx, hubBin, perEvent)
	if err != nil {
		return run, err
	}
	defer win.close()
	c, hub := win.control, win.hub
	cls, err := hub.connect(ctx, 1) // a fresh session and a dashboard client on it
	if err != nil {
		return run, err
	}
	defer hub.release(cls)
	if err := c.do(ctx, "emit", map[string]any{"cmd": "open", "session_id": hub.session}); err != nil {
		return run, err
	}
	if err := c.do(ctx, "emit", map[string]any{"cmd": "paint"}); err != nil {
		return run, err
	}
	if _, err := c.report(ctx, "painted", func(r *pageReport) bool { return r.SessionID == hub.session }); err != nil {
		return run, err
	}
	if err := c.do(ctx, "emit", map[string]any{"cmd": "quiet"}); err != nil {
		return run, err
	}
	run.pssBefore, _, run.partsBefore = treePSS(win.pid())
	if err := c.do(ctx, "emit", map[string]any{"cmd": "frames", "on": true}); err != nil {
		return run, err
	}
	done := make(chan result, 1)
	go func() { done <- cls[0].read(ctx, n) }()
	if err := hub.fire(ctx, burst{n: n}); err != nil {
		return run, err
	}
	res := <-done
	if res.err != nil || res.deltas != n {
		return run, fmt.Errorf("dashboard client: %d of %d deltas (%v)", res.deltas, n, res.err)
	}
	run.server = res.last.Sub(res.firstSent)
	if err := paintUntilComplete(ctx, c, n); err != nil {
		return run, err
	}
	run.rendered = time.Since(res.firstSent)
	if err := c.do(ctx, "emit", map[string]any{"cmd": "frames", "on": false}); err != nil {
		return run, err
	}
	fr, err := c.report(ctx, "frames", func(r *pageReport) bool { return r.FrameStats != nil })
	if err != nil {
		return run, err
	}
	run.frames, run.maxGap = fr.FrameStats.Frames, time.Duration(fr.FrameStats.MaxGapMS*float64(time.Millisecond))
	select {
	case <-time.After(settle):
	case <-ctx.Done():
		return run, ctx.Err()
	}
	run.pssAfter, _, run.partsAfter = treePSS(win.pid())
	return run, nil
}

// benchWindow is the desktop binary under test control, pointed at its own
// fake provider, with a dashboard client's view of its hub.
type benchWindow struct {
	w       *window
	control *control
	hub     *hubTarget
	cleanup []func()
}

func (b *benchWindow) pid() int { return b.w.cmd.Process.Pid }

func (b *benchWindow) close() {
	for i := len(b.cleanup) - 1; i >= 0; i-- {
		b.cleanup[i]()
	}
}

// launchWindow starts the fake provider and the desktop binary in test
// control mode (perEvent: one EventsEmit per event) and waits for its page.
func launchWindow(ctx context.Context, hubBin string, perEvent bool) (*benchWindow, error) {
	b := &benchWindow{}
	prov, upstream, stop, err := serveProvider()
	if err != nil {
		return nil, err
	}
	b.cleanup = append(b.cleanup, stop)
	root, err := os.MkdirTemp("", "agenthub-bench-window-")
	if err != nil {
		b.close()
		return nil, err
	}
	b.cleanup = append(b.cleanup, func() { _ = os.RemoveAll(root) })
	data := filepath.Join(root, "data")
	env := append(apptest.Env(), "ANTHROPIC_BASE_URL="+upstream, "ANTHROPIC_API_KEY=bench-key", "AGENTHUB_TEST_CONTROL=stdio")
	if perEvent {
		env = append(env, "AGENTHUB_BENCH_EMIT=per-event")
	}
	args := []string{"--data-dir", data, "--workspace", root, "--listen", "127.0.0.1:0",
		"--model", "anthropic:claude-sonnet-4-6", "--smoke-test", root}
	if b.w, err = launch(ctx, hubBin, args, env, func(s string) bool {
		return strings.HasPrefix(s, "agenthub-test: ") && strings.Contains(s, `"event":"report"`)
	}, time.Minute); err != nil {
		b.close()
		return nil, err
	}
	b.cleanup = append(b.cleanup, b.w.kill)
	b.control = &control{w: b.w}
	var info struct {
		Port  int    `json:"port"`
		Token string `json:"token"`
	}
	raw, err := os.ReadFile(filepath.Join(data, "dashboard.json"))
	if err == nil {
		err = json.Unmarshal(raw, &info)
	}
	if err != nil {
		b.close()
		return nil, fmt.Errorf("dashboard.json: %w", err)
	}
	b.hub = &hubTarget{base: fmt.Sprintf("http://127.0.0.1:%d", info.Port), token: info.Token, prov: prov}
	return b, nil
}

// paintUntilComplete asks the page to paint until it shows the finished
// n-delta message.
func paintUntilComplete(ctx context.Context, c *control, n int) error {
	for {
		// Word counts only: the 100k-word text itself through IPC on every
		// poll would be the harness's memory, not the window's.
		if err := c.do(ctx, "emit", map[string]any{"cmd": "paint", "words": true}); err != nil {
			return err
		}
		r, err := c.report(ctx, "painted", func(*pageReport) bool { return true })
		if err != nil {
			return err
		}
		if k := len(r.Messages); k > 0 && !r.Running && r.Messages[k-1].Role == "assistant" && r.Messages[k-1].Status == "complete" {
			if got := r.Messages[k-1].Words; got != n {
				return fmt.Errorf("the window shows %d of %d deltas", got, n)
			}
			return nil
		}
	}
}
