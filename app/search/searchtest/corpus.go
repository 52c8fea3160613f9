// Package searchtest builds the search benchmarks' corpus: n messages over
// n/100 sessions, 30–300 words each drawn Zipf-like from a 20,000-word
// vocabulary (common words in most messages, rare ones in few, as in chat
// text), with "the", "test", "flaky" and "zanzibar" at fixed ranks. Used by
// app/search's Go benchmark and by `agenthub-bench -search` (through the
// real binary), so both measure the same data.
package searchtest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"agenthub/ipc"
	"agenthub/store"
)

// Queries are the benchmarks' queries: a word in most messages, two
// words, a rare word, a short prefix matching ~1,000 words, three words.
var Queries = []string{"the", "flaky test", "zanzibar", "w12", "flaky zanzibar the"}

// Seed commits the corpus of n messages to st, 2,000 ops per commit.
func Seed(st ipc.Store, n int) error {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(3, 4)), 1.1, 1, 19999)
	vocab := make([]string, 20000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	vocab[0], vocab[1], vocab[500], vocab[19000] = "the", "test", "flaky", "zanzibar"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
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
		ops = append(ops, store.PutMessage(store.Message{ID: fmt.Sprintf("m%06d", i), SessionID: sid, Role: role, Status: store.StatusComplete,
			Offset: int64(i % 100), Content: []store.ContentBlock{{Type: store.BlockText, Text: strings.Join(words, " ")}}, CreatedAt: t0}))
		if len(ops) >= 2000 {
			if err := st.Commit(nil, ops); err != nil {
				return err
			}
			ops = ops[:0]
		}
	}
	return st.Commit(nil, ops)
}
