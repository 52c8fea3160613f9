// Package hub is Agent Hub's session manager: sessions (create, list,
// rename, delete), per-session turn queues that survive restarts, turn
// lifecycle and cancellation (seed 001 §6), crash recovery, delegation to
// worker sessions, context compaction and model routing. It implements
// ipc.HubAPI and publishes everything through the ipc.Bus; the agent loop of
// one turn lives in app/agent.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"agenthub/app/agent"
	"agenthub/app/attachment"
	"agenthub/app/checkpoint"
	"agenthub/app/custom"
	"agenthub/app/llm"
	"agenthub/app/permission"
	"agenthub/app/tool"
	"agenthub/ipc"
	"agenthub/store"
)

// Settings is the hub's view of the user settings (app implements it).
type Settings interface {
	// DefaultModel is the settings' default model ("provider:model"), "" if unset.
	DefaultModel() string
	// Masked returns the settings as JSON with secrets masked.
	Masked() (json.RawMessage, error)
	// Update merges a partial settings object, persists it and returns the
	// result masked. A bad patch is an error wrapping ipc.ErrInvalidInput.
	Update(patch json.RawMessage) (json.RawMessage, error)
}

// ThinkingSettings is optionally implemented by Settings: a settings-level
// thinking budget (tokens; 0 means "use Config.ThinkingBudget").
type ThinkingSettings interface {
	ThinkingBudget() int
}

// Config tunes the hub. Zero fields take the documented defaults.
type Config struct {
	// DataDir holds tool outputs (DATA_DIR/tool-output/<session>/). Required.
	DataDir string
	// DefaultWorkspace is --workspace: new sessions' directory when the
	// request names none. Default: the current directory, unless
	// AskWorkspace.
	DefaultWorkspace string
	// AskWorkspace assumes no folder (a desktop launch without --workspace,
	// which starts in $HOME): DefaultWorkspace may be "", and then a new
	// session must name its folder; each top-level session created becomes
	// the default and is handed to OnWorkspaceChosen (to remember it).
	AskWorkspace bool
	// OnWorkspaceChosen, with AskWorkspace, receives the folder of each
	// top-level session created (called outside the hub's locks).
	OnWorkspaceChosen func(dir string)
	// DefaultModel is --model, the routing policy's last resort.
	DefaultModel string
	// TurnTimeout is --turn-timeout: a turn running longer is cancelled with
	// reason "timeout". Default 30m; negative disables.
	TurnTimeout time.Duration
	// ApprovalMode, when set, is the approval mode of new sessions (tests;
	// the app takes it from Settings, see ApprovalSettings).
	ApprovalMode permission.Mode
	// MaxDelegationDepth bounds worker nesting (a worker's Depth). Default 2.
	MaxDelegationDepth int
	// CompactThreshold is the fraction of the model's context window the
	// estimated context may reach before a call compacts it. Default 0.8.
	CompactThreshold float64
	// CompactKeep is the fraction of the context window compaction keeps
	// verbatim (the newest messages). Default 0.3.
	CompactKeep float64
	// ContextWindow overrides llm.ContextWindow(model) when > 0 (tests).
	ContextWindow int64
	// QueueLimit bounds the queued turns of one session. Default 32.
	QueueLimit int
	// MaxTokens caps each LLM call's output (0: the llm default).
	MaxTokens int
	// ThinkingBudget > 0 turns on extended thinking with this token budget
	// for models that support it (Anthropic: Claude 3.7 and later; OpenAI
	// reasoning models get a reasoning effort derived from it). Default 0:
	// off. Settings implementing ThinkingSettings override it when they
	// return > 0.
	ThinkingBudget int
	// MaxAttempts bounds the attempts of one LLM call. Default 4.
	MaxAttempts int
	// Backoff overrides llm.Backoff (tests use a zero delay).
	Backoff func(attempt int, retryAfter time.Duration) time.Duration
	// Search answers Hub.Search (app/search's index); nil: search is
	// unavailable.
	Search ipc.Searcher
	// AutoTitle names a session after its first completed turn (one LLM
	// call) unless Settings implements TitleSettings, which then decides.
	AutoTitle bool
	// StallNotice is how long a provider stream may stay silent before
	// llm.call_stalled (and again every StallNotice). Default
	// agent.DefaultStallNotice.
	StallNotice time.Duration
	// ToolOptions tunes the built-in tools.
	ToolOptions tool.Options
	// OutputRetention is how long a tool call's full output file is kept
	// (--event-retention). Default 168h.
	OutputRetention time.Duration
	// OutputPruneInterval is how often old tool outputs are pruned (also
	// once at Start). Default 1h; negative disables pruning.
	OutputPruneInterval time.Duration
	// MCP, if set, offers the MCP servers' tools beside the built-ins.
	MCP MCPTools
	// CustomDirs returns the user's own folders of custom commands,
	// skills and agents; nil means custom.UserDirs (tests give their own).
	CustomDirs func() []custom.UserDir
	// BeforeTools is a test hook called at the §6.2.3 seam of every turn.
	BeforeTools func(ctx context.Context, sessionID, turnID string)
	Logger      *slog.Logger
}

// DefaultTitle is the title of a session created without one.
const DefaultTitle = "New session"

// Routing policy identity reported in route.decided.
const (
	RoutingPolicy        = "session-settings-flag"
	RoutingPolicyVersion = "1"
)

// Hub implements ipc.HubAPI. Construct with New, then Start.
type Hub struct {
	cfg      Config
	bus      *ipc.Bus
	db       ipc.StoreReader
	settings Settings
	log      *slog.Logger

	ctx     context.Context // lives until Close
	stop    context.CancelFunc
	wg      sync.WaitGroup // every turn goroutine
	active  atomic.Int32   // top-level turns running (the last to end releases memory)
	release *time.Timer    // the second release after the last turn (memory.go), under mu
	bg      sync.WaitGroup // background work (the output pruner), stopped by ctx
	closed  bool

	mu        sync.Mutex
	providers Providers
	sessions  map[string]*session
	defaultWS string // new sessions' folder when they name none ("": they must)

	perms       *permission.Store // workspace rules (DATA_DIR/permissions.json)
	approvals   approvals         // tool calls waiting for the user
	gitGrants   gitGrants         // bash calls approved with git writes
	attachments *attachment.Store // uploads (DATA_DIR/attachments)
	checkpoints *checkpoint.Store // turns' file changes (DATA_DIR/checkpoints)
	trust       *custom.Trust     // repository commands let run (DATA_DIR/trusted-commands.json)
}

var _ ipc.HubAPI = (*Hub)(nil)

// session is the hub's authoritative in-memory state of one session.
// mu guards rec and orders the session's events: every draft carrying a
// PutSession of rec is enqueued under it, so the newest record wins. The
// other fields are guarded by Hub.mu. Lock order: Hub.mu before session.mu.
type session struct {
	mu      sync.Mutex
	rec     store.Session
	running *run
	queue   []store.Turn
	deleted bool
	// compacting is set while a compaction of the session runs.
	compacting bool
	// titling is set (under Hub.mu) while the title call runs.
	titling bool
	// callIDs names the session's tool calls (Hub.callIDs); nil until needed.
	callIDs *agent.CallIDs
}

// run is a turn in flight.
type run struct {
	turn       store.Turn
	ctx        context.Context
	cancel     context.CancelCauseFunc
	timer      *time.Timer
	cancelling bool
	done       chan struct{}
	// The turn timeout pauses while tool calls wait for approval (Hub.mu):
	// deadline is when timer fires, remaining what is left while paused.
	deadline  time.Time
	remaining time.Duration
	waiting   int
	// files records the turn's workspace changes (undoTurn).
	files *checkpoint.Turn
	// ended is set (under Hub.mu) just before the turn's end is committed:
	// from then on the session counts as idle for branching and undo,
	// though the run is unregistered a moment later.
	ended bool
	// wf is what custom definitions add to the turn (workflow.go).
	wf workflow
}

// busyLocked reports whether s runs or queues a turn that has not ended.
func (s *session) busyLocked() bool {
	return (s.running != nil && !s.running.ended) || len(s.queue) > 0
}

// Providers hands out the LLM providers by name and says how they are
// configured (routing reads which have credentials): *llm.Registry, or in
// tests the in-memory twin llmtest.Scripted.
type Providers interface {
	agent.ProviderSource
	Config() llm.Config
}

var _ Providers = (*llm.Registry)(nil)

// New returns a hub over bus (and its store) that takes LLM providers from
// providers and defaults from settings (may be nil). It loads the sessions
// but runs nothing until Start.
func New(cfg Config, bus *ipc.Bus, providers Providers, settings Settings) (*Hub, error) {
	if bus == nil {
		return nil, errors.New("hub: nil bus")
	}
	if providers == nil {
		return nil, errors.New("hub: nil provider registry")
	}
	if cfg.DataDir == "" {
		return nil, errors.New("hub: Config.DataDir is required")
	}
	if cfg.DefaultWorkspace == "" && !cfg.AskWorkspace {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("hub: default workspace: %w", err)
		}
		cfg.DefaultWorkspace = wd
	}
	if cfg.TurnTimeout == 0 {
		cfg.TurnTimeout = 30 * time.Minute
	}
	if cfg.MaxDelegationDepth <= 0 {
		cfg.MaxDelegationDepth = 2
	}
	if cfg.CompactThreshold <= 0 || cfg.CompactThreshold > 1 {
		cfg.CompactThreshold = 0.8
	}
	if cfg.CompactKeep <= 0 || cfg.CompactKeep >= cfg.CompactThreshold {
		cfg.CompactKeep = min(0.3, cfg.CompactThreshold/2)
	}
	if cfg.QueueLimit <= 0 {
		cfg.QueueLimit = 32
	}
	if cfg.OutputRetention <= 0 {
		cfg.OutputRetention = DefaultOutputRetention
	}
	if cfg.OutputPruneInterval == 0 {
		cfg.OutputPruneInterval = DefaultOutputPruneInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h := &Hub{
		cfg: cfg, bus: bus, db: bus.Reader(), settings: settings, log: cfg.Logger,
		providers: providers, sessions: map[string]*session{}, defaultWS: cfg.DefaultWorkspace,
		attachments: attachment.New(filepath.Join(cfg.DataDir, "attachments")),
		checkpoints: checkpoint.New(filepath.Join(cfg.DataDir, "checkpoints"), cfg.DataDir),
	}
	perms, err := permission.OpenStore(filepath.Join(cfg.DataDir, permission.FileName))
	if err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	h.perms = perms
	if h.trust, err = custom.OpenTrust(filepath.Join(cfg.DataDir, custom.TrustFileName)); err != nil {
		return nil, fmt.Errorf("hub: %w", err)
	}
	h.ctx, h.stop = context.WithCancel(context.Background())
	recs, err := h.db.Sessions()
	if err != nil {
		return nil, fmt.Errorf("hub: loading sessions: %w", err)
	}
	for _, r := range recs {
		h.sessions[r.ID] = &session{rec: r}
	}
	return h, nil
}

// Start runs crash recovery (turns left running are closed as interrupted),
// makes the tool outputs private (0700/0600, also those an older build
// left readable) and then resumes the persisted queues: each session's
// oldest queued turn starts. Call it once.
func (h *Hub) Start(ctx context.Context) error {
	if err := h.recover(ctx); err != nil {
		return fmt.Errorf("hub: crash recovery: %w", err)
	}
	queued, err := h.db.TurnsWithStatus(store.TurnQueued)
	if err != nil {
		return fmt.Errorf("hub: loading queued turns: %w", err)
	}
	sort.SliceStable(queued, func(i, j int) bool { return queued[i].CreatedAt.Before(queued[j].CreatedAt) })
	if err := h.secureOutputs(); err != nil {
		h.log.Warn("hub: making the tool outputs private", "err", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range queued {
		if s := h.sessions[t.SessionID]; s != nil && !s.deleted {
			s.queue = append(s.queue, t)
		}
	}
	for _, s := range h.sessions {
		h.syncQueuedLocked(s)
		h.startNextLocked(s)
	}
	if h.cfg.OutputPruneInterval > 0 {
		h.bg.Add(1)
		go h.runOutputPruner()
	}
	return nil
}

// syncQueuedLocked makes the session record's QueuedTurns match the loaded
// queue (records written before QueuedTurns existed, or by an older build),
// emitting session.updated when it changes.
func (h *Hub) syncQueuedLocked(s *session) {
	var want []store.QueuedTurn
	for _, t := range s.queue {
		text := store.TextOf(t.Content)
		if len(t.Content) == 0 && t.UserMessageID != "" {
			if m, err := h.db.Message(t.SessionID, t.UserMessageID); err == nil {
				text = store.TextOf(m.Content)
			}
		}
		want = append(want, store.QueuedTurn{TurnID: t.ID, Content: text})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Equal(want, s.rec.QueuedTurns) {
		return
	}
	s.rec.QueuedTurns = want
	if err := h.bus.Emit(h.sessionDraft(s.rec, ipc.ActorSystem)); err != nil {
		h.log.Warn("hub: updating queued turns", "session", s.rec.ID, "err", err)
	}
}

// Close cancels every running turn (reason "shutdown"; queued turns stay
// queued for the next start) and waits for the turn goroutines to finish
// their events.
func (h *Hub) Close() error {
	h.mu.Lock()
	h.closed = true
	for _, s := range h.sessions {
		if s.running != nil && !s.running.cancelling {
			s.running.cancelling = true
			s.running.cancel(errShutdown)
		}
	}
	if h.release != nil {
		h.release.Stop()
	}
	h.mu.Unlock()
	h.wg.Wait()
	h.stop()
	h.bg.Wait()
	return nil
}

// SetProviders replaces the providers (after a settings change); turns
// started afterwards use them.
func (h *Hub) SetProviders(r Providers) {
	if r == nil {
		return
	}
	h.mu.Lock()
	h.providers = r
	h.mu.Unlock()
}

// protected lists the directories no file tool, undo or mention reads or
// writes, wherever a session's workspace is: the data dir (settings,
// keys, approval rules, global instructions, the database, the logs).
func (h *Hub) protected() []string { return []string{h.cfg.DataDir} }

// outputDir is where a session's tool calls keep their full output
// (DATA_DIR/tool-output/<session>); it goes with the session.
func (h *Hub) outputDir(sessionID string) string {
	return filepath.Join(h.cfg.DataDir, "tool-output", sessionID)
}
