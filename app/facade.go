package app

import (
	"context"
	"fmt"
	"sync"
)

// App is the facade bound to the Wails window: every exported method is
// callable from the page (see frontend/wailsjs/go/app/App). Lifecycle hooks
// are unexported so they are never bound.
type App struct {
	inst *Instance

	mu      sync.Mutex
	ctx     context.Context // the Wails context, set in startup
	report  *ReadyReport
	readyCh chan struct{} // closed by the first valid FrontendReady
	// testSink receives the page's test reports; nil unless the desktop
	// test harness runs (see smoke.go).
	testSink func(PageReport)
}

// NewApp returns the facade over inst. inst may be nil only for binding
// generation, where no method is called.
func NewApp(inst *Instance) *App {
	return &App{inst: inst, readyCh: make(chan struct{})}
}

// Info returns the app name, version, data dir, provider status and the
// dashboard URL ("" when off).
func (a *App) Info() Info {
	return a.inst.Info()
}

// ReadyReport is what the page says it rendered when it calls FrontendReady.
type ReadyReport struct {
	// Version and DataDir as shown on the page.
	Version string `json:"version"`
	DataDir string `json:"data_dir"`
}

// FrontendReady is called by the page once the first window has rendered
// Info. It returns an error (and does not count as ready) when the page
// shows a different version or data dir than Info reports. Repeated calls
// (page reloads) are accepted.
func (a *App) FrontendReady(r ReadyReport) error {
	info := a.inst.Info()
	if r.Version != info.Version || r.DataDir != info.DataDir {
		return fmt.Errorf("frontend rendered version %q data dir %q, want %q %q", r.Version, r.DataDir, info.Version, info.DataDir)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.report == nil {
		a.report = &r
		close(a.readyCh)
	}
	return nil
}

// ready is closed once the page has reported ready.
func (a *App) ready() <-chan struct{} { return a.readyCh }

// startup is the Wails OnStartup hook: it keeps the Wails context, the only
// one runtime.* may be called with.
func (a *App) startup(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
}

// wailsContext returns the context given to startup, or nil before it.
func (a *App) wailsContext() context.Context {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.ctx
}

// PageReport is what the page's test hooks (frontend/src/app/testhooks.ts)
// tell the desktop test harness: a page load ("loaded") or the transcript
// the window renders ("transcript", or "painted" once it has been drawn).
type PageReport struct {
	// Kind is "loaded", "transcript", "painted" or "frames" (the frame
	// meter's result, in FrameStats; Messages is empty then).
	Kind string `json:"kind"`
	// PageID is random per page load: a reload changes it.
	PageID string `json:"page_id"`
	// SessionID is the session the page shows ("" for none).
	SessionID string `json:"session_id"`
	// Running reports that the page shows a turn in progress.
	Running bool `json:"running"`
	// Messages are the rendered messages, oldest first.
	Messages []RenderedMessage `json:"messages"`
	// FrameStats is set on a "frames" report.
	FrameStats *FrameStats `json:"frame_stats,omitempty"`
}

// FrameStats is what the page's frame meter measured between the
// harness's frames-on and frames-off commands.
type FrameStats struct {
	// Frames is how many animation frames the page drew.
	Frames int `json:"frames"`
	// MaxGapMS is the longest time between two frames, in milliseconds.
	MaxGapMS float64 `json:"max_gap_ms"`
}

// RenderedMessage is one message as the window renders it.
type RenderedMessage struct {
	// Role is "user", "assistant" or "toolResult".
	Role string `json:"role"`
	// Status is the message's data-status ("streaming", "complete", …).
	Status string `json:"status"`
	// Text is the rendered text of its text blocks (the DOM's textContent).
	Text string `json:"text"`
}

// TestReport hands r to the desktop test harness and reports true when the
// binary runs it (--smoke-test with AGENTHUB_TEST_CONTROL=stdio). Otherwise
// it does nothing and returns false, and the page stops reporting.
func (a *App) TestReport(r PageReport) bool {
	a.mu.Lock()
	sink := a.testSink
	a.mu.Unlock()
	if sink == nil {
		return false
	}
	sink(r)
	return true
}
