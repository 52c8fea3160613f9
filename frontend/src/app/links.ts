// Links in the desktop window open in the system browser: a click on any
// <a href> (answers, tool summaries, the app's own links) is intercepted and
// handed to Go (App.OpenLink → runtime.BrowserOpenURL), for http, https and
// mailto only; anything else is refused with a notice. In-page fragment
// links (#/s/<id>) keep working. The browser dashboard does not install
// this: its links open in new tabs.

/** URL schemes handed to the system browser (app.LinkSchemes). */
export const LINK_SCHEMES: readonly string[] = ['http:', 'https:', 'mailto:'];

/** What a click on href should do: open url, refuse it, or leave it to the page. */
export type LinkAction = { kind: 'open'; url: string } | { kind: 'refuse'; reason: string } | { kind: 'page' };

/** Decides what to do with an anchor's href, relative to base (the page URL). */
export function linkAction(href: string, base: string): LinkAction {
  if (href === '' || href.startsWith('#')) return { kind: 'page' };
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return { kind: 'refuse', reason: `Not a valid link: ${href}` };
  }
  if (!LINK_SCHEMES.includes(url.protocol)) {
    return { kind: 'refuse', reason: `Links of this kind are not opened (only http, https and mailto): ${href}` };
  }
  return { kind: 'open', url: url.href };
}

/**
 * Intercepts link clicks in doc: open receives the URL to hand to the system
 * browser, notify a message for the user. Returns the uninstaller.
 */
export function installLinkHandler(doc: Document, open: (url: string) => Promise<void>, notify: (text: string) => void): () => void {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || (e.type === 'auxclick' && e.button !== 1)) return;
    const a = e.target instanceof Element ? e.target.closest('a[href]') : null;
    if (!a) return;
    const action = linkAction(a.getAttribute('href') ?? '', doc.location?.href ?? 'about:blank');
    if (action.kind === 'page') return;
    e.preventDefault();
    if (action.kind === 'refuse') {
      notify(action.reason);
      return;
    }
    open(action.url).catch((err: unknown) => notify(`Could not open ${action.url}: ${err instanceof Error ? err.message : String(err)}`));
  };
  doc.addEventListener('click', onClick);
  doc.addEventListener('auxclick', onClick);
  return () => {
    doc.removeEventListener('click', onClick);
    doc.removeEventListener('auxclick', onClick);
  };
}
