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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"agenthub/app/agent"
	"agenthub/app/attachment"
	"agenthub/app/checkpoint"
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

// CreateSession creates a top-level session (session.created).
func (h *Hub) CreateSession(ctx context.Context, req ipc.CreateSessionRequest) (store.Session, error) {
	ws := strings.TrimSpace(req.WorkspacePath)
	if ws == "" {
		ws = h.DefaultWorkspace()
	}
	if ws == "" {
		return store.Session{}, fmt.Errorf("choose the session's folder: Agent Hub was started without --workspace and no folder was chosen yet: %w", ipc.ErrInvalidInput)
	}
	abs, err := existingDir(ws)
	if err != nil {
		return store.Session{}, err
	}
	model := strings.TrimSpace(req.Model)
	if model != "" {
		if _, _, err := llm.ParseModel(model); err != nil {
			return store.Session{}, fmt.Errorf("%v: %w", err, ipc.ErrInvalidInput)
		}
	}
	title := strings.TrimSpace(req.Title)
	if len(title) > 200 {
		return store.Session{}, fmt.Errorf("title longer than 200 bytes: %w", ipc.ErrInvalidInput)
	}
	source := TitleByUser
	if title == "" {
		title, source = DefaultTitle, ""
	}
	rec := store.Session{
		ID: agent.NewID(), Title: title, TitleSource: source, WorkspacePath: abs, ActiveModel: model,
		CreatedAt: time.Now().UTC(), ApprovalMode: string(h.defaultApprovalMode()), AGUIThreadID: req.AGUIThreadID,
	}
	created, err := h.createSession(ctx, rec)
	if err == nil && h.cfg.AskWorkspace {
		h.mu.Lock()
		h.defaultWS = abs
		h.mu.Unlock()
		if h.cfg.OnWorkspaceChosen != nil {
			h.cfg.OnWorkspaceChosen(abs)
		}
	}
	return created, err
}

// DefaultWorkspace is the folder of a new session that names none: the
// configured one, or with AskWorkspace the last one chosen ("" before any).
func (h *Hub) DefaultWorkspace() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.defaultWS
}

// createSession registers rec and commits session.created (with ops:
// a fork's copied messages).
func (h *Hub) createSession(ctx context.Context, rec store.Session, ops ...store.Op) (store.Session, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return store.Session{}, errors.New("hub is closed")
	}
	h.sessions[rec.ID] = &session{rec: rec}
	h.mu.Unlock()
	_, err := h.bus.Commit(ctx, ipc.Draft{
		Type: ipc.TypeSessionCreated, SessionID: rec.ID, Actor: ipc.ActorSystem,
		Payload: ipc.SessionChanged{Session: rec}, Ops: append([]store.Op{store.PutSession(rec)}, ops...),
	})
	if err != nil {
		h.mu.Lock()
		delete(h.sessions, rec.ID)
		h.mu.Unlock()
		return store.Session{}, fmt.Errorf("creating session: %w", err)
	}
	return rec, nil
}

// ListSessions returns every session, newest first.
func (h *Hub) ListSessions(ctx context.Context) ([]store.Session, error) {
	h.mu.Lock()
	var live []*session
	for _, s := range h.sessions {
		if !s.deleted {
			live = append(live, s)
		}
	}
	h.mu.Unlock()
	out := make([]store.Session, 0, len(live))
	for _, s := range live {
		out = append(out, s.record())
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out, nil
}

// GetSession returns one session.
func (h *Hub) GetSession(ctx context.Context, sessionID string) (store.Session, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return store.Session{}, err
	}
	return s.record(), nil
}

// CurrentModel implements ipc.ModelRouter: the session's pinned model, or
// the routing policy's choice now, without pinning it ("" when no model is
// configured).
func (h *Hub) CurrentModel(ctx context.Context, sessionID string) (string, error) {
	s, err := h.lookup(sessionID)
	if err != nil {
		return "", err
	}
	d, _ := h.route(ctx, s.record())
	return d.Model, nil
}

// record returns a copy of the session record.
func (s *session) record() store.Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec
}

func (h *Hub) lookup(sessionID string) (*session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lookupLocked(sessionID)
}

func (h *Hub) lookupLocked(sessionID string) (*session, error) {
	s := h.sessions[sessionID]
	if s == nil || s.deleted {
		return nil, fmt.Errorf("session %q: %w", sessionID, ipc.ErrSessionNotFound)
	}
	return s, nil
}

// RenameSession sets a session's title (session.updated).
func (h *Hub) RenameSession(ctx context.Context, sessionID, title string) (store.Session, error) {
	title = strings.TrimSpace(title)
	if title == "" || len(title) > 200 {
		return store.Session{}, fmt.Errorf("title must be 1–200 bytes: %w", ipc.ErrInvalidInput)
	}
	s, err := h.lookup(sessionID)
	if err != nil {
		return store.Session{}, err
	}
	s.mu.Lock()
	s.rec.Title, s.rec.TitleSource = title, TitleByUser
	rec := s.rec
	err = h.bus.Emit(h.sessionDraft(rec, ipc.ActorUser))
	s.mu.Unlock()
	if err != nil {
		return store.Session{}, fmt.Errorf("renaming session: %w", err)
	}
	return rec, nil
}

// sessionDraft is a session.updated draft storing rec.
func (h *Hub) sessionDraft(rec store.Session, actor string) ipc.Draft {
	return ipc.Draft{
		Type: ipc.TypeSessionUpdated, SessionID: rec.ID, Actor: actor,
		Payload: ipc.SessionChanged{Session: rec}, Ops: []store.Op{store.PutSession(rec)},
	}
}

// DeleteSession cancels the session's running turn, drops its queue, waits
// for the turn to finish and deletes the session with its messages and turns
// (session.updated with deleted: true). Its events stay until retention.
func (h *Hub) DeleteSession(ctx context.Context, sessionID string) error {
	h.mu.Lock()
	s, err := h.lookupLocked(sessionID)
	if err != nil {
		h.mu.Unlock()
		return err
	}
	s.deleted = true
	s.queue = nil
	r := s.running
	if r != nil && !r.cancelling {
		r.cancelling = true
		r.cancel(errSessionDeleted)
	}
	h.mu.Unlock()
	if r != nil {
		select {
		case <-r.done:
		case <-ctx.Done():
			return fmt.Errorf("deleting session %s: waiting for its turn: %w", sessionID, ctx.Err())
		}
	}
	s.mu.Lock()
	d := ipc.Draft{
		Type: ipc.TypeSessionUpdated, SessionID: sessionID, Actor: ipc.ActorUser,
		Payload: ipc.SessionChanged{Session: s.rec, Deleted: true}, Ops: []store.Op{store.DeleteSession(sessionID)},
	}
	_, err = h.bus.Commit(context.WithoutCancel(ctx), d)
	s.mu.Unlock()
	if err != nil {
		return fmt.Errorf("deleting session %s: %w", sessionID, err)
	}
	h.mu.Lock()
	delete(h.sessions, sessionID)
	h.mu.Unlock()
	if err := os.RemoveAll(h.outputDir(sessionID)); err != nil {
		h.log.Warn("hub: removing a deleted session's tool output", "session", sessionID, "err", err)
	}
	if err := h.checkpoints.DeleteSession(sessionID); err != nil {
		h.log.Warn("hub: removing a deleted session's file checkpoints", "session", sessionID, "err", err)
	}
	return nil
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
