package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"agenthub/ipc/errclass"
)

// bashTool runs `Options.Shell -c command` (PowerShell: -EncodedCommand)
// in the workspace, in its own process
// group, streaming merged stdout+stderr and keeping the full output on disk.
type bashTool struct {
	spec
	opts Options
}

// bashSpec is the bash tool for shell (Options.Shell): the model is told
// which shell runs its command lines — /bin/bash, Git for Windows' bash,
// or, on a Windows system without it, PowerShell.
func bashSpec(shell string) spec {
	what, lang := "a shell command with "+shellName(shell)+" -c", "bash"
	if KindOf(shell) == PowerShell {
		what, lang = "a PowerShell command (this system has no bash: write PowerShell, not bash syntax)", "PowerShell"
	}
	return spec{
		name: "bash",
		description: "Run " + what + " in the session workspace (the working directory). " +
			"stdout and stderr are merged. Long output is cut to its first 8 KiB and last 24 KiB; the full " +
			"output is kept in a file whose path is given. A non-zero exit code is reported as an error. " +
			"timeout_ms defaults to 120000 and may be at most 600000; on timeout the whole process group is killed. " +
			"Background processes do not outlive the command. stdin is empty; do not run interactive programs.",
		schema: `{
  "type": "object",
  "properties": {
    "command": {"type": "string", "description": "The ` + lang + ` command line to run in the workspace."},
    "timeout_ms": {"type": "integer", "minimum": 1, "maximum": 600000, "description": "Timeout in milliseconds (default 120000)."}
  },
  "required": ["command"],
  "additionalProperties": false
}`,
	}
}

type bashInput struct {
	Command   string `json:"command"`
	TimeoutMS *int64 `json:"timeout_ms,omitempty"`
}

func (t *bashTool) Describe(input json.RawMessage) (string, string) {
	var in bashInput
	if err := json.Unmarshal(input, &in); err != nil || strings.TrimSpace(in.Command) == "" {
		return invalidSummary("bash", input)
	}
	summary := "-> executing in the workspace:\n\n" + codeBlock("bash", in.Command)
	if shell := t.opts.Shell; strings.Contains(shell, `\`) { // Windows: say which shell
		lang := map[ShellKind]string{PosixShell: "bash", PowerShell: "powershell"}[KindOf(shell)]
		summary = "-> executing in the workspace with " + shellName(shell) + ":\n\n" + codeBlock(lang, in.Command)
	}
	if in.TimeoutMS != nil {
		summary += fmt.Sprintf("\nTimeout: %s\n", time.Duration(*in.TimeoutMS)*time.Millisecond)
	}
	return "Running: " + firstLine(in.Command, statusMaxRunes), summary
}

func (t *bashTool) parse(input json.RawMessage) (bashInput, time.Duration, error) {
	var in bashInput
	if err := decodeInput("bash", input, &in); err != nil {
		return in, 0, err
	}
	if strings.TrimSpace(in.Command) == "" {
		return in, 0, errorf(errclass.ToolInvalidInput, "bash: command is required")
	}
	timeout := DefaultBashTimeout
	if in.TimeoutMS != nil {
		ms := *in.TimeoutMS
		if ms < 1 || ms > MaxBashTimeout.Milliseconds() {
			return in, 0, errorf(errclass.ToolInvalidInput, "bash: timeout_ms must be between 1 and %d, got %d", MaxBashTimeout.Milliseconds(), ms)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	return in, timeout, nil
}

func (t *bashTool) Run(ctx context.Context, env Env, input json.RawMessage) (Result, error) {
	in, timeout, err := t.parse(input)
	if err != nil {
		st, sum := invalidSummary("bash", input)
		return Result{StatusText: st, Summary: sum}, err
	}
	label := firstLine(in.Command, statusMaxRunes)
	fail := func(err error) (Result, error) {
		e := AsError(err)
		return Result{StatusText: "Failed to run: " + label, Summary: "-> " + e.Message + "\n"}, e
	}
	if err := checkCtx(ctx, "bash"); err != nil {
		return Result{StatusText: "Cancelled: " + label, Summary: "-> cancelled before it started\n"}, err
	}
	dir, err := Resolve(env.Workspace, ".")
	if err != nil {
		return fail(err)
	}
	capt, err := newCapture(t.opts, env.OutputDir, logName(env.ToolUseID), "stdout", env.Output)
	if err != nil {
		return fail(errorf(errclass.ToolExec, "bash: %v", err))
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		capt.finish()
		return fail(errorf(errclass.ToolExec, "bash: pipe: %v", err))
	}
	gitWrites := env.GitWrites != nil && env.GitWrites(env.ToolUseID)
	cmd, cleanup, err := t.command(dir, in.Command, env, gitWrites)
	if err != nil {
		pr.Close()
		pw.Close()
		capt.finish()
		return fail(errorf(errclass.ToolExec, "bash: %v", err))
	}
	defer cleanup()
	cmd.Stdout, cmd.Stderr = pw, pw
	marker := newMarker()
	cmd.Env = append(cmd.Env, "PAGER=cat", "GIT_PAGER=cat", MarkerEnv+"="+marker)
	// The workspace is compared once the group is gone: explicitly before
	// the result (which reports the count), or on any other return.
	afterCommand := func() int { return 0 }
	if env.Files != nil {
		afterCommand = env.Files.BeforeCommand("bash")
	}
	changed, compared := 0, false
	compare := func() int {
		if !compared {
			compared = true
			changed = afterCommand()
		}
		return changed
	}
	defer compare()
	start := time.Now()
	pg, err := startGroup(cmd, marker)
	pw.Close() // the children hold the write end now
	if err != nil {
		pr.Close()
		capt.finish()
		return fail(errorf(errclass.ToolExec, "bash: %v", err))
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		capt.readFrom(pr)
	}()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopErr *Error
	select {
	case <-pg.shellDone:
	case <-ctx.Done():
		stopErr = errorf(errclass.ToolCancelled, "bash: cancelled after %s; the process group was killed", time.Since(start).Round(time.Millisecond))
	case <-timer.C:
		stopErr = errorf(errclass.ToolTimeout, "bash: timed out after %s; the process group was killed", timeout)
	}
	pg.shutdown(t.opts.KillGrace)
	// Every member is gone, so the pipe reaches EOF unless a process that left
	// the group still holds it; do not wait for such a process forever.
	grace := time.NewTimer(t.opts.KillGrace)
	select {
	case <-readDone:
	case <-grace.C:
		pr.Close()
		<-readDone
	}
	grace.Stop()
	pr.Close()
	capt.finish()

	n := compare()
	res, err := t.result(in.Command, label, pg, capt, stopErr, time.Since(start))
	if res.IsError && t.opts.Sandbox != nil && !gitWrites && hitReadOnlyGit(res.Output) && len(gitPaths(dir)) > 0 {
		res.Output += gitReadOnlyHint + "\n"
		res.Summary += "\n" + gitReadOnlyHint + "\n"
	}
	if n > 0 {
		res.Summary += fmt.Sprintf("\n*%s in the folder changed*\n", plural(n, "file", "files"))
	}
	return res, err
}

func (t *bashTool) result(command, label string, pg *procGroup, capt *capture, stopErr *Error, took time.Duration) (Result, error) {
	text, truncated := capt.modelText()
	res := Result{
		Truncated:   truncated,
		OutputBytes: capt.total,
		OutputPath:  capt.path,
	}
	if capt.ioErr != nil {
		res.OutputPath = ""
	}
	code, note := pg.exitDescription()
	var b strings.Builder
	b.Grow(len(text) + 64)
	b.WriteString(text)
	if text == "" {
		b.WriteString("(no output)\n")
	} else if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	var head string
	switch {
	case stopErr != nil && stopErr.Class == errclass.ToolTimeout:
		fmt.Fprintf(&b, "[%s]\n", stopErr.Message)
		res.StatusText = "Timed out: " + label
		head = "**Timed out** after " + took.Round(time.Millisecond).String() + "; the process group was killed."
	case stopErr != nil:
		fmt.Fprintf(&b, "[%s]\n", stopErr.Message)
		res.StatusText = "Cancelled: " + label
		head = "**Cancelled** after " + took.Round(time.Millisecond).String() + "; the process group was killed."
	case code != 0:
		if note != "" {
			fmt.Fprintf(&b, "[exit code %d: %s]\n", code, note)
		} else {
			fmt.Fprintf(&b, "[exit code %d]\n", code)
		}
		res.IsError = true
		res.StatusText = fmt.Sprintf("Failed (exit %d): %s", code, label)
		head = fmt.Sprintf("**Exit code:** %d", code)
		if note != "" {
			head += " (" + note + ")"
		}
	default:
		res.StatusText = "Ran: " + label
		head = "**Exit code:** 0"
	}
	res.Output = b.String()
	res.Summary = bashSummary(head, text, capt, took)
	if stopErr != nil {
		return res, stopErr
	}
	return res, nil
}

func bashSummary(head, text string, capt *capture, took time.Duration) string {
	var b strings.Builder
	b.WriteString(head)
	fmt.Fprintf(&b, " · %s, %d bytes · %s\n\n", plural(int(capt.lineCount()), "line", "lines"),
		capt.total, took.Round(time.Millisecond))
	if capt.total == 0 {
		b.WriteString("_(no output)_\n")
		return b.String()
	}
	excerpt, cut := excerptTail(text, summaryExcerptLines, summaryExcerptBytes)
	if cut {
		fmt.Fprintf(&b, "Last %d lines of output:\n\n", countLines(excerpt))
	}
	b.WriteString(codeBlock("", excerpt))
	if capt.path != "" && capt.ioErr == nil {
		b.WriteString("\nFull output: " + codeSpan(capt.path) + "\n")
	}
	return b.String()
}

// logName turns a tool-use id into a safe file name stem.
// OutputLogPath is where bash keeps the full output of call toolUseID in
// the session's output directory dir (the id made safe as a file name).
func OutputLogPath(dir, toolUseID string) string {
	return filepath.Join(dir, logName(toolUseID)+".log")
}

func logName(toolUseID string) string {
	var b strings.Builder
	for _, r := range toolUseID {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "bash-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return b.String()
}
