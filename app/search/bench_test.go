package search_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"agenthub/app/search"
	"agenthub/app/search/searchtest"
	"agenthub/ipc"
	"agenthub/store"
)

// corpus stores searchtest's corpus of n messages in a bbolt file.
func corpus(b *testing.B, n int) ipc.Store {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "hub.db"), store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	st := ipc.BoltStore(db)
	if err := searchtest.Seed(st, n); err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkSearch100k: search over 100,000 stored messages (the index
// built from bbolt, hits read back from it for snippets, limit 20). The
// build time and the index's heap are reported once.
func BenchmarkSearch100k(b *testing.B) {
	st := corpus(b, 100_000)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	x, _ := search.Open(st, nil)
	<-x.Ready()
	build := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	defer x.Close()
	b.Logf("index build: %v for 100,000 messages; index heap ≈ %.1f MiB", build.Round(time.Millisecond), float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))
	for _, q := range searchtest.Queries {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				if _, err := x.Search(context.Background(), q, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
