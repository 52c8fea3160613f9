package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"time"

	"agenthub/app/hub"
	"agenthub/app/llm"
	"agenthub/app/mcp"
	"agenthub/app/permission"
	"agenthub/app/search"
	"agenthub/app/secrets"
	"agenthub/app/settings"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/ipc/dashboard"
	"agenthub/ipc/dialect"
	"agenthub/ipc/gatewaylink"
	"agenthub/ipc/rpc"
	"agenthub/store"

	berrors "go.etcd.io/bbolt/errors"
)

// DBFile is the bbolt file's name inside the data dir.
const DBFile = "agenthub.db"

// LockTimeout bounds the wait for another instance's lock on the bbolt file.
const LockTimeout = time.Second

// DataDirInUseError is returned by Open when another Agent Hub instance
// holds the data dir's lock (agenthub.lock) beyond LockTimeout. Its text
// keeps the wording of the contract ("bbolt lock timeout").
type DataDirInUseError struct {
	// Dir is the data dir in use.
	Dir string
	// Timeout is how long Open waited for the lock.
	Timeout time.Duration
}

// Error names the data dir and the cause.
func (e *DataDirInUseError) Error() string {
	return fmt.Sprintf("data dir %s is in use by another Agent Hub instance (bbolt lock timeout after %s)", e.Dir, e.Timeout)
}

// Instance is one running Agent Hub on one data dir: its store, settings
// and (when enabled) dashboard listener. Close releases them.
type Instance struct {
	// Config is the parsed configuration, with DataDir resolved.
	Config Config
	// Store is the open bbolt file (exclusively locked).
	Store *store.DB
	// Bus is the protocol core: the single log writer and the subscriptions.
	Bus *ipc.Bus
	// Hub runs sessions and turns; it implements ipc.HubAPI.
	Hub *hub.Hub
	// Dashboard is the bound listener, or nil when the dashboard is off.
	Dashboard *dashboard.Server
	// API is the protocol surface mounted on Dashboard (nil when off).
	API *dashboard.API
	// Headless reports the mode the instance was opened for.
	Headless bool
	// MCP runs the configured MCP servers.
	MCP *mcp.Manager
	// Search is the full-text index over every message, fed by the bus's
	// commits.
	Search *search.Index
	// RPC is the seed 003 dispatcher every transport shares (gateway.go).
	RPC *rpc.Dispatcher
	// Gateway is the hub's gateway link and its devices (off unless
	// --gateway or settings' gateway_url names one).
	Gateway *gatewaylink.Manager

	devicePrompt devicePromptFunc

	settings *settings.Service
	getenv   func(string) string
	log      *slog.Logger
	unlock   func() error // releases the data dir's instance lock
}

// OpenOptions configures Open.
type OpenOptions struct {
	// Headless selects the mode; the dashboard is always on when headless.
	Headless bool
	// Assets is the built frontend served by the dashboard (may be nil).
	Assets fs.FS
	// Getenv reads provider variables; nil means no environment.
	Getenv func(string) string
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Vault keeps the API keys; nil means secrets.Open(data dir): the
	// system keyring when it answers, else DATA_DIR/secrets.json.
	Vault secrets.Vault
}

// Open resolves and creates the data dir, loads the settings, opens (and
// locks) the bbolt file and, when the mode and settings ask for it, binds
// the dashboard listener (not yet serving: call Dashboard.Serve). A second
// instance on the same data dir fails within LockTimeout with a
// *DataDirInUseError naming the data dir.
func Open(cfg Config, opts OpenOptions) (*Instance, error) {
	dir, err := ResolveDataDir(cfg.DataDir, goos, opts.Getenv)
	if err != nil {
		return nil, err
	}
	cfg.DataDir = dir
	if err := EnsureDataDir(dir); err != nil {
		return nil, err
	}
	st, err := settings.Load(dir)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	vault := opts.Vault
	if vault == nil {
		vault = secrets.Open(dir)
	}
	status := settings.Status{KeysStoredIn: vault.Where(), Sandbox: sandboxLine(cfg), SandboxProtections: sandboxProtections(cfg)}
	if r, ok := vault.(interface{ Reason() string }); ok {
		log.Info("API keys are kept in a 0600 file, not the system keyring", "reason", r.Reason())
	}
	moved, err := settings.LoadKeys(dir, vault, &st)
	if moved {
		log.Info("API keys moved out of settings.json", "to", vault.Where())
	}
	if err != nil {
		log.Error("reading API keys", "err", err)
		status.KeysError = err.Error()
	}
	db, unlock, err := openStore(dir, log)
	if err != nil {
		return nil, err
	}
	if cfg.Logs != nil {
		if path, err := cfg.Logs.Attach(dir); err != nil {
			log.Warn("no log file this launch", "err", err)
		} else {
			log.Info("logging to a file", "path", path)
		}
	}
	inst := &Instance{Config: cfg, Store: db, unlock: unlock, Headless: opts.Headless,
		settings: settings.NewService(dir, st, vault, status), getenv: opts.Getenv, log: log}
	flags := settings.Flags{Model: cfg.Model, ApprovalMode: cfg.ApprovalMode}
	inst.settings.SetSources(func(s settings.Settings) map[string]string { return settings.ValueSources(s, flags, opts.Getenv) })
	if err := inst.startServices(); err != nil {
		return nil, errors.Join(err, inst.Close())
	}
	if err := inst.startGateway(); err != nil {
		return nil, errors.Join(err, inst.Close())
	}
	if addr, on := dashboardAddr(cfg, st, opts.Headless); on {
		srv, err := dashboard.Listen(dashboard.Options{Addr: addr, Assets: opts.Assets, Logger: log})
		if err != nil {
			return nil, errors.Join(err, inst.Close())
		}
		inst.Dashboard = srv
		srv.Handle("GET /api/info", http.HandlerFunc(inst.serveInfo))
		api, err := dashboard.MountAPI(srv, dashboard.APIOptions{Bus: inst.Bus, Hub: inst.Hub, RPC: inst.RPC, Logger: log, MaxConnections: cfg.MaxConnections})
		if err != nil {
			return nil, errors.Join(err, inst.Close())
		}
		inst.API = api
	}
	return inst, nil
}

// startServices starts the protocol core (Bus) and the hub on the open
// store, with the providers and prices the settings describe, and keeps
// both following later settings changes. The hub's crash recovery runs here,
// before any client can attach.
func (in *Instance) startServices() error {
	cfg := in.Config
	index, indexed := search.Open(ipc.BoltStore(in.Store), in.log)
	in.Search = index
	bus, err := ipc.NewBus(indexed, ipc.Options{
		ClientQueue:          cfg.ClientQueue,
		ClientStall:          cfg.ClientStall,
		ReplayLimit:          cfg.ReplayLimit,
		Heartbeat:            cfg.Heartbeat,
		EventRetention:       cfg.EventRetention,
		DeltaRetention:       cfg.DeltaRetention,
		Logger:               in.log,
		RoutingPolicyVersion: func() string { return hub.RoutingPolicy + "@" + hub.RoutingPolicyVersion },
		Dialects:             dialect.New(),
	})
	if err != nil {
		index.Close()
		in.Search = nil
		return fmt.Errorf("start event bus: %w", err)
	}
	in.Bus = bus
	st := in.settings.Current()
	st.ApplyPrices()
	var live atomic.Pointer[hub.Hub] // status reports wait for the hub
	in.MCP = mcp.NewManager(mcp.Options{
		DataDir: cfg.DataDir, Version: cfg.Version, Logger: in.log,
		OnStatus: func(s ipc.MCPServerStatus) {
			if h := live.Load(); h != nil {
				h.MCPStatusChanged(s)
			}
		},
	})
	ws, ask := defaultWorkspace(cfg, in.Headless, in.log)
	h, err := hub.New(hub.Config{
		DataDir:           cfg.DataDir,
		DefaultWorkspace:  ws,
		AskWorkspace:      ask,
		OnWorkspaceChosen: func(dir string) { rememberWorkspace(cfg.DataDir, dir, in.log) },
		DefaultModel:      cfg.Model,
		TurnTimeout:       cfg.TurnTimeout,
		ApprovalMode:      permission.Mode(cfg.ApprovalMode),
		ToolOptions: tool.Options{LogBytes: int64(cfg.ToolOutputLog), FileMaxBytes: int64(cfg.ToolOutputMax), Sandbox: in.toolSandbox(cfg),
			Env: func() map[string]string { return in.settings.Current().ToolEnv }},
		OutputRetention: cfg.EventRetention,
		MCP:             in.MCP,
		Search:          index,
		AutoTitle:       true,
		Logger:          in.log,
	}, bus, llm.New(st.LLMConfig()), in.settings)
	if err != nil {
		return fmt.Errorf("start hub: %w", err)
	}
	in.settings.SetListener(func(s settings.Settings) {
		s.ApplyPrices()
		h.SetProviders(llm.New(s.LLMConfig()))
		in.MCP.Configure(validMCP(s.MCPServers, in.log))
	})
	if err := h.Start(context.Background()); err != nil {
		return errors.Join(fmt.Errorf("start hub: %w", err), h.Close())
	}
	in.Hub = h
	live.Store(h)
	in.MCP.Configure(validMCP(st.MCPServers, in.log))
	return nil
}

// validMCP returns the entries of servers that pass mcp.Validate, logging
// the others (a hand-edited settings.json may hold a bad one; the rest run).
func validMCP(servers map[string]mcp.ServerConfig, log *slog.Logger) map[string]mcp.ServerConfig {
	out := make(map[string]mcp.ServerConfig, len(servers))
	for name, c := range servers {
		one := map[string]mcp.ServerConfig{name: c}
		if err := mcp.Validate(one); err != nil {
			log.Error("settings: MCP server skipped", "err", err)
			continue
		}
		out[name] = c
	}
	return out
}

// openStore opens DIR/agenthub.db, turning a lock timeout into the
// user-facing "in use by another instance" error.
func openStore(dir string, log *slog.Logger) (*store.DB, func() error, error) {
	unlock, err := lockDataDir(dir, LockTimeout)
	if err != nil {
		return nil, nil, err
	}
	release := func() error {
		if unlock != nil {
			return unlock()
		}
		return nil
	}
	path := filepath.Join(dir, DBFile)
	if unlock != nil { // compaction swaps the file: only under our own lock
		st, err := store.CompactIfSparse(path, CompactFreeRatio, LockTimeout)
		switch {
		case errors.Is(err, berrors.ErrTimeout):
			_ = release()
			return nil, nil, &DataDirInUseError{Dir: dir, Timeout: LockTimeout}
		case err != nil:
			log.Warn("store compaction failed; continuing with the file as it is", "err", err)
		case st.Compacted:
			log.Info("store compacted", "free_ratio", fmt.Sprintf("%.2f", st.FreeRatio), "before_bytes", st.Before, "after_bytes", st.After)
		}
	}
	db, err := store.Open(path, store.Options{Timeout: LockTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		_ = release()
		return nil, nil, &DataDirInUseError{Dir: dir, Timeout: LockTimeout}
	}
	if err != nil {
		_ = release()
		return nil, nil, fmt.Errorf("data dir %s: %w", dir, err)
	}
	return db, release, nil
}

// CompactFreeRatio: at start, a database file whose free pages exceed this
// fraction is compacted into a new file and swapped in.
const CompactFreeRatio = 0.5

// dashboardAddr decides whether the dashboard runs and where: always when
// headless; on the desktop only when --listen was given or the settings
// enable it. An explicit --listen beats settings' dashboard_listen.
func dashboardAddr(cfg Config, st settings.Settings, headless bool) (string, bool) {
	addr := cfg.Listen
	if !cfg.ListenSet && st.DashboardListen != "" {
		addr = st.DashboardListen
	}
	return addr, headless || cfg.ListenSet || st.DashboardEnabled
}

// Info is what the first window shows: identity, data dir, provider status
// and the dashboard URL.
type Info struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Mode is "desktop" or "headless".
	Mode     string                  `json:"mode"`
	DataDir  string                  `json:"data_dir"`
	Provider settings.ProviderStatus `json:"provider"`
	// Model is the default model ("" when none is chosen yet).
	Model string `json:"model"`
	// DashboardURL is the first-load URL with token, "" when the dashboard is off.
	DashboardURL string `json:"dashboard_url"`
	// Workspace is the folder new sessions use unless one is chosen:
	// --workspace, or headless the directory it started in; a desktop launch
	// without --workspace has the folder chosen last, "" before any (the
	// window then asks for one).
	Workspace string `json:"workspace"`
	// Commit is the VCS revision of the build ("" when unknown).
	Commit string `json:"commit,omitempty"`
	// LogFile is this launch's log file ("" when there is none).
	LogFile string `json:"log_file,omitempty"`
	// Sandbox says in one line what confines bash here (the settings'
	// sandbox line): the About box shows it, so a system without the
	// sandbox (Windows, macOS) says so plainly.
	Sandbox string `json:"sandbox,omitempty"`
	// StartupError is set when the app could not start its hub (the window
	// then shows it and StartupHint, what to do, instead of the chat).
	StartupError string `json:"startup_error,omitempty"`
	StartupHint  string `json:"startup_hint,omitempty"`
}

// defaultWorkspace is the hub's current default folder (the configured one
// before the hub runs).
func (in *Instance) defaultWorkspace() string {
	if in.Hub != nil {
		return in.Hub.DefaultWorkspace()
	}
	return in.Config.Workspace
}

// Info returns the instance's current Info.
func (in *Instance) Info() Info {
	mode := "desktop"
	if in.Headless {
		mode = "headless"
	}
	model := in.Config.Model
	if model == "" {
		model = in.settings.Current().Model
	}
	if in.Hub != nil {
		// What a new session uses, as the hub routes it (a saved key's
		// provider default included): the window never says "not set"
		// while a turn would run.
		model = in.Hub.DefaultModel()
	}
	info := Info{
		Name:      Name,
		Version:   in.Config.Version,
		Mode:      mode,
		DataDir:   in.Config.DataDir,
		Provider:  settings.DetectProvider(in.settings.Current(), in.getenv),
		Model:     model,
		Workspace: in.defaultWorkspace(),
		Commit:    BuildCommit(),
		Sandbox:   sandboxLine(in.Config),
	}
	if in.Config.Logs != nil {
		info.LogFile = in.Config.Logs.Path()
	}
	if in.Dashboard != nil {
		info.DashboardURL = in.Dashboard.URL()
	}
	return info
}

// serveInfo answers GET /api/info on the dashboard with Info as JSON.
func (in *Instance) serveInfo(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(in.Info()); err != nil {
		in.log.Warn("dashboard: write /api/info", "err", err)
	}
}

// Close shuts down in dependency order: the dashboard (listener and open
// streams), the hub (cancelling running turns, keeping queued ones), the
// bus (draining pending events) and last the store, marking a clean
// shutdown. It is safe on a partly opened instance.
func (in *Instance) Close() error {
	var errs []error
	if in.API != nil {
		in.API.Close()
	}
	if in.Dashboard != nil {
		errs = append(errs, in.Dashboard.Close())
	}
	if in.Gateway != nil {
		in.Gateway.Close()
	}
	if in.Hub != nil {
		if err := in.Hub.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close hub: %w", err))
		}
	}
	if in.MCP != nil {
		in.MCP.Close()
	}
	if in.Bus != nil {
		if err := in.Bus.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close event bus: %w", err))
		}
	}
	if in.Search != nil {
		in.Search.Close()
	}
	if err := in.Store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close store: %w", err))
	}
	if in.unlock != nil {
		errs = append(errs, in.unlock())
	}
	return errors.Join(errs...)
}
