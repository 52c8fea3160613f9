// The lifecycle both stream transports share: connect/close, the
// generation that silences a superseded connection, the retry timer, where
// a subscribe resumes (the client's cursor, or a snapshot after an unusable
// one), and what a stream frame does to the connection state.

import type { ServerFrame, UnknownFrame } from "../protocol";
import type { ConnectionState, Transport, TransportHandlers } from "./types";

/** Base of WsTransport and WailsTransport. */
export abstract class SessionStream implements Transport {
  protected sessionId = "";
  protected handlers: TransportHandlers | null = null;
  /** Bumped by every (re)subscribe and teardown: callbacks of an older one check it and stay silent. */
  protected generation = 0;
  protected stopped = true;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  /** The cursor proved unusable (expired, replay too large): subscribe with a snapshot until one arrives. */
  private needSnapshot = false;
  private snapshotRequested = false;

  constructor(protected readonly log: (msg: string, detail?: unknown) => void) {}

  /** See Transport.connect. */
  connect(sessionId: string, handlers: TransportHandlers): void {
    this.teardown();
    this.sessionId = sessionId;
    this.handlers = handlers;
    this.stopped = false;
    this.needSnapshot = false;
    this.begin();
  }

  /** See Transport.close. */
  close(): void {
    const wasRunning = !this.stopped;
    this.teardown();
    if (wasRunning) this.handlers?.state("disconnected");
  }

  /** Starts streaming (connect has reset the state). */
  protected abstract begin(): void;
  /** (Re)subscribes from resumePoint(); state is what the page shows meanwhile. */
  protected abstract subscribe(state: ConnectionState): void;
  /** Drops the connection or subscription; nothing it does is delivered afterwards. */
  protected abstract release(): void;

  /** Stops everything: no callback, retry or frame of the current connection reaches the handlers. */
  protected teardown(): void {
    this.stopped = true;
    this.generation++;
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.release();
  }

  /** Where the next subscribe starts: after the client's cursor, or from a snapshot (no cursor, or an unusable one). */
  protected resumePoint(): { since: string | null; snapshot: boolean } {
    const since = this.needSnapshot ? null : (this.handlers?.cursor() ?? null);
    this.snapshotRequested = since === null;
    return { since, snapshot: since === null };
  }

  /** Shows "reconnecting" and subscribes again after delayMs (unless stopped or superseded meanwhile). */
  protected retryAfter(delayMs: number): void {
    if (this.stopped) return;
    this.handlers?.state("reconnecting");
    const gen = ++this.generation;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (gen === this.generation && !this.stopped) this.subscribe("reconnecting");
    }, delayMs);
  }

  /** Answers a heartbeat ping (the WebSocket; the in-process IPC has none). */
  protected onPing(_nonce: string): void {}

  /** Delivers one decoded stream frame and applies what it means for the connection. */
  protected deliver(f: ServerFrame | UnknownFrame): void {
    const h = this.handlers;
    switch (f.type) {
      case "unknown":
        this.log("ignoring frame", f.reason);
        return;
      case "ping":
        this.onPing(f.nonce);
        return;
      case "pong":
        return;
      case "response":
        this.log("ignoring a response frame on the stream (RPC has its own channel)", f.requestId);
        return;
      case "subscribe_ack":
        h?.frame(f);
        if (!this.snapshotRequested) h?.state("connected");
        return;
      case "subscribe_error":
        if (f.code === "cursor_expired" || f.code === "replay_too_large") {
          this.log("cursor unusable; resynchronising with a snapshot", f);
          this.needSnapshot = true;
          this.subscribe("resynchronising");
          return;
        }
        h?.frame(f);
        this.teardown();
        h?.state("disconnected");
        return;
      case "snapshot":
        this.needSnapshot = false;
        h?.frame(f);
        h?.state("connected");
        return;
      case "event":
      case "error":
        h?.frame(f);
        return;
    }
  }
}
