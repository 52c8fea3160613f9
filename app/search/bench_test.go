package search_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"agenthub/app/search"
	"agenthub/ipc"
	"agenthub/store"
)

// corpus stores n messages over n/100 sessions in a bbolt file: 30–300
// words each, drawn Zipf-like from a 20,000-word vocabulary (so common
// words are in most messages and rare ones in few, as in chat text).
func corpus(b *testing.B, n int) ipc.Store {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "hub.db"), store.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	st := ipc.BoltStore(db)
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, 19999)
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	vocab[0], vocab[1], vocab[500], vocab[19000] = "the", "test", "flaky", "zanzibar"
	var ops []store.Op
	for i := range n {
		sid := fmt.Sprintf("s%05d", i/100)
		if i%100 == 0 {
			ops = append(ops, store.PutSession(store.Session{ID: sid, Title: sid, CreatedAt: t0}))
		}
		words := make([]string, 30+rng.IntN(270))
		for k := range words {
			words[k] = vocab[zipf.Uint64()]
		}
		role := store.RoleUser
		if i%2 == 1 {
			role = store.RoleAssistant
		}
		ops = append(ops, store.PutMessage(msg(sid, fmt.Sprintf("m%06d", i), role, strings.Join(words, " "))))
		if len(ops) >= 2000 {
			if err := st.Commit(nil, ops); err != nil {
				b.Fatal(err)
			}
			ops = ops[:0]
		}
	}
	if err := st.Commit(nil, ops); err != nil {
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
	for _, q := range []string{"the", "flaky test", "zanzibar", "w12", "flaky zanzibar the"} {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			for b.Loop() {
				if _, err := x.Search(context.Background(), q, 20); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
