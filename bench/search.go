package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"agenthub/app/search/searchtest"
	"agenthub/ipc"
	"agenthub/store"
)

// dbFile is the bbolt file in the data dir (app.DBFile; bench does not import app and its SDKs).
const dbFile = "agenthub.db"

// seedCorpus stores searchtest's corpus of n messages in DATA/agenthub.db.
func seedCorpus(data string, n int) error {
	db, err := store.Open(filepath.Join(data, dbFile), store.Options{NoSync: true})
	if err != nil {
		return err
	}
	defer db.Close()
	return searchtest.Seed(ipc.BoltStore(db), n)
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
	resident := rss(h.pid())
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
		n, seeded.Round(time.Millisecond), ready.Round(time.Millisecond), float64(resident)/(1<<20))
	fmt.Println("| request | p50 | p99 |")
	fmt.Println("|---|---|---|")
	p50, p99, err := timed("/api/info")
	if err != nil {
		return err
	}
	fmt.Printf("| floor: GET /api/info | %v | %v |\n", p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond))
	for _, q := range searchtest.Queries {
		p50, p99, err := timed("/search?limit=20&q=" + url.QueryEscape(q))
		if err != nil {
			return err
		}
		fmt.Printf("| GET /search?q=%s | %v | %v |\n", q, p50.Round(10*time.Microsecond), p99.Round(10*time.Microsecond))
	}
	return nil
}
