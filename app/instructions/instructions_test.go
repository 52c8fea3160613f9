package instructions_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agenthub/app/apptest"
	"agenthub/app/instructions"
)

func paths(fs []instructions.File) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Path)
	}
	return out
}

// TestFindFromNestedDirectories: the global file, then the VCS root's down
// to the workspace's; CLAUDE.md only where a directory has no AGENTS.md;
// nothing above the VCS root; directories named like the files are skipped.
func TestFindFromNestedDirectories(t *testing.T) {
	tmp := t.TempDir()
	global := filepath.Join(tmp, "data")
	repo := filepath.Join(tmp, "outside", "repo")
	ws := filepath.Join(repo, "services", "api")
	apptest.WriteFile(t, filepath.Join(tmp, "outside", "AGENTS.md"), "above the repository: never read")
	apptest.WriteFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	apptest.WriteFile(t, filepath.Join(repo, "AGENTS.md"), "Use tabs.\n")
	apptest.WriteFile(t, filepath.Join(repo, "CLAUDE.md"), "shadowed by AGENTS.md")
	apptest.WriteFile(t, filepath.Join(repo, "services", "CLAUDE.md"), "Services talk gRPC.\n")
	apptest.WriteFile(t, filepath.Join(ws, "AGENTS.md"), "Run make api-test.\n")
	apptest.WriteFile(t, filepath.Join(global, "AGENTS.md"), "Answer in English.\n")
	if err := os.MkdirAll(filepath.Join(ws, "sub", "AGENTS.md"), 0o755); err != nil {
		t.Fatal(err)
	}

	files, err := instructions.Find(ws, global)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(global, "AGENTS.md"), filepath.Join(repo, "AGENTS.md"), filepath.Join(repo, "services", "CLAUDE.md"), filepath.Join(ws, "AGENTS.md")}
	if got := paths(files); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("files = %v\nwant    %v", got, want)
	}
	if files[0].Scope != "global" || files[3].Scope != "project" || files[3].Size != int64(len("Run make api-test.\n")) || files[3].Cut() {
		t.Fatalf("file records: %+v", files)
	}
	p := instructions.Prompt(files)
	// The path is quoted as Go quotes it (a Windows path's backslashes doubled).
	for _, s := range []string{"Use tabs.", "Services talk gRPC.", "Run make api-test.", "Answer in English.", strconv.Quote(filepath.Join(ws, "AGENTS.md"))} {
		if !strings.Contains(p, s) {
			t.Errorf("the prompt lacks %q:\n%s", s, p)
		}
	}
	if strings.Contains(p, "never read") || strings.Contains(p, "shadowed") {
		t.Errorf("the prompt has a file it should not:\n%s", p)
	}
	if strings.Index(p, "Answer in English.") > strings.Index(p, "Run make api-test.") {
		t.Error("the workspace's file is not last")
	}
	// The sub-directory's "AGENTS.md" is a directory: from there the search finds the parent's.
	sub, err := instructions.Find(filepath.Join(ws, "sub"), "")
	if err != nil || len(sub) != 3 || sub[2].Path != filepath.Join(ws, "AGENTS.md") {
		t.Fatalf("from sub/: %v %v", paths(sub), err)
	}
}

// TestFindBoundsWhatItKeeps: a file over MaxFileBytes is cut on a whole
// line and character and says so; past MaxTotalBytes the outer files are
// cut first (the nearest is kept).
func TestFindBoundsWhatItKeeps(t *testing.T) {
	tmp := t.TempDir()
	ws := filepath.Join(tmp, "a", "b", "c")
	line := strings.Repeat("é", 40) + "\n" // 81 bytes, two-byte characters
	big := strings.Repeat(line, (instructions.MaxFileBytes/len(line))+100)
	for _, d := range []string{filepath.Join(tmp, "a"), filepath.Join(tmp, "a", "b"), ws} {
		apptest.WriteFile(t, filepath.Join(d, "AGENTS.md"), big)
	}
	apptest.WriteFile(t, filepath.Join(tmp, ".git"), "gitdir: elsewhere")
	files, err := instructions.Find(ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("files: %v", paths(files))
	}
	nearest, outer := files[2], files[0]
	if !nearest.Cut() || nearest.Kept > instructions.MaxFileBytes || !strings.HasSuffix(nearest.Text, "\n") || !strings.HasPrefix(big, nearest.Text) {
		t.Fatalf("the nearest file: kept %d of %d, ends %q", nearest.Kept, nearest.Size, nearest.Text[len(nearest.Text)-3:])
	}
	var total int64
	for _, f := range files {
		total += f.Kept
	}
	if total > instructions.MaxTotalBytes || outer.Kept >= nearest.Kept {
		t.Fatalf("kept %d bytes in all (outer %d, nearest %d)", total, outer.Kept, nearest.Kept)
	}
	if p := instructions.Prompt(files); !strings.Contains(p, fmt.Sprintf("%d of its %d bytes were cut", nearest.Size-nearest.Kept, nearest.Size)) {
		t.Fatalf("the prompt does not say what was cut")
	}
}

func ExamplePrompt() {
	fmt.Print(instructions.Prompt([]instructions.File{{Path: "/src/app/AGENTS.md", Scope: "project", Size: 18, Kept: 18, Text: "Run go vet first.\n"}}))
	// Output:
	// Instructions from the project (AGENTS.md / CLAUDE.md files; where they disagree, the one nearest the workspace — listed last — wins):
	//
	// <instructions path="/src/app/AGENTS.md" scope="project">
	// Run go vet first.
	// </instructions>
}
