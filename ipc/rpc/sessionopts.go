package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"agenthub/ipc"
)

// Methods of the second wave's daily-driver UI (docs/sessions.md).
const (
	// MethodUpdateSession changes a session's model or folder between turns.
	MethodUpdateSession = "updateSession"
	// MethodReadToolOutput reads a slice of a tool call's stored output.
	MethodReadToolOutput = "readToolOutput"
)

// ErrNoSessionUpdates: the hub does not implement ipc.SessionUpdater.
var ErrNoSessionUpdates = errors.New("this hub cannot change a session's model or folder")

type updateParams struct {
	sessionParams
	ipc.SessionUpdate
}

func (h hubMethods) updateSession(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, u, err := decodeFor[updateParams, ipc.SessionUpdater](h, raw, ErrNoSessionUpdates)
	if err != nil {
		return nil, err
	}
	if p.Model == nil && p.WorkspacePath == nil {
		return nil, Errorf(CodeInvalidParams, "nothing to change: give model or workspace_path")
	}
	return u.UpdateSession(ctx, id, p.SessionUpdate)
}

// Bounds of readToolOutput's length.
const (
	DefaultToolOutputChunk = 256 << 10
	MaxToolOutputChunk     = 1 << 20
)

type toolOutputParams struct {
	sessionParams
	ToolUseID string `json:"tool_use_id"`
	Offset    int64  `json:"offset"`
	Length    int    `json:"length"`
}

// ToolOutputChunk is the answer of readToolOutput: text read from byte
// offset Offset, ending on a whole UTF-8 character; Next is the offset to
// read on from, Size the output's size now (it grows while the call runs).
type ToolOutputChunk struct {
	Text   string `json:"text"`
	Offset int64  `json:"offset"`
	Next   int64  `json:"next"`
	Size   int64  `json:"size"`
	EOF    bool   `json:"eof"`
}

// readToolOutput serves the RPC twin of GET
// /sessions/{id}/tools/{tool_use_id}/output for clients without the
// dashboard port (the window): one chunk of at most 1 MiB per call.
func (h hubMethods) readToolOutput(ctx context.Context, raw json.RawMessage) (any, error) {
	p, id, src, err := decodeFor[toolOutputParams, ipc.ToolOutputs](h, raw, fmt.Errorf("this hub keeps no tool outputs: %w", ipc.ErrToolCallNotFound))
	if err != nil {
		return nil, err
	}
	if p.Offset < 0 || p.Length < 0 || p.Length > MaxToolOutputChunk {
		return nil, Errorf(CodeInvalidParams, "offset must be ≥ 0 and length 0–%d", MaxToolOutputChunk)
	}
	if p.Length == 0 {
		p.Length = DefaultToolOutputChunk
	}
	out, err := src.Output(ctx, id, p.ToolUseID)
	if err != nil {
		return nil, err
	}
	defer out.Content.Close()
	size, err := out.Content.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, fmt.Errorf("reading tool output: %w", err)
	}
	if p.Offset > size {
		p.Offset = size
	}
	if _, err := out.Content.Seek(p.Offset, io.SeekStart); err != nil {
		return nil, fmt.Errorf("reading tool output: %w", err)
	}
	buf := make([]byte, min(int64(p.Length), size-p.Offset))
	n, err := io.ReadFull(out.Content, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading tool output: %w", err)
	}
	buf = buf[:n]
	end := p.Offset + int64(n)
	if end < size {
		buf = buf[:wholeRunes(buf)]
		end = p.Offset + int64(len(buf))
	}
	return ToolOutputChunk{Text: string(buf), Offset: p.Offset, Next: end, Size: size, EOF: end >= size}, nil
}

// wholeRunes is the length of b without a UTF-8 character cut at its end.
func wholeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if r, _ := utf8.DecodeRune(b[i:]); r == utf8.RuneError && !utf8.FullRune(b[i:]) {
				return i
			}
			return len(b)
		}
	}
	return len(b)
}

// MethodGetInstructions lists the instruction files a session's next turn reads.
const MethodGetInstructions = "getInstructions"

// InstructionsResult is the answer of getInstructions.
type InstructionsResult struct {
	Files []ipc.InstructionFile `json:"files"`
}

func (h hubMethods) getInstructions(ctx context.Context, raw json.RawMessage) (any, error) {
	_, id, err := decodeSession[sessionParams](raw)
	if err != nil {
		return nil, err
	}
	r, ok := h.hub.(ipc.InstructionsReader)
	if !ok {
		return InstructionsResult{Files: []ipc.InstructionFile{}}, nil
	}
	files, err := r.Instructions(ctx, id)
	if err != nil {
		return nil, err
	}
	return InstructionsResult{Files: nonNil(files)}, nil
}

// MethodListFiles completes @-mentions: workspace paths matching a query.
const MethodListFiles = "listFiles"

// FilesResult is the answer of listFiles: paths relative to the session's folder.
type FilesResult struct {
	Files []string `json:"files"`
}

type filesParams struct {
	sessionParams
	Query string `json:"query"`
	Limit int    `json:"limit"`
	// WorkspacePath, instead of a session, is a folder a session is about
	// to be created in (the new-session view's first message).
	WorkspacePath *string `json:"workspace_path"`
}

func (h hubMethods) listFiles(ctx context.Context, raw json.RawMessage) (any, error) {
	var folder filesParams
	if err := DecodeParams(raw, &folder); err == nil && folder.WorkspacePath != nil {
		l, ok := h.hub.(ipc.FolderFileLister)
		if !ok {
			return FilesResult{Files: []string{}}, nil
		}
		files, err := l.ListFolderFiles(ctx, *folder.WorkspacePath, folder.Query, folder.Limit)
		if err != nil {
			return nil, err
		}
		return FilesResult{Files: nonNil(files)}, nil
	}
	p, id, err := decodeSession[filesParams](raw)
	if err != nil {
		return nil, err
	}
	l, ok := h.hub.(ipc.FileLister)
	if !ok {
		return FilesResult{Files: []string{}}, nil
	}
	files, err := l.ListFiles(ctx, id, p.Query, p.Limit)
	if err != nil {
		return nil, err
	}
	return FilesResult{Files: nonNil(files)}, nil
}
