package ipc_test

import (
	"path/filepath"
	"testing"

	"agenthub/ipc"
	"agenthub/ipc/storetest"
	"agenthub/store"
)

// The bbolt store and its in-memory twin pass the same conformance suite.
func TestStoreConformanceBolt(t *testing.T) {
	storetest.Run(t, func(t *testing.T) ipc.Store {
		db, err := store.Open(filepath.Join(t.TempDir(), "hub.db"), store.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return ipc.BoltStore(db)
	})
}

func TestStoreConformanceMemory(t *testing.T) {
	storetest.Run(t, func(*testing.T) ipc.Store { return ipc.NewMemoryStore() })
}
