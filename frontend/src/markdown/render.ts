// One Markdown block → sanitised HTML: marked for parsing, highlight.js for
// fenced code (with a copy button; loaded on first use, highlight.ts), then
// the strict sanitiser.

import { Marked, type Tokens } from "marked";
import { highlighter } from "./highlight";
import { createSanitizer, type Sanitizer } from "./sanitize";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/**
 * Highlights code; unknown or absent languages are escaped verbatim, and so
 * is everything until highlight.js has loaded (the view renders again then).
 */
export function highlightCode(code: string, lang: string): { html: string; language: string } {
  const language = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
  const hljs = language ? highlighter() : null;
  if (language && hljs?.getLanguage(language)) {
    return { html: hljs.highlight(code, { language, ignoreIllegals: true }).value, language };
  }
  return { html: escapeHtml(code), language: "" };
}

function createMarked(): Marked {
  return new Marked({
    gfm: true,
    breaks: false,
    renderer: {
      code(token: Tokens.Code): string {
        const { html, language } = highlightCode(token.text, token.lang ?? "");
        const cls = language ? `hljs language-${escapeHtml(language)}` : "hljs";
        const label = escapeHtml(language || (token.lang ?? "").trim().split(/\s+/)[0] || "text");
        return (
          `<div class="md-code"><div class="md-code-head"><span class="md-lang">${label}</span>` +
          `<button type="button" class="md-copy" data-md-copy="" aria-label="Copy code">Copy</button></div>` +
          `<pre><code class="${cls}">${html}</code></pre></div>\n`
        );
      },
      // Task list boxes: the sanitiser drops <input>, so a drawn box that says its state.
      checkbox({ checked }: Tokens.Checkbox): string {
        return `<span class="md-check${checked ? " is-checked" : ""}" role="img" aria-label="${checked ? "done" : "not done"}"></span> `;
      },
    },
  });
}

/** Renders a Markdown source string to sanitised HTML. */
export type BlockRenderer = (src: string) => string;

/** Creates a renderer: marked + highlight.js + the strict sanitiser. */
export function createBlockRenderer(sanitize: Sanitizer = createSanitizer()): BlockRenderer {
  const marked = createMarked();
  return (src) => sanitize(marked.parse(src, { async: false }));
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
