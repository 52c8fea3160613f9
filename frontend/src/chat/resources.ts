// Resources an <img> loads (attachments): in the window its asset server
// serves the path itself; in the browser dashboard an <img> cannot carry
// the bearer token, so it loads a short-lived signed URL of the path
// (POST /signed-urls, docs/protocol.md §2). Signed URLs are cached per path
// and asked for again once expired.

import { createContext, useCallback, useContext, useEffect, useState } from "react";

/** A signed URL and when it stops working (ms since the epoch). */
export interface SignedUrl {
  url: string;
  expiresAt: number;
}

/** Signs a same-origin path (Backend.signUrl). */
export type SignPath = (path: string) => Promise<SignedUrl>;

/** A URL is used only while it has at least this long left. */
export const SIGNED_URL_MARGIN_MS = 30_000;

/** Signed URLs by path, each asked for once while valid. */
export class UrlSigner {
  private readonly cache = new Map<string, SignedUrl>();
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(
    private readonly sign: SignPath,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached URL of path while it has SIGNED_URL_MARGIN_MS left, else null. */
  cached(path: string): string | null {
    const s = this.cache.get(path);
    return s && s.expiresAt - this.now() > SIGNED_URL_MARGIN_MS ? s.url : null;
  }

  /** Whether url (one this signer gave) has expired or is about to. */
  expired(url: string): boolean {
    for (const s of this.cache.values()) if (s.url === url) return s.expiresAt - this.now() <= SIGNED_URL_MARGIN_MS;
    return true;
  }

  /** A valid URL of path: the cached one, or a new one (one request per path at a time). */
  url(path: string): Promise<string> {
    const hit = this.cached(path);
    if (hit) return Promise.resolve(hit);
    let p = this.inFlight.get(path);
    if (!p) {
      p = this.sign(path).then(
        (s) => {
          this.cache.set(path, s);
          this.inFlight.delete(path);
          return s.url;
        },
        (err: unknown) => {
          this.inFlight.delete(path);
          throw err;
        },
      );
      this.inFlight.set(path, p);
    }
    return p;
  }
}

/** The page's signer; null (the window) means a path loads as it is. */
export const UrlSignerContext = createContext<UrlSigner | null>(null);

/**
 * The src of a same-origin resource path: the path itself in the window,
 * a signed URL in the browser (undefined until it is known). onError asks
 * for a fresh URL when the one shown has expired (an image loaded again
 * later), and does nothing for any other failure.
 */
export function useResourceUrl(path: string | null): { src: string | undefined; onError: () => void } {
  const signer = useContext(UrlSignerContext);
  const [signed, setSigned] = useState<{ path: string; url: string } | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (!signer || path === null) return undefined;
    let live = true;
    signer.url(path).then(
      (url) => live && setSigned({ path, url }),
      (err: unknown) => console.debug("[resources] signing failed", path, err),
    );
    return () => {
      live = false;
    };
  }, [signer, path, attempt]);
  const current = signer && path !== null ? (signed?.path === path ? signed.url : signer.cached(path) ?? undefined) : path ?? undefined;
  const onError = useCallback(() => {
    if (signer && current !== undefined && signer.expired(current)) setAttempt((n) => n + 1);
  }, [signer, current]);
  return { src: current, onError };
}
