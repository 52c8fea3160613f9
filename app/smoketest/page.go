//go:build smoketest || bindings

package smoketest

import "sync"

// This file is the page's side of the desktop test harness: the bound
// Page.TestReport and what it carries. It is compiled into builds with the
// smoketest tag (the binary the desktop tests drive) and into the Wails
// bindings generator (tag bindings), so frontend/wailsjs keeps declaring
// TestReport; a product build has neither the method nor these types, and
// the page's test hooks (frontend/src/testing/testhooks.ts) find nothing to call.

// Page is bound to the window beside the App in a build with the harness:
// the page's test hooks report to it.
type Page struct {
	mu sync.Mutex
	// sink receives the page's test reports; nil unless the harness runs
	// (smoke.go installs it in test-control mode).
	sink func(PageReport)
}

// setSink installs the receiver of the page's reports.
func (p *Page) setSink(fn func(PageReport)) {
	p.mu.Lock()
	p.sink = fn
	p.mu.Unlock()
}

// PageReport is what the page's test hooks (frontend/src/testing/testhooks.ts)
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
	// ComposerAttachments are the states of the composer's pending
	// attachments ("uploading", "ready", "error").
	ComposerAttachments []string `json:"composer_attachments,omitempty"`
	// QuitPrompt reports that the quit confirmation is shown.
	QuitPrompt bool `json:"quit_prompt,omitempty"`
	// StartupError is the start-up failure the window shows, if any.
	StartupError string `json:"startup_error,omitempty"`
	// Ready reports that the app has started in the page (its controller runs).
	Ready bool `json:"ready,omitempty"`
	// Dialog is the heading of the open dialog ("" when none); Zoom the
	// page's zoom factor ("" at 100%).
	Dialog string `json:"dialog,omitempty"`
	Zoom   string `json:"zoom,omitempty"`
	// Width is the page's viewport width in CSS px (innerWidth).
	Width int `json:"width,omitempty"`
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
	// Text is the rendered text of its text blocks (the DOM's textContent);
	// empty in a report asked for with words.
	Text string `json:"text"`
	// Words is the number of whitespace-separated words of that text, set
	// instead of Text when the paint command asked for words (a benchmark
	// polling a huge message).
	Words int `json:"words,omitempty"`
	// Outcome is the data-status of a user message's turn outcome
	// ("failed", "interrupted", "cancelled"; "" when none shows).
	Outcome string `json:"outcome,omitempty"`
	// Retry reports that the outcome offers a Retry button.
	Retry bool `json:"retry,omitempty"`
	// Images is how many attached images the message shows; ImagesLoaded
	// how many of them the window has loaded.
	Images       int `json:"images,omitempty"`
	ImagesLoaded int `json:"images_loaded,omitempty"`
	// Files are the texts of the message's attached-file chips.
	Files []string `json:"files,omitempty"`
}

// TestReport hands r to the desktop test harness and reports true when the
// binary runs it (--smoke-test with AGENTHUB_TEST_CONTROL=stdio). Otherwise
// it does nothing and returns false, and the page stops reporting.
func (p *Page) TestReport(r PageReport) bool {
	p.mu.Lock()
	sink := p.sink
	p.mu.Unlock()
	if sink == nil {
		return false
	}
	sink(r)
	return true
}
