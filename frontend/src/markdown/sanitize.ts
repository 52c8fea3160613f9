// Strict HTML sanitiser for rendered Markdown (LLM output in a window that can
// run shell tools: an XSS here is an RCE). No scripts, event handlers,
// javascript:/data: links, iframes, forms, styles, SVG or MathML; links open
// in a new browsing context with rel="noopener noreferrer". Remote images are
// not loaded: each becomes a placeholder (images.ts). Model output cannot
// borrow the app's looks or page state either: class, style, role, aria-*,
// data-*, id, name, tabindex, accesskey, contenteditable and autofocus are
// dropped (a message must not draw the app's dialogs, mark itself
// aria-modal, take an element id the app looks up, or steal keys and
// focus). The app's own markup — code blocks, task boxes — is added after
// sanitising, into slots (render.ts).

import DOMPurify from "dompurify";
import { blockImages } from "./images";

/** Tags removed even if DOMPurify's HTML profile would keep them. */
const FORBID_TAGS = [
  "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "input", "textarea",
  "select", "option", "link", "meta", "base", "svg", "math", "template", "dialog", "video", "audio", "source",
];

/** Attributes removed everywhere (aria-* and data-* too: see createSanitizer). */
const FORBID_ATTR = [
  "style", "srcset", "formaction", "action", "background", "ping",
  "class", "role", "id", "name", "tabindex", "accesskey", "contenteditable", "autofocus", "draggable", "slot", "is",
];

/** The attribute of a slot: a placeholder render.ts fills with the app's own markup after sanitising. */
export const SLOT_ATTR = "data-md-slot";

/** http(s), mailto, fragments and relative URLs only. */
const ALLOWED_URI = /^(?:(?:https?|mailto):|#|\/|\.\.?\/|[^a-z:]*$)/i;

/** Sanitises an HTML string into safe static markup. */
export type Sanitizer = (html: string) => string;

/**
 * Creates a sanitiser bound to a window (the page's by default). Each
 * sanitiser owns its DOMPurify instance, so its hooks affect nothing else.
 */
export function createSanitizer(win: Window & typeof globalThis = window): Sanitizer {
  const purify = DOMPurify(win);
  purify.addHook("uponSanitizeAttribute", (_node, data) => {
    if (data.attrName.startsWith("aria-")) data.keepAttr = false;
  });
  purify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
    if (node.tagName === "IMG") {
      const src = node.getAttribute("src") ?? "";
      if (!/^https?:/i.test(src)) node.removeAttribute("src");
      node.setAttribute("loading", "lazy");
      node.setAttribute("referrerpolicy", "no-referrer");
    }
    if (node.tagName === "BUTTON") node.setAttribute("type", "button");
    // Table column alignment (GFM): only left/center/right, only on cells.
    const align = node.getAttribute("align");
    if (align !== null && (!/^(TH|TD)$/.test(node.tagName) || !/^(left|center|right)$/.test(align))) node.removeAttribute("align");
  });
  return (html) =>
    blockImages(
      purify.sanitize(html, {
        USE_PROFILES: { html: true },
        FORBID_TAGS,
        FORBID_ATTR,
        ADD_ATTR: ["align", SLOT_ATTR],
        ADD_URI_SAFE_ATTR: ["align", SLOT_ATTR],
        ALLOW_DATA_ATTR: false,
        ALLOW_ARIA_ATTR: false,
        ALLOWED_URI_REGEXP: ALLOWED_URI,
        ALLOW_UNKNOWN_PROTOCOLS: false,
        RETURN_TRUSTED_TYPE: false,
      }),
      win.document,
    );
}

