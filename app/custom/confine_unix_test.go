//go:build unix

package custom_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"agenthub/app/custom"
)

// A repository's definition files cannot pull in what is not the user's
// own file inside the project: a symlink out (to a key, into the data
// dir), a FIFO (which would block the read), a file or folder others may
// write, another user's file, a folder above the project root, a skill
// file outside its folder. Each was read by a plain open.
func TestDefinitionsStayInside(t *testing.T) {
	root, ws := project(t)
	outside := t.TempDir()
	secret := write(t, outside, "id_ed25519", "---\ndescription: SECRET KEY\n---\nSECRET KEY\n")
	dataDir := filepath.Join(root, "data")
	write(t, dataDir, "settings.json", "---\ndescription: DATA DIR\n---\nDATA DIR\n")
	cmds := filepath.Join(ws, ".claude", "commands")
	write(t, cmds, "ok.md", "---\ndescription: fine\n---\nfine\n")
	for name, target := range map[string]string{"steal.md": secret, "settings.md": filepath.Join(dataDir, "settings.json")} {
		if err := os.Symlink(target, filepath.Join(cmds, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(cmds, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	loose := write(t, cmds, "loose.md", "---\ndescription: WORLD WRITABLE\n---\nx\n")
	if err := os.Chmod(loose, 0o666); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(ws, ".agenthub", "commands")
	write(t, shared, "planted.md", "---\ndescription: PLANTED\n---\nx\n")
	if err := os.Chmod(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(cmds, "linked")); err != nil { // a namespace folder leading out
		t.Fatal(err)
	}
	write(t, filepath.Dir(root), ".claude/commands/above.md", "---\ndescription: ABOVE THE ROOT\n---\nx\n")
	write(t, ws, ".claude/agents/spy.md", "---\nname: spy\ndescription: x\n---\nx\n")
	if err := os.Symlink(secret, filepath.Join(ws, ".claude", "agents", "key.md")); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(ws, ".claude", "skills", "s")
	write(t, skill, "SKILL.md", "---\ndescription: a skill\n---\nbody\n")
	if err := os.Symlink(secret, filepath.Join(skill, "key.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, ".claude", "skills", "out")); err != nil {
		t.Fatal(err)
	}

	done := make(chan custom.Set, 1)
	go func() { done <- custom.Load(ws, nil, []string{dataDir}) }()
	var set custom.Set
	select {
	case set = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked (on the FIFO?)")
	}
	var names []string
	for _, c := range set.Commands {
		names = append(names, c.Name+": "+c.Description+" "+c.Body)
	}
	for _, a := range set.Agents {
		names = append(names, a.Name+": "+a.Prompt)
	}
	all := strings.Join(names, "\n")
	for _, leaked := range []string{"SECRET KEY", "DATA DIR", "WORLD WRITABLE", "PLANTED", "ABOVE THE ROOT"} {
		if strings.Contains(all, leaked) {
			t.Errorf("%s was read:\n%s", leaked, all)
		}
	}
	if _, ok := set.Command("ok"); !ok {
		t.Errorf("the good command is missing: %s", all)
	}
	if _, ok := set.Agent("spy"); !ok {
		t.Errorf("the good agent is missing: %s", all)
	}
	for _, p := range []string{"steal.md", "settings.md", "pipe.md", "loose.md", "key.md"} {
		if !hasProblem(set, p, "not read") {
			t.Errorf("no problem reported for %s: %v", p, set.Problems)
		}
	}
	s, _ := set.Command("s")
	if body, err := custom.ReadSkillFile(s, "key.md", []string{dataDir}); err == nil || strings.Contains(body, "SECRET") {
		t.Errorf("a skill file leading out was read: %q", body)
	}
	for _, rel := range []string{"../../../../id_ed25519", filepath.Join(outside, "id_ed25519")} {
		if body, err := custom.ReadSkillFile(s, rel, []string{dataDir}); err == nil {
			t.Errorf("ReadSkillFile(%s) = %q", rel, body)
		}
	}
}

// Another user's definition file is never read, even inside the project
// (needs root to make one; CI runs as root).
func TestDefinitionsFromOthersAreNotRead(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("making another user's file needs root")
	}
	_, ws := project(t)
	p := write(t, ws, ".claude/commands/other.md", "---\ndescription: OTHER USER\n---\nx\n")
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	set := custom.Load(ws, nil, nil)
	if _, ok := set.Command("other"); ok {
		t.Fatal("another user's command was read")
	}
}
