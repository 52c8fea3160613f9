package ipc

import (
	"testing"

	"agenthub/store"
)

// reopenAfterCrash simulates a crash of a process holding db: the file is
// reopened without db having recorded a clean shutdown. db is abandoned
// (its lock released by closing the underlying file via a copy).
func reopenAfterCrash(t *testing.T, db *store.DB, path string) *store.DB {
	t.Helper()
	if err := store.CloseUnclean(db); err != nil {
		t.Fatal(err)
	}
	db2, err := store.Open(path, store.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return db2
}
