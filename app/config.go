package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"agenthub/app/permission"
	"agenthub/app/sandbox"
	"agenthub/ipc/dashboard"
	"agenthub/ipc/gatewaylink"
)

// Name is the product name shown in the window title and the UI.
const Name = "Agent Hub"

// DefaultListen is the dashboard address used when --listen is not given.
const DefaultListen = "127.0.0.1:8421"

// Config carries every command-line flag of DESIGN.md §3, with its defaults.
// The zero value is not useful; start from DefaultConfig or ParseFlags.
type Config struct {
	// Version is the build version (set by main via -ldflags); not a flag.
	Version string
	// Logs, when set (by main; not a flag), is the log output: Open starts
	// the launch's log file in the data dir once the data dir is locked.
	Logs *LogSink
	// Headless runs the hub and the dashboard port without a window.
	Headless bool
	// Listen is the dashboard address (loopback only; port 0 picks a free one).
	Listen string
	// ListenSet reports that --listen was given explicitly, which enables the
	// dashboard in desktop mode regardless of the settings file.
	ListenSet bool
	// DataDir holds the bbolt file, settings.json and dashboard.json.
	// Empty means DefaultDataDir().
	DataDir string
	// Workspace is the default working directory for new sessions' tools.
	Workspace string
	// WorkspaceSet reports that --workspace was given. Without it a desktop
	// launch assumes no folder (a launcher starts the app in $HOME): the
	// first session asks for one, and the last one chosen is remembered.
	WorkspaceSet bool
	// Model is the default model as "provider:model"; empty means from settings.
	Model string
	// EventRetention is how long bus events stay replayable.
	EventRetention time.Duration
	// DeltaRetention is how long streaming events stay replayable after
	// their message completes.
	DeltaRetention time.Duration
	// Heartbeat is the idle ping interval (3 unanswered pings close a client).
	Heartbeat time.Duration
	// ClientQueue is the per-client outbound queue bound.
	ClientQueue int
	// ClientStall closes a subscriber that made no write progress this long
	// (a subscriber over ClientQueue catches up from the log instead).
	ClientStall time.Duration
	// MaxConnections bounds open dashboard WebSocket streams.
	MaxConnections int
	// ToolOutputLog is how much of one tool call's output goes into the
	// event log as tool.output_delta events (the rest: a marker and the tail).
	ToolOutputLog ByteSize
	// ToolOutputMax caps one tool call's output file on disk (head + tail).
	ToolOutputMax ByteSize
	// ReplayLimit is the most events one replay may send.
	ReplayLimit int
	// TurnTimeout cancels a turn server-side after this long.
	TurnTimeout time.Duration
	// ApprovalMode is --approval-mode: the approval mode of new sessions
	// (ask, auto-edits, auto-all, plan; docs/permissions.md). "" means the
	// settings' approval_mode, else ask.
	ApprovalMode string
	// Sandbox is --sandbox: "auto" confines bash with Landlock where the
	// kernel supports it (app/sandbox), "off" runs it unconfined.
	Sandbox string
	// Gateway is --gateway: connect the hub to this gateway as a device
	// (docs/gateway.md); GatewaySet says it was given (it then wins over
	// settings' gateway_url, "" included). GatewayInsecure is
	// --gateway-insecure: allow plain http/ws to a non-loopback gateway.
	Gateway         string
	GatewaySet      bool
	GatewayInsecure bool
	// Driver holds the flags of the registered window Driver, which may
	// hand the desktop window to a WindowDriver (the desktop test harness,
	// app/smoketest, in builds with the smoketest tag); nil in a product
	// build, which has no such flags.
	Driver Driver
	// ShowVersion is --version: print the version and exit.
	ShowVersion bool
}

// DefaultConfig returns the defaults of DESIGN.md §3. Workspace is the
// given working directory.
func DefaultConfig(workdir string) Config {
	return Config{
		Version:        "dev",
		Listen:         DefaultListen,
		Workspace:      workdir,
		EventRetention: 168 * time.Hour,
		DeltaRetention: time.Hour,
		Heartbeat:      30 * time.Second,
		ClientQueue:    1000,
		ClientStall:    5 * time.Second,
		MaxConnections: 256,
		ToolOutputLog:  4 << 20,
		ToolOutputMax:  64 << 20,
		ReplayLimit:    10000,
		TurnTimeout:    30 * time.Minute,
		Sandbox:        "auto",
	}
}

// ParseFlags parses args (without the program name) over DefaultConfig(workdir)
// and validates the result. getenv completes a registered Driver's flags
// from the environment (nil means none).
// --help writes the usage to stdout and returns flag.ErrHelp; any other bad
// input writes the problem to stderr and returns an error naming the flag.
func ParseFlags(args []string, workdir string, getenv func(string) string, stdout, stderr io.Writer) (Config, error) {
	cfg := DefaultConfig(workdir)
	fs := flag.NewFlagSet("agenthub", flag.ContinueOnError)
	var usage strings.Builder
	out := &usage
	fs.SetOutput(out)
	fs.BoolVar(&cfg.Headless, "headless", false, "no window: run the hub and the dashboard port only (default: desktop when a display exists)")
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "dashboard `ADDR` (loopback only; port 0 picks a free one; desktop: off unless enabled in settings or given)")
	fs.StringVar(&cfg.DataDir, "data-dir", "", "`DIR` for the bbolt file, settings.json and dashboard.json (default: "+describeDefaultDataDir()+")")
	fs.StringVar(&cfg.Workspace, "workspace", cfg.Workspace, "default working `DIR` for new sessions' tools (headless: the current directory; desktop: none — the first session asks for a folder, later ones start in the last one chosen)")
	fs.StringVar(&cfg.Model, "model", "", "default model as `PROVIDER:MODEL`, e.g. anthropic:claude-sonnet-4-6, openai:gpt-4.1, openai:llama3.1 (default: from settings)")
	fs.DurationVar(&cfg.EventRetention, "event-retention", cfg.EventRetention, "how long bus events stay replayable")
	fs.DurationVar(&cfg.DeltaRetention, "delta-retention", cfg.DeltaRetention, "how long streaming events stay replayable after their message completes")
	fs.DurationVar(&cfg.Heartbeat, "heartbeat", cfg.Heartbeat, "idle ping interval (3 unanswered pings close the client)")
	fs.IntVar(&cfg.ClientQueue, "client-queue", cfg.ClientQueue, "per-client outbound queue bound")
	fs.DurationVar(&cfg.ClientStall, "client-stall", cfg.ClientStall, "close a client (1008 client_too_slow) after this long without write progress; over --client-queue it catches up from the log")
	fs.IntVar(&cfg.MaxConnections, "max-connections", cfg.MaxConnections, "max open dashboard WebSocket streams (more get 503)")
	fs.Var(&cfg.ToolOutputLog, "tool-output-log", "`SIZE` of one tool call's output streamed into the event log (then a truncation marker and the tail)")
	fs.Var(&cfg.ToolOutputMax, "tool-output-max", "`SIZE` cap of one tool call's output file on disk (head + tail)")
	fs.IntVar(&cfg.ReplayLimit, "replay-limit", cfg.ReplayLimit, "max events one replay may send")
	fs.DurationVar(&cfg.TurnTimeout, "turn-timeout", cfg.TurnTimeout, "server-side cancel of a turn")
	fs.StringVar(&cfg.ApprovalMode, "approval-mode", "", "`MODE` of new sessions: ask (every tool call the rules do not allow waits for approval), auto-edits (file edits run without asking), auto-all, or plan (only what reads runs; the model presents a plan) (default: approval_mode in settings, else ask)")
	fs.StringVar(&cfg.Sandbox, "sandbox", cfg.Sandbox, "`MODE` auto confines bash (Linux: user namespaces where allowed, Landlock, seccomp; see \"Bash sandbox here\" below); off runs it unconfined")
	fs.StringVar(&cfg.Gateway, "gateway", "", "connect to the gateway at `URL` (https://HOST[:PORT]) as a device, so verified devices reach this hub through it; never listens (default: settings' gateway_url)")
	fs.BoolVar(&cfg.GatewayInsecure, "gateway-insecure", false, "allow a plain http:// or ws:// --gateway on a non-loopback host (its traffic and the devices' tokens cross the network in clear)")
	fs.BoolVar(&cfg.ShowVersion, "version", false, "print the version and exit")
	if newDriver != nil {
		cfg.Driver = newDriver()
		cfg.Driver.AddFlags(fs)
	}
	fs.Usage = func() {
		fmt.Fprintf(out, "Agent Hub — an LLM agent hub with a desktop window and a localhost dashboard.\n\n")
		fmt.Fprintf(out, "Usage: agenthub [flags]\n\nFlags:\n")
		fs.VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			line := "  --" + f.Name
			if name != "" {
				line += " " + name
			}
			fmt.Fprintf(out, "%s\n    \t%s", line, usage)
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
				fmt.Fprintf(out, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(out)
		})
		fmt.Fprintf(out, "\nEnvironment:\n  ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL  Anthropic Messages API credentials / endpoint\n")
		fmt.Fprintf(out, "  OPENAI_API_KEY, OPENAI_BASE_URL        any OpenAI-compatible Chat Completions endpoint (OpenAI, Ollama, vLLM, ...)\n")
		fmt.Fprintf(out, "\nBash sandbox here (--sandbox auto): %s\n", sandbox.Probe().String())
		for _, p := range sandbox.Probe().Protections() {
			fmt.Fprintf(out, "  - %s\n", p)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			_, _ = io.WriteString(stdout, usage.String())
		} else {
			_, _ = io.WriteString(stderr, usage.String())
		}
		return cfg, err
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected argument %q (flags only; see --help)", fs.Arg(0))
		fmt.Fprintln(stderr, err)
		return cfg, err
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "listen":
			cfg.ListenSet = true
		case "workspace":
			cfg.WorkspaceSet = true
		case "gateway":
			cfg.GatewaySet = true
		}
	})
	if cfg.Driver != nil {
		cfg.Driver.FromEnv(getenv)
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(stderr, err)
		return cfg, err
	}
	return cfg, nil
}

// Validate reports the first invalid field, naming its flag.
func (c Config) Validate() error {
	var errs []error
	if err := dashboard.ValidateAddr(c.Listen); err != nil {
		errs = append(errs, fmt.Errorf("--listen: %w", err))
	}
	if c.Model != "" {
		if p, m, ok := strings.Cut(c.Model, ":"); !ok || p == "" || m == "" {
			errs = append(errs, fmt.Errorf("--model %q: want PROVIDER:MODEL, e.g. anthropic:claude-sonnet-4-6", c.Model))
		}
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--event-retention", c.EventRetention}, {"--delta-retention", c.DeltaRetention}, {"--heartbeat", c.Heartbeat}, {"--turn-timeout", c.TurnTimeout}, {"--client-stall", c.ClientStall}} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s %s: must be positive", d.name, d.v))
		}
	}
	if c.ClientQueue < 1 {
		errs = append(errs, fmt.Errorf("--client-queue %d: must be at least 1", c.ClientQueue))
	}
	if c.MaxConnections < 1 {
		errs = append(errs, fmt.Errorf("--max-connections %d: must be at least 1", c.MaxConnections))
	}
	if c.ToolOutputLog < 4<<10 {
		errs = append(errs, fmt.Errorf("--tool-output-log %s: must be at least 4KiB", c.ToolOutputLog))
	}
	if c.ToolOutputMax < 64<<10 {
		errs = append(errs, fmt.Errorf("--tool-output-max %s: must be at least 64KiB", c.ToolOutputMax))
	}
	if c.ReplayLimit < 1 {
		errs = append(errs, fmt.Errorf("--replay-limit %d: must be at least 1", c.ReplayLimit))
	}
	if c.ApprovalMode != "" {
		if _, err := permission.ParseMode(c.ApprovalMode); err != nil {
			errs = append(errs, fmt.Errorf("--approval-mode: %w", err))
		}
	}
	if c.Sandbox != "auto" && c.Sandbox != "off" {
		errs = append(errs, fmt.Errorf("--sandbox %q: want auto or off", c.Sandbox))
	}
	if c.Gateway != "" {
		if _, err := gatewaylink.ValidateURL(c.Gateway, c.GatewayInsecure); err != nil {
			errs = append(errs, fmt.Errorf("--gateway: %w", err))
		}
	}
	if c.Workspace == "" {
		errs = append(errs, errors.New("--workspace: must not be empty"))
	}
	return errors.Join(errs...)
}
