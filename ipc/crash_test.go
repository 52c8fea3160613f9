package ipc

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"agenthub/store"

	"github.com/oklog/ulid/v2"
)

const crashEnv = "AGENTHUB_CRASH_CHILD_DB"

// crashChild runs in the re-executed test binary: it appends with durable
// group commits from several goroutines and prints every acknowledged id
// until it is killed.
func crashChild(path string) {
	db, err := store.Open(path, store.Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	b, err := NewBus(BoltStore(db), Options{PruneInterval: -1})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("epoch", db.Epoch())
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	ctx := context.Background()
	_, _ = b.Commit(ctx, Draft{Type: TypeSessionCreated, SessionID: "s", Actor: ActorSystem,
		Ops: []store.Op{store.PutSession(store.Session{ID: "s"})}})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				ds := []Draft{delta("s", "m", fmt.Sprint(w, i))}
				if i%7 == 0 {
					ds = append(ds, Draft{Type: TypeToolCalled, SessionID: "s", Actor: ActorTool,
						Ops: []store.Op{store.PutMessage(store.Message{ID: fmt.Sprintf("m%d-%d", w, i), SessionID: "s"})}})
				}
				evs, err := b.Commit(ctx, ds...)
				if err != nil {
					fmt.Println("error", err)
					os.Exit(2)
				}
				mu.Lock()
				for _, ev := range evs {
					fmt.Fprintln(out, "ack", ev.ID)
				}
				_ = out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// Crash test: kill -9 a writer at random moments; every acknowledged id
// survives, ids strictly increase, bbolt's check is clean and the epoch
// changes.
func TestCrashRecovery(t *testing.T) {
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(path)
		return
	}
	if testing.Short() {
		t.Skip("spawns processes")
	}
	rounds := 20
	if isLong() {
		rounds = 200
	}
	rng := rand.New(rand.NewSource(42))
	path := filepath.Join(t.TempDir(), "hub.db")
	acked := map[ulid.ULID]bool{}
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashRecovery$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		killAfter := 1 + rng.Intn(400)
		var childEpoch string
		n := 0
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "epoch "):
				childEpoch = strings.TrimPrefix(line, "epoch ")
			case strings.HasPrefix(line, "ack "):
				acked[ulid.MustParseStrict(strings.TrimPrefix(line, "ack "))] = true
				n++
			case strings.HasPrefix(line, "error"):
				t.Fatalf("round %d child: %s", round, line)
			}
			if n == killAfter {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		for sc.Scan() { // acks printed before the kill landed are acks too
			if line := sc.Text(); strings.HasPrefix(line, "ack ") {
				acked[ulid.MustParseStrict(strings.TrimPrefix(line, "ack "))] = true
			}
		}
		_ = cmd.Wait()
		db, err := store.Open(path, store.Options{})
		if err != nil {
			t.Fatalf("round %d reopen: %v", round, err)
		}
		if !db.RecoveredFromCrash() || db.Epoch() != childEpoch || childEpoch == "" {
			t.Fatalf("round %d: epoch %s after crash of epoch %s (recovered=%v); a crash must keep the epoch", round, db.Epoch(), childEpoch, db.RecoveredFromCrash())
		}
		if err := db.Check(); err != nil {
			t.Fatalf("round %d: bbolt check: %v", round, err)
		}
		seen := map[ulid.ULID]bool{}
		var prev ulid.ULID
		err = db.EventsAfter([]string{"s"}, ulid.ULID{}, func(r store.EventRecord) error {
			if r.ID.Compare(prev) <= 0 {
				return fmt.Errorf("id %s after %s", r.ID, prev)
			}
			prev = r.ID
			seen[r.ID] = true
			return nil
		})
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		for id := range acked {
			if !seen[id] {
				t.Fatalf("round %d: acknowledged id %s lost", round, id)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d rounds, %d acknowledged ids all present", rounds, len(acked))
}
