//go:build smoketest

package smoketest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"agenthub/app"
	"agenthub/app/window"
)

// recordingWindow records what the test-control loop did to the window.
type recordingWindow struct {
	mu      sync.Mutex
	emits   []string
	reloads int
	closes  int
}

func (w *recordingWindow) emit(name string, data any) {
	b, _ := json.Marshal(data)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.emits = append(w.emits, name+" "+string(b))
}

func (w *recordingWindow) reload() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reloads++
}

func (w *recordingWindow) geometry(set *window.Geometry) window.Geometry {
	if set != nil {
		return *set
	}
	return window.Geometry{Width: 1100, Height: 720}
}

func (w *recordingWindow) menu(string) error { return nil }

func (w *recordingWindow) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closes++
}

// controlHarness runs testControl.serve over pipes.
type controlHarness struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
	win  *recordingWindow
	ctl  *testControl
}

func newControlHarness(t *testing.T, ctx context.Context) *controlHarness {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &controlHarness{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1), win: &recordingWindow{}}
	h.ctl = newTestControl(inR, outW)
	go func() { h.done <- h.ctl.serve(ctx, h.win, t.TempDir(), "") }()
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close()
	})
	return h
}

func (h *controlHarness) send(s string) {
	h.t.Helper()
	if _, err := io.WriteString(h.in, s+"\n"); err != nil {
		h.t.Fatalf("write command: %v", err)
	}
}

// read returns the next harness line, decoded.
func (h *controlHarness) read() testLine {
	h.t.Helper()
	if !h.out.Scan() {
		h.t.Fatalf("no line: %v", h.out.Err())
	}
	text, ok := strings.CutPrefix(h.out.Text(), TestLinePrefix)
	if !ok {
		h.t.Fatalf("line %q lacks the prefix %q", h.out.Text(), TestLinePrefix)
	}
	var l testLine
	if err := json.Unmarshal([]byte(text), &l); err != nil {
		h.t.Fatalf("decode %q: %v", text, err)
	}
	return l
}

func (h *controlHarness) wait() error {
	h.t.Helper()
	select {
	case err := <-h.done:
		return err
	case <-time.After(10 * time.Second):
		h.t.Fatal("serve did not return")
		return nil
	}
}

func TestTestControlCommands(t *testing.T) {
	h := newControlHarness(t, context.Background())

	h.send(`{"id":1,"cmd":"emit","data":{"cmd":"open","session_id":"S1"}}`)
	if l := h.read(); l.Event != "ack" || l.ID != 1 || l.Cmd != "emit" || l.Error != "" {
		t.Fatalf("emit ack = %+v", l)
	}
	h.send(`{"id":2,"cmd":"reload"}`)
	if l := h.read(); l.ID != 2 || l.Error != "" {
		t.Fatalf("reload ack = %+v", l)
	}

	// A page report between commands is forwarded as it comes.
	// (From another goroutine, as the Wails binding call would: the pipe is unbuffered.)
	go h.ctl.report(PageReport{Kind: "transcript", PageID: "p", SessionID: "S1", Messages: []RenderedMessage{{Role: "user", Status: "complete", Text: "hi"}}})
	if l := h.read(); l.Event != "report" || l.Report == nil || l.Report.SessionID != "S1" || l.Report.Messages[0].Text != "hi" {
		t.Fatalf("report line = %+v", l)
	}

	// Bad input gets an error ack and changes nothing.
	for _, c := range []struct{ line, want string }{
		{`not json`, "invalid command"},
		{`{"id":3,"cmd":"dance"}`, "unknown command"},
		{`{"id":4,"cmd":"emit"}`, "needs a JSON data field"},
		{`{"id":5,"cmd":"screenshot","name":"../escape.png"}`, "plain file name"},
		{`{"id":6,"cmd":"screenshot","name":"shot.jpg"}`, "plain file name"},
		{`{"id":7,"cmd":"screenshot","name":"shot.png"}`, "DISPLAY is not set"},
	} {
		h.send(c.line)
		if l := h.read(); l.Event != "ack" || !strings.Contains(l.Error, c.want) {
			t.Errorf("%s: ack = %+v, want an error containing %q", c.line, l, c.want)
		}
	}
	h.send(`{"id":8,"cmd":"quit"}`)
	if l := h.read(); l.ID != 8 || l.Cmd != "quit" || l.Error != "" {
		t.Fatalf("quit ack = %+v", l)
	}
	if err := h.wait(); err != nil {
		t.Fatalf("serve after quit: %v", err)
	}
	h.win.mu.Lock()
	defer h.win.mu.Unlock()
	if len(h.win.emits) != 1 || h.win.emits[0] != TestEvent+` {"cmd":"open","session_id":"S1"}` || h.win.reloads != 1 {
		t.Fatalf("window saw emits %q and %d reloads, want one open and one reload", h.win.emits, h.win.reloads)
	}
}

func TestTestControlEndsAtStdinEnd(t *testing.T) {
	h := newControlHarness(t, context.Background())
	_ = h.in.Close()
	if err := h.wait(); err != nil {
		t.Fatalf("serve at stdin's end = %v, want nil (the harness left)", err)
	}
}

func TestTestControlEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	h := newControlHarness(t, ctx)
	cancel()
	if err := h.wait(); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("serve after the window closed = %v, want a context error", err)
	}
}

func TestTestReportIsOffWithoutHarness(t *testing.T) {
	p := &Page{}
	if p.TestReport(PageReport{Kind: "loaded"}) {
		t.Fatal("TestReport reported the harness on in a normal launch")
	}
	var got []PageReport
	p.setSink(func(r PageReport) { got = append(got, r) })
	if !p.TestReport(PageReport{Kind: "loaded", PageID: "p1"}) || len(got) != 1 || got[0].PageID != "p1" {
		t.Fatalf("with the harness on: got %+v", got)
	}
}

func TestNewSmokeRunInstallsSinkOnlyInControlMode(t *testing.T) {
	a := &Page{}
	newSmokeRun(a, t.TempDir(), func(string) string { return "" }, nil)
	if a.TestReport(PageReport{}) {
		t.Fatal("plain smoke test turned the test hooks on")
	}
	b := &Page{}
	s := newSmokeRun(b, t.TempDir(), func(k string) string {
		if k == TestControlEnv {
			return "stdio"
		}
		return ""
	}, nil)
	if s.control == nil {
		t.Fatal("AGENTHUB_TEST_CONTROL=stdio did not enable test control")
	}
	b.mu.Lock()
	on := b.sink != nil
	b.mu.Unlock()
	if !on {
		t.Fatal("test control did not install the App's test sink before the window opens")
	}
}

// parse runs app.ParseFlags with this package's Driver registered (by its
// init) and returns the harness's part of the result.
func parse(t *testing.T, args []string, env map[string]string) (*harness, string, error) {
	t.Helper()
	var out strings.Builder
	cfg, err := app.ParseFlags(args, t.TempDir(), func(k string) string { return env[k] }, &out, &out)
	h, _ := cfg.Driver.(*harness)
	if err == nil && h == nil {
		t.Fatalf("ParseFlags: driver %T, want the harness", cfg.Driver)
	}
	return h, out.String(), err
}

func TestParseFlagsSmokeTest(t *testing.T) {
	h, out, err := parse(t, []string{"--smoke-test", "art"}, nil)
	if err != nil || h.Dir != "art" {
		t.Fatalf("--smoke-test art: err %v %s", err, out)
	}
	h, _, err = parse(t, nil, map[string]string{SmokeEnv: "artifacts"})
	if err != nil || h.Dir != "artifacts" {
		t.Fatalf("%s=artifacts: dir %q err %v", SmokeEnv, h.Dir, err)
	}
	h, _, err = parse(t, []string{"--smoke-test", "flag"}, map[string]string{SmokeEnv: "env"})
	if err != nil || h.Dir != "flag" {
		t.Fatalf("the flag must win over %s: dir %q err %v", SmokeEnv, h.Dir, err)
	}
	if _, help, _ := parse(t, []string{"--help"}, nil); !strings.Contains(help, "--smoke-test DIR") {
		t.Errorf("--help of a smoketest build does not offer --smoke-test:\n%s", help)
	}
}

func TestWindowDriverOnlyForSmokeTest(t *testing.T) {
	none := func(string) string { return "" }
	if d := (&harness{page: &Page{}}).New(none, nil); d != nil {
		t.Fatalf("no --smoke-test: driver %v, want none", d)
	}
	h := &harness{Dir: t.TempDir(), page: &Page{}}
	if d := h.New(none, nil); d == nil {
		t.Fatal("--smoke-test: no driver")
	}
	if b := h.Bind(); len(b) != 1 || b[0] != any(h.page) {
		t.Fatalf("the harness binds %v, want its Page", b)
	}
}

func TestCheckScreenshotName(t *testing.T) {
	for _, ok := range []string{"desktop-window.png", "a.png"} {
		if err := checkScreenshotName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".png/..", "dir/a.png", `a\b.png`, "a.txt", "..", "/abs.png"} {
		if err := checkScreenshotName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
