package tool

import (
	"context"
	"encoding/json"
	"io"
	"strings"
)

// EditSpot is where an edit_file call's old text is in its file now: the
// line it starts at and up to n lines before and after it — what an
// approval prompt shows around the diff, numbered as in the file.
type EditSpot struct {
	Line   int      // 1-based line of the old text's first line
	Before []string // the lines before it (at most n), oldest first
	After  []string // the lines after its last line (at most n)
	// Old and New are the whole lines the edit touches, before and after
	// it (old text that starts or ends mid-line is widened to its lines).
	Old, New string
}

// FindEdit reads the file an edit_file input names (through the tools'
// own race-free open: confined to env.Workspace, regular files only) and
// locates its old text, with n lines of context. ok is false when the
// input is not a valid edit or the old text does not occur exactly once:
// the call itself will then fail, saying why.
func FindEdit(env Env, input json.RawMessage, n int) (spot EditSpot, ok bool) {
	var in editInput
	if json.Unmarshal(input, &in) != nil || in.Old == nil || *in.Old == "" {
		return EditSpot{}, false
	}
	t, err := resolveTarget(context.Background(), "edit_file", env, in.Path)
	if err != nil {
		return EditSpot{}, false
	}
	defer t.Close()
	f, fi, err := t.openRegular()
	if err != nil {
		return EditSpot{}, false
	}
	defer f.Close()
	if fi.Size() > editMaxBytes {
		return EditSpot{}, false
	}
	data, err := io.ReadAll(io.LimitReader(f, editMaxBytes+1))
	if err != nil || isBinary(data) {
		return EditSpot{}, false
	}
	content := string(data)
	old, nw := matchLineEndings(content, *in.Old, derefOr(in.New))
	in.Old, in.New = &old, &nw
	if strings.Count(content, *in.Old) != 1 {
		return EditSpot{}, false
	}
	at := strings.Index(content, *in.Old)
	// The whole lines the old text touches: from the start of its first
	// line to the end of its last.
	start := strings.LastIndexByte(content[:at], '\n') + 1
	end := at + len(*in.Old)
	if !strings.HasSuffix(*in.Old, "\n") {
		if nl := strings.IndexByte(content[end:], '\n'); nl >= 0 {
			end += nl + 1
		} else {
			end = len(content)
		}
	}
	before := splitLines(content[:start])
	after := splitLines(content[end:])
	spot = EditSpot{Line: 1 + strings.Count(content[:start], "\n"), Old: content[start:end],
		New: content[start:at] + derefOr(in.New) + content[at+len(*in.Old):end]}
	spot.Before = before[max(0, len(before)-n):]
	spot.After = after[:min(n, len(after))]
	return spot, true
}

// splitLines is text's lines without their endings ("" has none; a final
// newline ends the last line).
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
