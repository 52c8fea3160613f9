package llmtest

import (
	"encoding/json"
	"strings"
	"sync"
)

// Callback kinds a Recorder records.
const (
	KindMessageStart = "message_start"
	KindText         = "text"
	KindThinking     = "thinking"
	KindToolStart    = "tool_start"
	KindToolDelta    = "tool_delta"
	KindToolEnd      = "tool_end"
)

// Event is one recorded Sink callback.
type Event struct {
	Kind      string
	Index     int
	Text      string  // text/thinking chunk or JSON fragment
	Signature *string // thinking only
	ID, Name  string  // tool calls
	Input     json.RawMessage
}

// Recorder is an llm.Sink that records every callback. OnEvent, if set, is
// called after each one (from the streaming goroutine), e.g. to cancel a
// call at a chosen point. Safe for concurrent reads.
type Recorder struct {
	OnEvent func(Event)

	mu     sync.Mutex
	events []Event
}

func (r *Recorder) add(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	if r.OnEvent != nil {
		r.OnEvent(e)
	}
}

// Events returns the recorded callbacks.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

// Text concatenates the text chunks of block index.
func (r *Recorder) Text(index int) string { return r.join(KindText, index) }

// Thinking concatenates the thinking chunks of block index.
func (r *Recorder) Thinking(index int) string { return r.join(KindThinking, index) }

// ToolInput concatenates the raw input fragments of block index.
func (r *Recorder) ToolInput(index int) string { return r.join(KindToolDelta, index) }

func (r *Recorder) join(kind string, index int) string {
	var sb strings.Builder
	for _, e := range r.Events() {
		if e.Kind == kind && e.Index == index {
			sb.WriteString(e.Text)
		}
	}
	return sb.String()
}

// MessageStart implements llm.Sink.
func (r *Recorder) MessageStart() { r.add(Event{Kind: KindMessageStart}) }

// TextDelta implements llm.Sink.
func (r *Recorder) TextDelta(index int, text string) {
	r.add(Event{Kind: KindText, Index: index, Text: text})
}

// ThinkingDelta implements llm.Sink.
func (r *Recorder) ThinkingDelta(index int, text string, signature *string) {
	r.add(Event{Kind: KindThinking, Index: index, Text: text, Signature: signature})
}

// ToolUseStart implements llm.Sink.
func (r *Recorder) ToolUseStart(index int, id, name string) {
	r.add(Event{Kind: KindToolStart, Index: index, ID: id, Name: name})
}

// ToolUseInputDelta implements llm.Sink.
func (r *Recorder) ToolUseInputDelta(index int, id, fragment string) {
	r.add(Event{Kind: KindToolDelta, Index: index, ID: id, Text: fragment})
}

// ToolUseEnd implements llm.Sink.
func (r *Recorder) ToolUseEnd(index int, id string, finalInput json.RawMessage) {
	r.add(Event{Kind: KindToolEnd, Index: index, ID: id, Input: finalInput})
}
