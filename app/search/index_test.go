package search_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"agenthub/app/search"
	"agenthub/ipc"
	"agenthub/store"
)

var t0 = time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)

func msg(sid, id, role, text string) store.Message {
	return store.Message{ID: id, SessionID: sid, Role: role, Status: store.StatusComplete,
		Content: []store.ContentBlock{{Type: store.BlockText, Text: text}}, CreatedAt: t0}
}

func commit(t *testing.T, st ipc.Store, ops ...store.Op) {
	t.Helper()
	if err := st.Commit(nil, ops); err != nil {
		t.Fatal(err)
	}
}

func find(t *testing.T, x *search.Index, q string) []string {
	t.Helper()
	hits, err := x.Search(context.Background(), q, 0)
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.MessageID)
	}
	return ids
}

func same(t *testing.T, q string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Search(%q) = %v, want %v", q, got, want)
	}
}

// TestIndexFindsEveryMessage: messages stored before Open (the background
// build) and after it (through the wrapped Commit) are found by every word,
// case-insensitively, the last word also as a prefix, newest first; a
// replaced message is found by its new text only; a deleted session's
// messages are gone.
func TestIndexFindsEveryMessage(t *testing.T) {
	mem := ipc.NewMemoryStore()
	commit(t, mem, store.PutSession(store.Session{ID: "a", Title: "Race hunt", CreatedAt: t0}),
		store.PutMessage(msg("a", "m1", store.RoleUser, "Why does the Data Race detector fire?")))
	x, st := search.Open(mem, nil)
	defer x.Close()
	commit(t, st, store.PutSession(store.Session{ID: "b", Title: "Parser", CreatedAt: t0}),
		store.PutMessage(msg("b", "m2", store.RoleAssistant, "The parser has a data race in its cache.")),
		store.PutMessage(msg("b", "m3", store.RoleToolResult, "ok  agenthub/parser 0.41s")))
	<-x.Ready()
	same(t, "data race", find(t, x, "data race"), "m2", "m1")
	same(t, "DATA", find(t, x, "DATA"), "m2", "m1")
	same(t, "pars (prefix)", find(t, x, "pars"), "m3", "m2")
	same(t, "race detector", find(t, x, "race detector"), "m1")
	same(t, "no such word", find(t, x, "zebra race"))

	commit(t, st, store.PutMessage(msg("b", "m2", store.RoleAssistant, "Rewritten: a lock fixes it.")))
	same(t, "after rewrite", find(t, x, "cache"))
	same(t, "new text", find(t, x, "lock"), "m2")

	hits, err := x.Search(context.Background(), "lock", 5)
	if err != nil || len(hits) != 1 || hits[0].SessionID != "b" || hits[0].SessionTitle != "Parser" || hits[0].Role != store.RoleAssistant || hits[0].Offset != 0 {
		t.Fatalf("hit %+v %v", hits, err)
	}

	commit(t, st, store.DeleteSession("b"))
	same(t, "deleted session", find(t, x, "parser"))
	same(t, "other session stays", find(t, x, "detector"), "m1")
}

// TestSearchLimitsAndErrors: limit bounds the hits; an empty, wordless or
// too long query and a bad limit are invalid input.
func TestSearchLimitsAndErrors(t *testing.T) {
	mem := ipc.NewMemoryStore()
	ops := []store.Op{store.PutSession(store.Session{ID: "a", CreatedAt: t0})}
	for i := range 30 {
		ops = append(ops, store.PutMessage(msg("a", fmt.Sprintf("m%02d", i), store.RoleUser, "flaky test number "+fmt.Sprint(i))))
	}
	commit(t, mem, ops...)
	x, _ := search.Open(mem, nil)
	defer x.Close()
	hits, err := x.Search(context.Background(), "flaky", 0)
	if err != nil || len(hits) != ipc.DefaultSearchLimit || hits[0].MessageID != "m29" {
		t.Fatalf("default limit: %d hits, first %+v, %v", len(hits), hits, err)
	}
	if hits, _ := x.Search(context.Background(), "flaky", 3); len(hits) != 3 {
		t.Fatalf("limit 3: %d hits", len(hits))
	}
	for _, bad := range []struct {
		q     string
		limit int
	}{{"", 0}, {"  ?! ", 0}, {strings.Repeat("a", ipc.MaxSearchQuery+1), 0}, {"flaky", -1}, {"flaky", ipc.MaxSearchLimit + 1}} {
		if _, err := x.Search(context.Background(), bad.q, bad.limit); !errors.Is(err, ipc.ErrInvalidInput) {
			t.Fatalf("Search(%.20q, %d) = %v, want invalid input", bad.q, bad.limit, err)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 30) + "the NEEDLE is here " + strings.Repeat("dolor sit ", 30)
	s := search.Snippet(long, []string{"needle"})
	if !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") || !strings.Contains(s, "the NEEDLE is here") || len([]rune(s)) > 205 {
		t.Fatalf("snippet %q", s)
	}
	if s := search.Snippet("short\n\ntext  here", []string{"zzz"}); s != "short text here" {
		t.Fatalf("no match: %q", s)
	}
}

func ExampleIndex_Search() {
	mem := ipc.NewMemoryStore()
	x, st := search.Open(mem, nil)
	defer x.Close()
	_ = st.Commit(nil, []store.Op{
		store.PutSession(store.Session{ID: "s1", Title: "Deploy", CreatedAt: t0}),
		store.PutMessage(msg("s1", "m1", store.RoleUser, "How do I roll back the deploy?")),
	})
	hits, _ := x.Search(context.Background(), "roll back", 10)
	for _, h := range hits {
		fmt.Printf("%s %s %q\n", h.SessionTitle, h.MessageID, h.Snippet)
	}
	// Output: Deploy m1 "How do I roll back the deploy?"
}
