// highlight.js, loaded on first use: its 36 languages are a quarter of the
// bundle, and most sessions open without a code block. Until it has
// loaded, code renders escaped without colours; once it has, subscribers
// (every MarkdownView) render again and their code blocks get them.

type HLJS = typeof import("highlight.js/lib/common").default;

let hljs: HLJS | null = null;
let loading: Promise<void> | null = null;
let version = 0;
const listeners = new Set<() => void>();

/** Starts loading highlight.js (once); resolves when it is ready. */
export function loadHighlighter(): Promise<void> {
  loading ??= import("highlight.js/lib/common").then((m) => {
    hljs = m.default;
    version++;
    for (const l of listeners) l();
  });
  return loading;
}

/** highlight.js if it has loaded; otherwise null, and loading starts. */
export function highlighter(): HLJS | null {
  if (!hljs) void loadHighlighter().catch(() => undefined);
  return hljs;
}

/** Increases when highlight.js has loaded (a React external store snapshot). */
export function highlighterVersion(): number {
  return version;
}

/** Calls listener when highlight.js has loaded; returns the unsubscribe. */
export function onHighlighterLoaded(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
