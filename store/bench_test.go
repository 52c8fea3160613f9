package store

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// BenchmarkCommitBatch appends events in groups of 4000 (one transaction
// each), the shape of the log writer's group commit under load.
func BenchmarkCommitBatch(b *testing.B) {
	for _, sync := range []bool{false, true} {
		name := "fsync=false"
		if sync {
			name = "fsync=true"
		}
		b.Run(name, func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "hub.db"), Options{NoSync: !sync})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			data := []byte(`{"id":"01KAKT6Z6X0000000000000000","type":"text.delta","session_id":"s","turn_id":"t1","ts":"2026-11-21T17:11:57.000Z","actor":"agent","payload":{"message_id":"m","content_block_index":0,"text":"hello world "}}`)
			ms := ulid.Timestamp(time.Now())
			var seq uint64
			const group = 4000
			recs := make([]EventRecord, group)
			b.ResetTimer()
			for done := 0; done < b.N; done += group {
				for i := range recs {
					seq++
					var id ulid.ULID
					_ = id.SetTime(ms)
					for k := 0; k < 8; k++ {
						id[15-k] = byte(seq >> (8 * k))
					}
					recs[i] = EventRecord{ID: id, SessionID: "s", Type: "text.delta", Streaming: true, Data: data, Actor: "agent", Group: "m"}
				}
				if err := db.Commit(recs, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
