package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"agenthub/ipc"
	"agenthub/store"
)

// dbFile is the bbolt file in the data dir (app.DBFile; bench does not import app and its SDKs).
const dbFile = "agenthub.db"

// searchQueries are the bench's queries: a word in most messages, two
// words, a rare word, a short prefix matching ~1,000 words, three words.
var searchQueries = []string{"the", "flaky test", "zanzibar", "w12", "flaky zanzibar the"}

// seedCorpus stores n messages over n/100 sessions in DATA/agenthub.db: 30–300
// words each, drawn Zipf-like from a 20,000-word vocabulary (the corpus of
// app/search's BenchmarkSearch100k).
func seedCorpus(data string, n int) error {
	db, err := store.Open(filepath.Join(data, dbFile), store.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer db.Close()
	st := ipc.BoltStore(db)
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

// searchBench seeds n messages, starts the headless binary on them and
// times GET /search over HTTP for each query, beside GET /api/info (the
// same binary's cheapest authenticated round trip) in the same run; it
// prints a Markdown table.
func searchBench(ctx context.Context, bin string, n, reps int) error {
	root, err := os.MkdirTemp("", "agenthub-search-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	data := filepath.Join(root, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return err
	}
	began := time.Now()
	if err := seedCorpus(data, n); err != nil {
		return fmt.Errorf("seeding %d messages: %w", n, err)
	}
	seeded := time.Since(began)
	start := time.Now()
	h, err := startHub(ctx, bin, "http://127.0.0.1:9", root, nil)
	if err != nil {
		return err
	}
	defer h.stop()
	get := func(path string) (time.Duration, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.base+path, nil)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+h.token)
		t := time.Now()
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("GET %s: %s", path, res.Status)
		}
		return time.Since(t), nil
	}
	// The first search waits for the index, built from bbolt in the background at start.
	if _, err := get("/search?q=the&limit=20"); err != nil {
		return err
	}
	ready := time.Since(start)
	rss := vmRSS(h.pid())
	timed := func(path string) (p50, p99 time.Duration, err error) {
		ds := make([]time.Duration, 0, reps)
		for range reps {
			d, err := get(path)
			if err != nil {
				return 0, 0, err
			}
			ds = append(ds, d)
		}
		slices.Sort(ds)
		return pct(ds, 0.5), pct(ds, 0.99), nil
	}
	fmt.Printf("Search through the real binary: %d messages seeded in %v; binary start → first answer (index built) %v; hub RSS %.0f MiB\n\n",
		n, seeded.Round(time.Millisecond), ready.Round(time.Millisecond), float64(rss)/(1<<20))
	fmt.Println("| request | p50 | p99 |")
	fmt.Println("|---|---|---|")
	p50, p99, err := timed("/api/info")
	if err != nil {
		return err
	}
	fmt.Printf("| floor: GET /api/info | %v | %v |\n", p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond))
	for _, q := range searchQueries {
		p50, p99, err := timed("/search?limit=20&q=" + url.QueryEscape(q))
		if err != nil {
			return err
		}
		fmt.Printf("| GET /search?q=%s | %v | %v |\n", q, p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond))
	}
	return nil
}

// vmRSS is the resident set of pid in bytes (0 when unknown).
func vmRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb << 10
		}
	}
	return 0
}
