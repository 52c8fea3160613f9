// One Markdown block → sanitised HTML: marked for parsing, highlight.js for
// fenced code (with a copy button; loaded on first use, highlight.ts), then
// the strict sanitiser. The app's own markup (code blocks, task boxes) needs
// classes and ARIA the sanitiser takes from model output, so marked emits a
// slot for it — an empty element carrying a random per-renderer nonce the
// model cannot guess — and the markup is put into its slot after
// sanitising. That markup is built from escaped text only: fixed tags, the
// escaped language label, and highlight.js's output once it is checked to
// be nothing but text and <span class="…"> (isSpansOnly).

import { Marked, type Tokens } from "marked";
import { highlighter } from "./highlight";
import { SLOT_ATTR, createSanitizer, type Sanitizer } from "./sanitize";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/**
 * Whether html is only escaped text and <span class="…"> / </span> (class
 * names of word characters, dashes and spaces): what highlight.js emits.
 * Anything else is shown escaped instead, so the code slot never carries
 * markup the sanitiser has not vetted.
 */
export function isSpansOnly(html: string): boolean {
  return !html.replace(/<span class="[\w\- ]*">|<\/span>/g, "").includes("<");
}

/**
 * Highlights code; unknown or absent languages are escaped verbatim, and so
 * is everything until highlight.js has loaded (the view renders again then).
 */
export function highlightCode(code: string, lang: string): { html: string; language: string } {
  const language = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const hljs = language ? highlighter() : null;
  if (language && hljs?.getLanguage(language)) {
    const html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
    if (isSpansOnly(html)) return { html, language };
  }
  return { html: escapeHtml(code), language: "" };
}

/** Puts the app's own markup aside and returns the slot that stands for it. */
type Slot = (html: string, tag: "div" | "span") => string;

function createMarked(slot: Slot): Marked {
  return new Marked({
    gfm: true,
    breaks: false,
    renderer: {
      code(token: Tokens.Code): string {
        const { html, language } = highlightCode(token.text, token.lang ?? "");
        const cls = language ? `hljs language-${escapeHtml(language)}` : "hljs";
        const label = escapeHtml(language || (token.lang ?? "").trim().split(/\s+/)[0] || "text");
        return (
          slot(
            `<div class="md-code"><div class="md-code-head"><span class="md-lang">${label}</span>` +
              `<button type="button" class="md-copy" data-md-copy="" aria-label="Copy code">Copy</button></div>` +
              `<pre><code class="${cls}">${html}</code></pre></div>`,
            "div",
          ) + "\n"
        );
      },
      // Task list boxes: the sanitiser drops <input>, so a drawn box that says its state.
      checkbox({ checked }: Tokens.Checkbox): string {
        return slot(`<span class="md-check${checked ? " is-checked" : ""}" role="img" aria-label="${checked ? "done" : "not done"}"></span>`, "span") + " ";
      },
    },
  });
}

/** Renders a Markdown source string to sanitised HTML. */
export type BlockRenderer = (src: string) => string;

/** A fresh random nonce (hex) for one renderer's slots. */
function slotNonce(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** Creates a renderer: marked + highlight.js + the strict sanitiser, then the app's own markup into its slots. */
export function createBlockRenderer(sanitize: Sanitizer = createSanitizer()): BlockRenderer {
  const nonce = slotNonce();
  let slots: string[] = [];
  const marked = createMarked((html, tag) => `<${tag} ${SLOT_ATTR}="${nonce}-${slots.push(html) - 1}"></${tag}>`);
  const filled = new RegExp(`<(div|span) ${SLOT_ATTR}="${nonce}-(\\d+)"></\\1>`, "g");
  return (src) => {
    slots = [];
    const html = sanitize(marked.parse(src, { async: false }));
    const own = slots;
    return html.replace(filled, (_m, _tag: string, i: string) => own[Number(i)] ?? "");
  };
}

/**
 * Click handler for a container of rendered Markdown: a click on a code
 * block's copy button copies that block's text. Returns the copied text, or
 * null when the click was not on a copy button.
 */
export function handleCopyClick(target: EventTarget | null, clipboard: Pick<Clipboard, "writeText"> | undefined = globalThis.navigator?.clipboard): string | null {
  if (!(target instanceof Element)) return null;
  const button = target.closest("[data-md-copy]");
  const code = button?.closest(".md-code")?.querySelector("pre code");
  if (!button || !code) return null;
  const text = code.textContent ?? "";
  void clipboard?.writeText(text).catch(() => undefined);
  return text;
}
