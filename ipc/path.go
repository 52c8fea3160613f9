package ipc

import (
	"fmt"
	"slices"

	"agenthub/store"
)

// Branched sessions (docs/branching.md): a message's parent is the message
// its ParentID names (store.RootParent: none), or — the common case — the
// message stored just before it. The current path is the chain of parents
// from the session's head (Session.HeadID, or the newest message) back to
// the start. Reads of a branched session follow the current path, and the
// offsets they return are positions on it; an unbranched session is one
// chain, so its positions are its storage offsets and reads stay direct.

// PathMessages returns the messages of sessionID's current path with
// position in [offset, offset+limit) (limit ≤ 0: all), and the path's
// length; each message's Offset is its position and Siblings lists the
// messages sharing its parent when there are several.
func PathMessages(v StoreView, sessionID string, offset, limit int) ([]store.Message, int, error) {
	sess, err := v.Session(sessionID)
	if err != nil || !sess.Branched {
		return v.Messages(sessionID, offset, limit)
	}
	path, err := currentPath(v, sess)
	if err != nil {
		return nil, 0, err
	}
	return pageAt(path, offset, limit)
}

// pageAt is path's messages at positions [offset, offset+limit) (limit ≤ 0:
// to the end) and its length.
func pageAt(path []store.Message, offset, limit int) ([]store.Message, int, error) {
	total := len(path)
	offset = min(max(offset, 0), total)
	end := total
	if limit > 0 {
		end = min(offset+limit, total)
	}
	return path[offset:end], total, nil
}

// pageBefore is up to limit of path's messages before beforeID ("" = its
// end; limit ≤ 0: 50) and whether earlier ones remain; a beforeID not on
// path is ErrNotFound.
func pageBefore(path []store.Message, sessionID, beforeID string, limit int) ([]store.Message, bool, error) {
	if limit <= 0 {
		limit = 50
	}
	end := len(path)
	if beforeID != "" {
		end = slices.IndexFunc(path, func(m store.Message) bool { return m.ID == beforeID })
		if end < 0 {
			return nil, false, fmt.Errorf("message %s is not on that path of %s: %w", beforeID, sessionID, store.ErrNotFound)
		}
	}
	start := max(0, end-limit)
	return path[start:end], start > 0, nil
}

// PathMessagesBefore returns up to limit messages of the current path
// before beforeID ("" = from its end; limit ≤ 0: 50), oldest first, and
// whether earlier ones remain. A beforeID not on the path is ErrNotFound.
func PathMessagesBefore(v StoreView, sessionID, beforeID string, limit int) ([]store.Message, bool, error) {
	sess, err := v.Session(sessionID)
	if err != nil || !sess.Branched {
		return v.MessagesBefore(sessionID, beforeID, limit)
	}
	path, err := currentPath(v, sess)
	if err != nil {
		return nil, false, err
	}
	return pageBefore(path, sessionID, beforeID, limit)
}

// BranchMessages is PathMessages of the branch through messageID (to its
// newest leaf) instead of the current path; "" reads the current path. A
// messageID the session does not have is ErrNotFound.
func BranchMessages(v StoreView, sessionID, messageID string, offset, limit int) ([]store.Message, int, error) {
	if messageID == "" {
		return PathMessages(v, sessionID, offset, limit)
	}
	path, err := branchThrough(v, sessionID, messageID)
	if err != nil {
		return nil, 0, err
	}
	return pageAt(path, offset, limit)
}

// BranchMessagesBefore is PathMessagesBefore on the branch through messageID.
func BranchMessagesBefore(v StoreView, sessionID, messageID, beforeID string, limit int) ([]store.Message, bool, error) {
	if messageID == "" {
		return PathMessagesBefore(v, sessionID, beforeID, limit)
	}
	path, err := branchThrough(v, sessionID, messageID)
	if err != nil {
		return nil, false, err
	}
	return pageBefore(path, sessionID, beforeID, limit)
}

// branchThrough is the path from the start through messageID to its newest leaf.
func branchThrough(v StoreView, sessionID, messageID string) ([]store.Message, error) {
	t, err := LoadTree(v, sessionID)
	if err != nil {
		return nil, err
	}
	i, ok := t.Index(messageID)
	if !ok {
		return nil, fmt.Errorf("message %s in session %s: %w", messageID, sessionID, store.ErrNotFound)
	}
	return t.messagesOf(t.PathTo(t.Leaf(i))), nil
}

// PathLen is the number of messages on the current path (the next
// message's position).
func PathLen(v StoreView, sessionID string) int {
	sess, err := v.Session(sessionID)
	if err != nil || !sess.Branched {
		return v.MessageCount(sessionID)
	}
	_, n, err := PathMessages(v, sessionID, 0, 0)
	if err != nil {
		return v.MessageCount(sessionID)
	}
	return n
}

// Tree is every stored message of a session with its parent and children.
type Tree struct {
	Messages []store.Message // storage order
	index    map[string]int
	parent   []int   // -1: none
	children [][]int // by message; roots under -1 are in Roots
	Roots    []int
}

// LoadTree reads every message of a session (all branches).
func LoadTree(v StoreView, sessionID string) (*Tree, error) {
	ms, _, err := v.Messages(sessionID, 0, 0)
	if err != nil {
		return nil, err
	}
	t := &Tree{Messages: ms, index: make(map[string]int, len(ms)), parent: make([]int, len(ms)), children: make([][]int, len(ms))}
	for i, m := range ms {
		t.index[m.ID] = i
	}
	for i, m := range ms {
		p := i - 1
		switch m.ParentID {
		case "":
		case store.RootParent:
			p = -1
		default:
			if j, ok := t.index[m.ParentID]; ok && j < i {
				p = j
			} else {
				p = -1
			}
		}
		t.parent[i] = p
		if p < 0 {
			t.Roots = append(t.Roots, i)
		} else {
			t.children[p] = append(t.children[p], i)
		}
	}
	return t, nil
}

// Index is the storage index of message id (false when absent).
func (t *Tree) Index(id string) (int, bool) {
	i, ok := t.index[id]
	return i, ok
}

// Parent is the storage index of message i's parent (-1: none).
func (t *Tree) Parent(i int) int { return t.parent[i] }

// Children are the storage indexes of message i's children, oldest first
// (i = -1: the roots).
func (t *Tree) Children(i int) []int {
	if i < 0 {
		return t.Roots
	}
	return t.children[i]
}

// PathTo is the chain of storage indexes from the start to message i.
func (t *Tree) PathTo(i int) []int {
	var out []int
	for ; i >= 0; i = t.parent[i] {
		out = append(out, i)
	}
	slices.Reverse(out)
	return out
}

// Leaf is the newest leaf under message i, following the newest child at
// each step (i = -1: from the newest root).
func (t *Tree) Leaf(i int) int {
	for {
		c := t.Children(i)
		if len(c) == 0 {
			return i
		}
		i = c[len(c)-1]
	}
}

// Head is the storage index of the session's current head (-1: an empty path).
func (t *Tree) Head(sess store.Session) int {
	switch sess.HeadID {
	case "":
		return len(t.Messages) - 1
	case store.RootParent:
		return -1
	}
	if i, ok := t.index[sess.HeadID]; ok {
		return i
	}
	return len(t.Messages) - 1
}

// currentPath is the session's current path as messages with positions
// as offsets and sibling lists at branch points.
func currentPath(v StoreView, sess store.Session) ([]store.Message, error) {
	t, err := LoadTree(v, sess.ID)
	if err != nil {
		return nil, err
	}
	return t.messagesOf(t.PathTo(t.Head(sess))), nil
}

// messagesOf is the messages at the path idx, with positions as offsets
// and sibling lists at branch points.
func (t *Tree) messagesOf(idx []int) []store.Message {
	out := make([]store.Message, len(idx))
	for pos, i := range idx {
		m := t.Messages[i]
		m.Offset = int64(pos)
		if sib := t.Children(t.parent[i]); len(sib) > 1 {
			m.Siblings = make([]string, len(sib))
			for k, j := range sib {
				m.Siblings[k] = t.Messages[j].ID
			}
		}
		out[pos] = m
	}
	return out
}
