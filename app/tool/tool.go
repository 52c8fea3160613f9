// Package tool implements Agent Hub's built-in tools (bash, read_file,
// write_file, edit_file, list_dir, glob, grep, delegate), the workspace
// confinement check they share, and bash's process-group lifecycle.
//
// Tools know nothing of events: each reports seed 004's two human layers
// (a status line and a markdown summary) through Describe (the "call" layer)
// and Result (the "result" layer), and streams live output through
// Env.Output; the agent loop turns these into events. Every tool is
// stateless and safe for concurrent use.
package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"agenthub/ipc/errclass"
)

// Env is the per-call environment a tool runs in.
type Env struct {
	// Workspace is the session's working directory; every path a tool touches
	// must resolve inside it (see Resolve), and is opened through it
	// (app/confine), so no symlink leads a file tool out.
	Workspace string
	// Protected lists directories no file tool reads or writes, wherever
	// the workspace is (one that contains them included): the data dir,
	// with the app's settings, keys, approval rules and global
	// instructions. A path inside one is errclass.ToolDenied.
	Protected []string
	// OutputDir is where tools keep full outputs (bash writes
	// <ToolUseID>.log there). Empty means full outputs are not kept.
	OutputDir string
	// ToolUseID is the provider's id of this tool call; it names output files.
	ToolUseID string
	// Output, when non-nil, receives live output in order, throttled, never
	// dropping bytes: the concatenation of all calls' text is the full
	// output. stream is "stdout" (bash: stdout and stderr merged in the
	// order written), "worker" (delegate: the sub-agent's text) or
	// StreamWorkerReset (the sub-agent's text so far is void: its model
	// call is being retried). It is called from one goroutine at a time and
	// never after Run returns.
	Output func(stream, text string)
	// ReadWorkspaceOnly and NoNetwork tighten bash's sandbox (when
	// Options.Sandbox is set): reads only inside the workspace, no TCP.
	ReadWorkspaceOnly bool
	NoNetwork         bool
	// Files, when non-nil, is told about the workspace changes the call
	// makes (app/checkpoint records them so a turn can be undone).
	Files FileWatcher
	// GitWrites, when non-nil, says whether bash call toolUseID may write
	// the workspace's .git (the workspace's setting, or the approval of
	// that one call); nil or false keeps .git read-only in the sandbox.
	GitWrites func(toolUseID string) bool
	// ReadOnly, when non-nil and true as a bash call starts (the session
	// is in plan mode), runs it with the workspace read-only and its reads
	// confined to the workspace (Options.Sandbox).
	ReadOnly func() bool
}

// StreamWorkerReset is the Output stream that voids the worker text
// streamed so far (its text is empty).
const StreamWorkerReset = "worker:reset"

// FileWatcher is told about the workspace changes of a turn's tool calls.
// Its methods are called from several calls' goroutines at once and must
// not fail the call: a watcher that cannot record a change logs it.
type FileWatcher interface {
	// BeforeWrite is called with the resolved path before write_file or
	// edit_file replaces it; AfterWrite after it did.
	BeforeWrite(tool, path string)
	AfterWrite(tool, path string)
	// BeforeCommand is called before a bash command starts; the returned
	// func is called once it has ended and reports how many files the
	// command changed (found by comparing the workspace before and after).
	BeforeCommand(tool string) (after func() int)
}

// beforeWrite and afterWrite tell env's watcher, if any.
func (env Env) beforeWrite(tool, path string) {
	if env.Files != nil {
		env.Files.BeforeWrite(tool, path)
	}
}

func (env Env) afterWrite(tool, path string) {
	if env.Files != nil {
		env.Files.AfterWrite(tool, path)
	}
}

// Result is what a completed tool call produced.
type Result struct {
	Output      string // model-visible text, capped
	IsError     bool   // the tool ran but failed (e.g. non-zero exit code)
	Truncated   bool   // Output omits part of the full output
	OutputBytes int64  // size of the full output
	OutputPath  string // file holding the full output, if kept
	StatusText  string // seed 004 human status line, e.g. "Read app/main.go (120 lines)"
	Summary     string // seed 004 markdown detail of the result
}

// Error is the error every Tool.Run returns: Class is one of the tool
// classes of ipc/errclass (the wire's tool.failed error_class) and Message
// is a human/model-readable explanation.
type Error struct {
	Class   string
	Message string
}

// Error implements error as "class: message".
func (e *Error) Error() string { return e.Class + ": " + e.Message }

func errorf(class, format string, args ...any) *Error {
	return &Error{Class: class, Message: fmt.Sprintf(format, args...)}
}

// AsError returns err as a *Error: itself if it is one (or wraps one),
// errclass.ToolCancelled/ToolTimeout for context errors, errclass.ToolExec
// otherwise. It returns nil for a nil err.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	switch {
	case errors.Is(err, context.Canceled):
		return &Error{Class: errclass.ToolCancelled, Message: err.Error()}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Class: errclass.ToolTimeout, Message: err.Error()}
	}
	return &Error{Class: errclass.ToolExec, Message: err.Error()}
}

// Tool is one built-in tool as the model sees it.
type Tool interface {
	// Name is the tool name the model calls, e.g. "bash".
	Name() string
	// Description is the model-facing description.
	Description() string
	// Schema is the JSON Schema of the input object.
	Schema() json.RawMessage
	// Describe returns the seed 004 "call" layer for input: a one-line status
	// and a markdown summary of what the call will do. It never fails; bad
	// input yields a generic description.
	Describe(input json.RawMessage) (statusText, summary string)
	// Run executes the call. A non-nil error is a *Error; a cancelled ctx
	// yields errclass.ToolCancelled. A tool that ran but failed (bash exit code 1)
	// returns a Result with IsError and a nil error. On timeout or cancel a
	// bash Result still carries the partial output alongside the error.
	Run(ctx context.Context, env Env, input json.RawMessage) (Result, error)
}

// Delegator runs a sub-agent for the delegate tool; the hub implements it.
// Delegate blocks until the worker finishes and returns its final text; it
// streams the worker's text through env.Output("worker", …) as it arrives
// and stops promptly when ctx is cancelled.
type Delegator interface {
	Delegate(ctx context.Context, env Env, req DelegateRequest) (result string, err error)
}

// DelegateRequest is one delegate call: the task, the context given with
// it, and the named sub-agent to run it ("" the generic worker).
type DelegateRequest struct {
	Task, Context, Agent string
}

// Options tunes the built-in tools. Zero fields take the documented defaults.
type Options struct {
	// KillGrace is how long bash waits after SIGTERM to the process group
	// before SIGKILL. Default 2s.
	KillGrace time.Duration
	// FlushInterval is the longest live output is held before Env.Output is
	// called. Default 50ms.
	FlushInterval time.Duration
	// FlushBytes is the pending size that triggers an immediate Env.Output
	// call. Default 8 KiB.
	FlushBytes int
	// HeadBytes and TailBytes bound what the model sees of a long output: the
	// first HeadBytes and the last TailBytes. Defaults 8 KiB and 24 KiB.
	HeadBytes int
	TailBytes int
	// Shell is the shell bash runs as `Shell -c command` (a PowerShell:
	// shellArgv). Default /bin/bash; on Windows Git for Windows' bash,
	// else Windows PowerShell (defaultShell).
	Shell string
	// LogBytes is --tool-output-log: at most this much of one call's output
	// is streamed through Env.Output; the rest is announced at the end by
	// one "truncated" marker followed by the last TailBytes. Default 4 MiB.
	LogBytes int64
	// FileMaxBytes is --tool-output-max: one call's output file keeps at
	// most this much, the first and the last half around an omission
	// marker. Default 64 MiB.
	FileMaxBytes int64
	// Sandbox, when non-nil, confines bash (app/sandbox): writes only in
	// the workspace, the call's temp dir (TMPDIR) and Sandbox.CacheDir.
	Sandbox *Sandbox
	// Env, when non-nil, returns the variables the user configured for
	// tool processes (the tool_env setting), added to bash's explicit
	// environment.
	Env func() map[string]string
}

// Sandbox is how bash commands are confined.
type Sandbox struct {
	// Helper is the absolute path of the binary that runs as the sandbox
	// helper (the app's own executable, which calls sandbox.Dispatch in
	// main).
	Helper string
	// CacheDir is the root of the sandbox's private caches (GOCACHE,
	// GOMODCACHE, npm_config_cache, XDG_CACHE_HOME point below it); ""
	// for none. The user's own caches are never writable.
	CacheDir string
	// UserModCache is the user's Go module cache, read (never written)
	// as a file:// GOPROXY so modules already there need no download.
	UserModCache string
	// Hidden directories are out of the command's sight: the data dir,
	// the session's runtime dir (D-Bus, keyring, agents' sockets).
	Hidden []string
	// Fallback runs without namespaces even where they work (tests).
	Fallback bool
}

// Defaults of Options.
const (
	DefaultKillGrace     = 2 * time.Second
	DefaultFlushInterval = 50 * time.Millisecond
	DefaultFlushBytes    = 8 << 10
	DefaultHeadBytes     = 8 << 10
	DefaultTailBytes     = 24 << 10
	DefaultShell         = "/bin/bash" // on Unix; Windows: defaultShell
	DefaultLogBytes      = 4 << 20
	DefaultFileMaxBytes  = 64 << 20
	DefaultBashTimeout   = 120 * time.Second
	MaxBashTimeout       = 600 * time.Second
)

func (o Options) withDefaults() Options {
	if o.KillGrace <= 0 {
		o.KillGrace = DefaultKillGrace
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.FlushBytes <= 0 {
		o.FlushBytes = DefaultFlushBytes
	}
	if o.HeadBytes <= 0 {
		o.HeadBytes = DefaultHeadBytes
	}
	if o.TailBytes <= 0 {
		o.TailBytes = DefaultTailBytes
	}
	if o.Shell == "" {
		o.Shell = defaultShell()
	}
	if o.LogBytes <= 0 {
		o.LogBytes = DefaultLogBytes
	}
	if o.FileMaxBytes <= 0 {
		o.FileMaxBytes = DefaultFileMaxBytes
	}
	return o
}

// Builtins returns the eight built-in tools with default Options. d backs the
// delegate tool; with a nil d, delegate fails with errclass.ToolExec.
func Builtins(d Delegator) []Tool { return BuiltinsWithOptions(d, Options{}) }

// BuiltinsWithOptions is Builtins with explicit Options.
func BuiltinsWithOptions(d Delegator, opts Options) []Tool {
	o := opts.withDefaults()
	return []Tool{
		&bashTool{spec: bashSpec(o.Shell), opts: o},
		readFileTool{readFileSpec},
		writeFileTool{writeFileSpec},
		editFileTool{editFileSpec},
		listDirTool{listDirSpec},
		globTool{globSpec},
		grepTool{grepSpec},
		&delegateTool{spec: delegateSpec, d: d, opts: o},
	}
}

// spec is what a tool tells the model about itself. Embedded in a tool,
// it provides the tool's Name, Description and Schema.
type spec struct {
	name, description string
	schema            string // a JSON Schema object
}

func (s spec) Name() string            { return s.name }
func (s spec) Description() string     { return s.description }
func (s spec) Schema() json.RawMessage { return json.RawMessage(s.schema) }

// Lookup finds the tool called name in tools.
func Lookup(tools []Tool, name string) (Tool, bool) {
	for _, t := range tools {
		if t.Name() == name {
			return t, true
		}
	}
	return nil, false
}

// decodeInput strictly decodes a tool's JSON input object into v.
func decodeInput(tool string, input json.RawMessage, v any) error {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errorf(errclass.ToolInvalidInput, "%s: input is not a valid object for the schema: %v", tool, err)
	}
	if dec.More() {
		return errorf(errclass.ToolInvalidInput, "%s: trailing data after the input object", tool)
	}
	return nil
}

// decodeRunInput decodes the input of a Run of tool into a T; when it does
// not decode, the Result carries the invalid-input layer and the error is
// an errclass.ToolInvalidInput *Error.
func decodeRunInput[T any](tool string, input json.RawMessage) (T, Result, error) {
	var in T
	if err := decodeInput(tool, input, &in); err != nil {
		st, sum := invalidSummary(tool, input)
		return in, Result{StatusText: st, Summary: sum}, err
	}
	return in, Result{}, nil
}

// pathInput is the input of a tool that acts on one workspace path.
type pathInput interface{ pathArg() string }

// decodePathInput is decodeRunInput for the tools that act on one workspace
// path (read_file, write_file, edit_file, list_dir): it also names the path
// as the user sees it (disp) and the Result every later failure returns,
// "Could not <verb> <disp>". When the input does not decode, failed is the
// invalid-input Result and err an errclass.ToolInvalidInput *Error.
func decodePathInput[T pathInput](tool, verb string, env Env, input json.RawMessage) (in T, disp string, failed Result, err error) {
	in, failed, err = decodeRunInput[T](tool, input)
	if err != nil {
		return in, "", failed, err
	}
	disp = displayPath(env.Workspace, in.pathArg())
	return in, disp, Result{StatusText: "Could not " + verb + " " + disp}, nil
}

// checkCtx returns an errclass.ToolCancelled/ToolTimeout error once ctx is done.
func checkCtx(ctx context.Context, tool string) error {
	if err := ctx.Err(); err != nil {
		e := AsError(err)
		e.Message = tool + ": " + e.Message
		return e
	}
	return nil
}
