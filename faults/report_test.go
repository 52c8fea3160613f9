package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// report collects each test's figures for AGENTHUB_FAULTS_REPORT.
type report struct {
	mu   sync.Mutex
	rows [][2]string
}

var rep report

func (r *report) add(what, figures string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows = append(r.rows, [2]string{what, figures})
}

// write saves the report as a Markdown table (when the env var names a file).
func (r *report) write() error {
	path := os.Getenv("AGENTHUB_FAULTS_REPORT")
	if path == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	mode := "short"
	if long() {
		mode = "long"
	}
	fmt.Fprintf(&b, "Fault run (%s), %s\n\n| attack | result |\n|---|---|\n", mode, time.Now().UTC().Format(time.RFC3339))
	for _, row := range r.rows {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], strings.ReplaceAll(row[1], "|", "\\|"))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2].Round(time.Millisecond)
}

func maxDur(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return slices.Max(ds).Round(time.Millisecond)
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
