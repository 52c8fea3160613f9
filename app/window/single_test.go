package window

import (
	"errors"
	"log/slog"
	"testing"
)

// Without a session bus a second desktop launch keeps the clear error (no
// window, no hand-over attempt).
func TestHandOverNeedsASessionBus(t *testing.T) {
	inUse := errors.New("data dir /d is in use by another Agent Hub instance")
	err := HandOver("/d", inUse, nil, func(string) string { return "" }, slog.New(slog.DiscardHandler))
	if err != error(inUse) {
		t.Fatalf("handOver without a bus = %v", err)
	}
	if a, again := singleInstanceID("/a"), singleInstanceID("/a"); a == singleInstanceID("/b") || a != again {
		t.Fatal("the single-instance id is not one per data dir")
	}
}
