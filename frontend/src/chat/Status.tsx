// Small status components: connection banner, compaction notice, context meter.

import type { CompactionState, ConnectionState, ErrorInfo } from "../state";

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: "Connecting…",
  connected: "",
  reconnecting: "Connection lost — reconnecting…",
  resynchronising: "Resynchronising…",
  disconnected: "Disconnected",
};

/** Props of ConnectionBanner. */
export interface ConnectionBannerProps {
  state: ConnectionState;
  error?: ErrorInfo | null;
}

/** Shows the connection state (nothing when connected) and the last error. */
export function ConnectionBanner({ state, error }: ConnectionBannerProps) {
  const text = CONNECTION_TEXT[state];
  if (!text && !error) return null;
  return (
    <div className={`conn-banner conn-${state}`} role="status">
      {text && <span>{text}</span>}
      {error && (
        <span className="conn-error" role="alert">
          {error.errorClass}: {error.message}
          {error.willRetry ? " (retrying)" : ""}
        </span>
      )}
    </div>
  );
}

/** Props of CompactionNotice. */
export interface CompactionNoticeProps {
  compaction: CompactionState;
}

/** Shows "Compacting context…" while in progress and the last compaction's stats. */
export function CompactionNotice({ compaction: c }: CompactionNoticeProps) {
  if (c.inProgress) {
    return (
      <div className="compaction compaction-running" role="status" data-testid="compaction" data-state="running">
        <span className="tool-spinner" aria-hidden="true" /> Compacting context…
      </div>
    );
  }
  if (!c.last) return null;
  const l = c.last;
  if (l.removed === 0) {
    return (
      <div className="compaction compaction-warn" role="status" data-testid="compaction" data-state="nothing">
        <span className="compaction-mark" aria-hidden="true">!</span>
        <span>Nothing was compacted: the conversation ({l.tokensKept.toLocaleString("en-US")} tokens) already fits in the part that is kept.</span>
      </div>
    );
  }
  if (l.reason === "tokens") {
    return (
      <div className="compaction compaction-warn" role="alert" data-testid="compaction" data-state="failed">
        <span className="compaction-mark" aria-hidden="true">!</span>
        <span>
          Compaction could not summarise{l.error ? ` (${l.error})` : ""}: the {l.removed} oldest {l.removed === 1 ? "message was" : "messages were"} left out of the
          model's context without a summary ({l.tokensRemoved.toLocaleString("en-US")} tokens); they stay in the history.
        </span>
      </div>
    );
  }
  return (
    <div className="compaction compaction-done" role="status" data-testid="compaction" data-state="done">
      <span className="compaction-mark" aria-hidden="true">⇣</span>
      <span>
        Context compacted: {l.removed} {l.removed === 1 ? "message" : "messages"} summarised ({l.tokensRemoved.toLocaleString("en-US")} tokens), {l.kept} kept (
        {l.tokensKept.toLocaleString("en-US")} tokens).
      </span>
    </div>
  );
}

/** Props of ContextMeter. */
export interface ContextMeterProps {
  used: number | null;
  window: number | null;
}

/** A meter of context use; renders nothing until both numbers are known. */
export function ContextMeter({ used, window }: ContextMeterProps) {
  if (used === null || !window) return null;
  const pct = Math.min(100, Math.round((used / window) * 100));
  return (
    <div className="ctx-meter" title={`${used.toLocaleString("en-US")} / ${window.toLocaleString("en-US")} tokens`}>
      <meter min={0} max={window} value={used} aria-label="Context used" />
      <span>{pct}%</span>
    </div>
  );
}
