package store

import (
	"errors"
	"fmt"
	"os"
	"time"

	bolt "go.etcd.io/bbolt"
)

// CompactStats reports what CompactIfSparse did.
type CompactStats struct {
	Compacted     bool
	FreeRatio     float64 // free pages / all pages of the file before
	Before, After int64   // file sizes in bytes
}

// compactTxBytes bounds one copy transaction of bbolt's Compact.
const compactTxBytes = 64 << 20

// CompactIfSparse rewrites the bbolt file at path into a new file with
// bbolt's Compact and swaps it in (rename) when more than threshold of its
// pages are free; otherwise it leaves the file alone. Everything is copied,
// the meta bucket included, so the epoch, the clean-shutdown marker and the
// log's identity (<path>.identity names the same epoch and high water) are
// kept. The caller must hold the data dir's instance lock: the swap is not
// safe against another process opening the file meanwhile. A missing file
// is not an error. On any failure the original file is left untouched.
func CompactIfSparse(path string, threshold float64, timeout time.Duration) (CompactStats, error) {
	var st CompactStats
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	} else if err != nil {
		return st, fmt.Errorf("store: compact %s: %w", path, err)
	}
	st.Before, st.After = fi.Size(), fi.Size()
	src, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return st, fmt.Errorf("store: compact %s: %w", path, err)
	}
	pages := fi.Size() / int64(src.Info().PageSize)
	s := src.Stats()
	if pages > 0 {
		st.FreeRatio = float64(s.FreePageN+s.PendingPageN) / float64(pages)
	}
	if st.FreeRatio <= threshold {
		return st, src.Close()
	}
	tmp := path + ".compact"
	_ = os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: timeout, FreelistType: bolt.FreelistMapType})
	if err != nil {
		_ = src.Close()
		return st, fmt.Errorf("store: compact %s: %w", path, err)
	}
	cerr := bolt.Compact(dst, src, compactTxBytes)
	serr := dst.Sync()
	derr := dst.Close()
	if err := errors.Join(cerr, serr, derr); err != nil {
		_ = src.Close()
		_ = os.Remove(tmp)
		return st, fmt.Errorf("store: compact %s: %w", path, err)
	}
	if err := src.Close(); err != nil {
		_ = os.Remove(tmp)
		return st, fmt.Errorf("store: compact %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return st, fmt.Errorf("store: compact %s: swap: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil {
		st.After = fi.Size()
	}
	st.Compacted = true
	return st, nil
}
