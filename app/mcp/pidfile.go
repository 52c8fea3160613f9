package mcp

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"

	"agenthub/atomicfile"
)

// pidFiles records the running stdio servers in DIR (one file per process
// group), so that a start after a kill -9 of the app can kill what was left
// behind. Only processes carrying the recorded marker are killed: a pid
// reused by something else is never touched.
type pidFiles struct {
	dir string // "" keeps no files (tests of the manager alone)
	log *slog.Logger
}

type pidRecord struct {
	Server string `json:"server"`
	PGID   int    `json:"pgid"`
	Marker string `json:"marker"`
}

func (f *pidFiles) path(pgid int) string {
	return filepath.Join(f.dir, strconv.Itoa(pgid)+".json")
}

func (f *pidFiles) add(server string, pgid int, marker string) error {
	if f == nil || f.dir == "" {
		return nil
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return fmt.Errorf("mcp pid dir: %w", err)
	}
	b, _ := json.Marshal(pidRecord{Server: server, PGID: pgid, Marker: marker})
	if err := atomicfile.Write(f.path(pgid), b, 0o600); err != nil {
		return fmt.Errorf("mcp pid file: %w", err)
	}
	return nil
}

func (f *pidFiles) remove(pgid int) {
	if f == nil || f.dir == "" {
		return
	}
	if err := os.Remove(f.path(pgid)); err != nil && !os.IsNotExist(err) {
		f.log.Warn("mcp: removing pid file", "err", err)
	}
}

// sweep kills the processes of every recorded server (left by an app that
// did not stop cleanly) and removes the files. It returns how many
// processes it killed.
func (f *pidFiles) sweep() int {
	if f == nil || f.dir == "" {
		return 0
	}
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return 0
	}
	killed := 0
	for _, e := range entries {
		p := filepath.Join(f.dir, e.Name())
		b, err := os.ReadFile(p)
		var rec pidRecord
		if err == nil && json.Unmarshal(b, &rec) == nil && rec.Marker != "" {
			n := killMarked(rec.Marker)
			if n > 0 {
				f.log.Info("mcp: killed processes left by a previous run", "server", rec.Server, "pgid", rec.PGID, "processes", n)
			}
			killed += n
		}
		_ = os.Remove(p)
	}
	return killed
}
