// The dashboard token in the browser (docs/protocol.md §2). The page is
// opened once at http://127.0.0.1:PORT/?token=TOKEN; it keeps the token in
// sessionStorage — scoped to this origin (host and port) and this tab —
// and takes it out of the address bar, so it stays out of history,
// bookmarks and copied links. No cookie holds it: cookies are not
// port-scoped, every other server on 127.0.0.1 would receive it. Requests
// carry it as Authorization: Bearer; WebSockets use single-use attach
// tokens, and <img> loads short-lived signed URLs.

/** The sessionStorage key of the token. */
export const TOKEN_KEY = "agenthub.token";

/** What takeDashboardToken uses of sessionStorage (null: unavailable). */
export type TokenStorage = Pick<Storage, "getItem" | "setItem">;

/**
 * The dashboard token: the address's ?token= (then stored and removed from
 * the address bar with history.replaceState, keeping the rest of the URL),
 * else the one stored by an earlier load of this tab, else null.
 */
export function takeDashboardToken(loc: Pick<Location, "href">, hist: Pick<History, "state" | "replaceState">, storage: TokenStorage | null): string | null {
  const url = new URL(loc.href);
  const given = url.searchParams.get("token");
  if (given === null) {
    try {
      return storage?.getItem(TOKEN_KEY) ?? null;
    } catch {
      return null;
    }
  }
  url.searchParams.delete("token");
  hist.replaceState(hist.state, "", url.pathname + url.search + url.hash);
  try {
    storage?.setItem(TOKEN_KEY, given);
  } catch {
    // Storage refused (a private mode quota): the token lives for this page load only.
  }
  return given;
}

/** The window's sessionStorage, or null where reading it throws (storage disabled). */
export function sessionStorageOf(win: Pick<Window, "sessionStorage">): TokenStorage | null {
  try {
    return win.sessionStorage;
  } catch {
    return null;
  }
}

/** The Authorization header of a token (none without one). */
export function bearerHeader(token: string | null): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}
