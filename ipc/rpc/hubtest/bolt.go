package hubtest

import (
	"path/filepath"
	"testing"

	"agenthub/ipc"
	"agenthub/store"
)

// NewBolt starts a Hub on a Bus over a fresh bbolt store in t's temporary
// folder (no fsync; opts with pruning off); at t's cleanup it closes the
// hub, then the bus, then the store. A cleanup the caller registers later
// runs before that one.
func NewBolt(t testing.TB, opts ipc.Options) *Hub {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "hub.db"), store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	opts.PruneInterval = -1
	bus, err := ipc.NewBus(ipc.BoltStore(db), opts)
	if err != nil {
		_ = db.Close()
		t.Fatal(err)
	}
	h := New(bus)
	t.Cleanup(func() {
		h.Close()
		_ = bus.Close()
		_ = db.Close()
	})
	return h
}
