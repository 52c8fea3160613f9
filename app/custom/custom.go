// Package custom reads the custom commands, skills and sub-agents people
// already keep as Markdown files with YAML front matter — Claude Code's,
// opencode's and Agent Hub's own folders — from a session's workspace up
// to its project root (app/instructions.ProjectRoot) and from the user's
// own config folders, and expands a command's template for a turn
// (docs/workflows.md).
//
// What a file may do is bounded by trust: files are read only through
// app/confine (no symlink out, regular files only, never the data dir) and
// only when the user could have written them alone (app/instructions'
// owner and mode checks). Nothing a file says widens what a session may
// do: allowed-tools and tools only take tools away (Restriction), model
// picks a model, and a command's shell lines run as ordinary bash calls
// under the session's rules — a repository's, the first time, only after
// the user said so (Trust).
package custom

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"agenthub/app/confine"
	"agenthub/app/instructions"
)

// Sources of a definition.
const (
	SourceProject = "project" // the workspace or a folder above it, up to the project root
	SourceUser    = "user"    // the user's own config folder
)

// Kinds of what a "/name" runs.
const (
	KindCommand = "command"
	KindSkill   = "skill"
)

// Bounds.
const (
	// MaxFileBytes is the largest definition file read.
	MaxFileBytes = 64 << 10
	// MaxDefinitions bounds the definitions of each kind.
	MaxDefinitions = 200
	// maxDepth bounds the sub-folders of a commands folder (namespaces).
	maxDepth = 3
)

// Command is a custom command or a skill the user runs as /Name: its
// template Body, where it came from (Path, Source), its front matter's
// description, argument-hint, allowed-tools (Tools, a Restriction) and
// model, the shell lines its body runs (Shell: !`…`), and Hash, the
// SHA-256 of the file (what trust remembers).
type Command struct {
	Name         string
	Kind         string
	Description  string
	ArgumentHint string
	Path         string
	Source       string
	Body         string
	Tools        Restriction
	Model        string
	Shell        []string
	Hash         string
	// Dir is a skill's folder (its other files are read through it).
	Dir string
}

// Agent is a named sub-agent: its system prompt, the tools it is
// restricted to (empty: the session's) and its model ("" the parent's).
type Agent struct {
	Name        string
	Description string
	Path        string
	Source      string
	Prompt      string
	Tools       Restriction
	Model       string
	// Mode is the approval mode its permissionMode names (plan, ask,
	// auto-edits, auto-all; "" none): the worker runs in the narrower of
	// it and its parent's, so it only ever takes away.
	Mode string
}

// Problem is a definition file that was left out, or read with a note.
type Problem struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Set is what Load found.
type Set struct {
	Commands []Command // commands and skills, by precedence; names unique
	Agents   []Agent
	Problems []Problem
}

// Command returns the command or skill called name.
func (s Set) Command(name string) (Command, bool) {
	for _, c := range s.Commands {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// Skills returns the skills.
func (s Set) Skills() []Command {
	var out []Command
	for _, c := range s.Commands {
		if c.Kind == KindSkill {
			out = append(out, c)
		}
	}
	return out
}

// Agent returns the agent called name.
func (s Set) Agent(name string) (Agent, bool) {
	for _, a := range s.Agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// Builtins are the names of the window's own commands; a file cannot take
// one (Load reports it as a problem).
var Builtins = []string{"compact", "model", "plan", "title", "clear", "undo"}

// Folders, relative to a project folder or to a user base folder.
var (
	commandDirs = []string{".agenthub/commands", ".claude/commands", ".opencode/command", ".opencode/commands"}
	skillDirs   = []string{".agenthub/skills", ".claude/skills"}
	agentDirs   = []string{".agenthub/agents", ".claude/agents"}
)

// UserDir is one of the user's config folders with its layout: Base holds
// Commands/Skills/Agents (relative; "" for none).
type UserDir struct {
	Base                     string
	Commands, Skills, Agents []string
}

// UserDirs returns the user's config folders, in order of precedence:
// Agent Hub's (XDG config/agenthub), Claude Code's (~/.claude) and
// opencode's (XDG config/opencode).
func UserDirs() []UserDir {
	var out []UserDir
	if cfg, err := os.UserConfigDir(); err == nil {
		out = append(out, UserDir{Base: filepath.Join(cfg, "agenthub"), Commands: []string{"commands"}, Skills: []string{"skills"}, Agents: []string{"agents"}})
	}
	if home, err := os.UserHomeDir(); err == nil {
		out = append(out, UserDir{Base: filepath.Join(home, ".claude"), Commands: []string{"commands"}, Skills: []string{"skills"}, Agents: []string{"agents"}})
	}
	if cfg, err := os.UserConfigDir(); err == nil {
		out = append(out, UserDir{Base: filepath.Join(cfg, "opencode"), Commands: []string{"command", "commands"}})
	}
	return out
}

// Load reads the definitions for workspace: from the workspace up to its
// project root (the nearest folder first), then from users (UserDirs);
// the first definition of a name wins. protected (the data dir) is never
// read. A file left out is reported in Problems.
func Load(workspace string, users []UserDir, protected []string) Set {
	l := &loader{protected: protected, seen: map[string]bool{}, agentSeen: map[string]bool{}}
	if ws, err := confine.RealPath(workspace); err == nil {
		root := instructions.ProjectRoot(ws)
		if d, err := confine.Open(root, protected); err == nil {
			for dir := ws; ; dir = filepath.Dir(dir) {
				rel, err := filepath.Rel(root, dir)
				if err != nil {
					break
				}
				l.folder(d, rel, SourceProject, commandDirs, skillDirs, agentDirs)
				if dir == root || filepath.Dir(dir) == dir {
					break
				}
			}
			d.Close()
		}
	}
	for _, u := range users {
		d, err := confine.Open(u.Base, protected)
		if err != nil {
			continue
		}
		l.folder(d, ".", SourceUser, u.Commands, u.Skills, u.Agents)
		d.Close()
	}
	return l.set
}

// loader collects a Set.
type loader struct {
	protected []string
	set       Set
	seen      map[string]bool // command and skill names
	agentSeen map[string]bool
}

func (l *loader) problem(path string, format string, args ...any) {
	l.set.Problems = append(l.set.Problems, Problem{Path: path, Error: fmt.Sprintf(format, args...)})
}

// folder reads the definitions under rel (a folder of d's tree).
func (l *loader) folder(d *confine.Dir, rel, source string, commands, skills, agents []string) {
	for _, c := range commands {
		l.commands(d, filepath.Join(rel, c), "", source, 0)
	}
	for _, s := range skills {
		l.skills(d, filepath.Join(rel, s), source)
	}
	for _, a := range agents {
		l.agents(d, filepath.Join(rel, a), source)
	}
}

// entries lists a folder of d's tree that only the user can have written.
func entries(d *confine.Dir, rel string) []fs.DirEntry {
	fi, err := d.Stat(rel)
	if err != nil || !fi.IsDir() || !instructions.Trusted(fi) {
		return nil
	}
	es, err := d.ReadDir(rel)
	if err != nil {
		return nil
	}
	return es
}

// commands reads the *.md files of a commands folder; a sub-folder's are
// named "sub:name".
func (l *loader) commands(d *confine.Dir, rel, prefix, source string, depth int) {
	for _, e := range entries(d, rel) {
		name := e.Name()
		switch {
		case e.IsDir() && depth < maxDepth && validName(name):
			l.commands(d, filepath.Join(rel, name), prefix+name+":", source, depth+1)
		case isFile(e) && strings.HasSuffix(name, ".md"):
			l.command(d, filepath.Join(rel, name), prefix+strings.TrimSuffix(name, ".md"), source)
		}
	}
}

func (l *loader) command(d *confine.Dir, rel, name, source string) {
	f, ok := l.definition(d, rel)
	if !ok {
		return
	}
	if !validCommandName(name) {
		l.problem(f.path, "the name %q is not a command name (letters, digits, '.', '_', '-')", name)
		return
	}
	c := Command{Name: name, Kind: KindCommand, Path: f.path, Source: source, Body: f.body, Hash: f.hash,
		Description: f.fm.text("description"), ArgumentHint: f.fm.text("argument-hint")}
	l.fill(&c, f.fm)
	c.Shell = shellLines(f.body)
	l.add(c)
}

// file is a definition file read and split.
type file struct {
	path       string
	fm         frontMatter
	body, hash string
}

// definition reads the definition file rel of d's tree and splits its
// front matter; ok is false when it was left out (reported).
func (l *loader) definition(d *confine.Dir, rel string) (file, bool) {
	path := filepath.Join(d.Path(), rel)
	b, ok := l.read(d, rel)
	if !ok {
		return file{}, false
	}
	fm, body, err := splitFrontMatter(b)
	if err != nil {
		l.problem(path, "%v", err)
		return file{}, false
	}
	return file{path: path, fm: fm, body: body, hash: hashOf(b)}, true
}

// tools reads a tool list key (allowed-tools, tools) as a Restriction;
// ok is false when the key has a shape Agent Hub cannot read (reported).
func (l *loader) tools(path string, fm frontMatter, key string) (Restriction, bool) {
	items, present, ok := fm.list(key)
	if !ok {
		l.problem(path, "%s as a mapping is not supported", key)
		return nil, false
	}
	if !present {
		return nil, true
	}
	tools, notes := parseTools(items)
	for _, n := range notes {
		l.problem(path, "%s", n)
	}
	if len(tools) == 0 {
		tools = Restriction{"(none)"}
	}
	return tools, true
}

// skills reads <skills>/<name>/SKILL.md.
func (l *loader) skills(d *confine.Dir, rel, source string) {
	for _, e := range entries(d, rel) {
		if !e.IsDir() || !validName(e.Name()) {
			continue
		}
		dir := filepath.Join(rel, e.Name())
		f, ok := l.definition(d, filepath.Join(dir, "SKILL.md"))
		if !ok {
			continue
		}
		path, fm := f.path, f.fm
		name := fm.text("name")
		if name == "" {
			name = e.Name()
		}
		if !validName(name) {
			l.problem(path, "the name %q is not a skill name (letters, digits, '.', '_', '-')", name)
			continue
		}
		c := Command{Name: name, Kind: KindSkill, Path: path, Source: source, Body: f.body, Hash: f.hash,
			Description: fm.text("description"), ArgumentHint: fm.text("argument-hint"), Dir: filepath.Join(d.Path(), dir)}
		if c.Description == "" {
			l.problem(path, "a skill needs a description (the model chooses skills by it)")
			continue
		}
		l.fill(&c, fm)
		l.add(c)
	}
}

// fill reads the keys commands and skills share: allowed-tools and model.
func (l *loader) fill(c *Command, fm frontMatter) {
	if tools, ok := l.tools(c.Path, fm, "allowed-tools"); ok {
		c.Tools = tools
	} else {
		c.Tools = Restriction{"(none)"} // unreadable: nothing rather than everything
	}
	if m, ok := normalizeModel(fm.text("model")); ok {
		c.Model = m
	} else {
		l.problem(c.Path, "model %q is not one Agent Hub can name: the session's model answers", fm.text("model"))
	}
	if c.Description == "" {
		c.Description = firstLine(c.Body)
	}
}

func (l *loader) add(c Command) {
	switch {
	case slices.Contains(Builtins, c.Name):
		l.problem(c.Path, "/%s is a built-in command: this file is not used", c.Name)
	case l.seen[c.Name]:
		// an earlier folder (nearer, or the project before the user's) has it
	case len(l.set.Commands) >= MaxDefinitions:
		l.problem(c.Path, "more than %d commands and skills: left out", MaxDefinitions)
	default:
		l.seen[c.Name] = true
		l.set.Commands = append(l.set.Commands, c)
	}
}

// agents reads the *.md files of an agents folder.
func (l *loader) agents(d *confine.Dir, rel, source string) {
	for _, e := range entries(d, rel) {
		if !isFile(e) || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		f, ok := l.definition(d, filepath.Join(rel, e.Name()))
		if !ok {
			continue
		}
		path, fm := f.path, f.fm
		a := Agent{Name: fm.text("name"), Description: fm.text("description"), Path: path, Source: source, Prompt: strings.TrimSpace(f.body)}
		if a.Name == "" {
			a.Name = strings.TrimSuffix(e.Name(), ".md")
		}
		switch {
		case !validName(a.Name):
			l.problem(path, "the name %q is not an agent name (letters, digits, '.', '_', '-')", a.Name)
			continue
		case a.Description == "":
			l.problem(path, "an agent needs a description (the model chooses agents by it)")
			continue
		}
		tools, ok := l.tools(path, fm, "tools")
		if !ok {
			continue // an agent whose restriction cannot be read is not run unrestricted
		}
		out, present, ok := fm.list("disallowedtools") // keys are lowercased: disallowedTools
		if !ok {
			l.problem(path, "disallowedTools as a mapping is not supported: left out")
			continue // nor with tools its file takes away
		}
		if present {
			entries, notes := parseTools(out)
			for _, n := range notes {
				l.problem(path, "%s", n)
			}
			tools = tools.Without(entries)
		}
		a.Tools = tools
		if pm := fm.text("permissionmode"); pm != "" {
			if a.Mode = claudeModes[pm]; a.Mode == "" {
				l.problem(path, "permissionMode %q is not one Agent Hub knows: the worker runs in its parent's approval mode", pm)
			}
		}
		if m, ok := normalizeModel(fm.text("model")); ok {
			a.Model = m
		} else {
			l.problem(path, "model %q is not one Agent Hub can name: the parent's model answers", fm.text("model"))
		}
		switch {
		case l.agentSeen[a.Name]:
		case len(l.set.Agents) >= MaxDefinitions:
			l.problem(path, "more than %d agents: left out", MaxDefinitions)
		default:
			l.agentSeen[a.Name] = true
			l.set.Agents = append(l.set.Agents, a)
		}
	}
}

// read reads a definition file only the user can have written
// (instructions.OpenTrusted), at most MaxFileBytes; ok is false for one
// passed over or too large (reported).
func (l *loader) read(d *confine.Dir, rel string) ([]byte, bool) {
	path := filepath.Join(d.Path(), rel)
	f, fi, ok, err := instructions.OpenTrusted(d, rel)
	if err != nil {
		l.problem(path, "%v", err)
		return nil, false
	}
	if !ok {
		if _, err := d.Lstat(rel); err == nil {
			l.problem(path, "not read: not a regular file of yours inside the folder (a symlink out, a FIFO, or writable by others)")
		}
		return nil, false
	}
	defer f.Close()
	if fi.Size() > MaxFileBytes {
		l.problem(path, "larger than %d KiB: left out", MaxFileBytes>>10)
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		l.problem(path, "%v", err)
		return nil, false
	}
	if len(b) > MaxFileBytes {
		l.problem(path, "larger than %d KiB: left out", MaxFileBytes>>10)
		return nil, false
	}
	return b, true
}

// ReadSkillFile reads the file rel of skill c's folder for the skill tool:
// the same trust as the definitions (confined to the folder, regular, the
// user's own), at most MaxFileBytes.
func ReadSkillFile(c Command, rel string, protected []string) (string, error) {
	if c.Dir == "" {
		return "", errors.New("not a skill")
	}
	clean := filepath.Clean(rel)
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%s is not a file of the skill's folder", rel)
	}
	d, err := confine.Open(c.Dir, protected)
	if err != nil {
		return "", fmt.Errorf("opening the skill's folder: %w", err)
	}
	defer d.Close()
	f, _, ok, err := instructions.OpenTrusted(d, clean)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("%s is not a regular file of yours in the skill's folder", rel)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes))
	if err != nil {
		return "", err
	}
	return strings.ToValidUTF8(string(b), "\uFFFD"), nil
}

// SkillFiles lists the other files of skill c's folder (relative names,
// at most 50), for the skill tool's answer.
func SkillFiles(c Command, protected []string) []string {
	d, err := confine.Open(c.Dir, protected)
	if err != nil {
		return nil
	}
	defer d.Close()
	var out []string
	var walk func(rel string, depth int)
	walk = func(rel string, depth int) {
		for _, e := range entries(d, rel) {
			name := filepath.Join(rel, e.Name())
			switch {
			case len(out) >= 50:
				return
			case e.IsDir() && depth < maxDepth:
				walk(name, depth+1)
			case e.Type().IsRegular() && name != "SKILL.md":
				out = append(out, name)
			}
		}
	}
	walk(".", 0)
	return out
}

// isFile reports whether e may be a definition file: anything but a
// folder — OpenTrusted reads only a regular file, follows a symlink only
// inside the folder's tree and never blocks on a FIFO; the rest is
// reported.
func isFile(e fs.DirEntry) bool { return !e.IsDir() }

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

func validName(s string) bool { return nameRe.MatchString(s) }

// validCommandName accepts names and namespaced names (frontend:component).
func validCommandName(s string) bool {
	for _, part := range strings.Split(s, ":") {
		if !validName(part) {
			return false
		}
	}
	return true
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// firstLine is the first non-empty line of body, at most 120 bytes (the
// description of a command whose front matter has none).
func firstLine(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if s := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#")); s != "" {
			s = oneLine(s)
			if len(s) > 120 {
				s = strings.ToValidUTF8(s[:119], "") + "…"
			}
			return s
		}
	}
	return ""
}
